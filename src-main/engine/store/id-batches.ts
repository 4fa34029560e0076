/**
 * Run ids handed to one statement as a JSON array, which the statement reads
 * with json_each: one statement a run cost a few µs each in binding and
 * stepping alone, which the end of a file of 26,460 one-span traces paid four
 * times over (bench/many-runs.ts). A batch holds at most ID_BATCH ids.
 */
export const ID_BATCH = 10_000;

/** The ids (in order, repeats kept) as JSON arrays of at most ID_BATCH ids each. */
export function* idBatches(ids: Iterable<string>): Generator<string> {
  let batch: string[] = [];
  for (const id of ids) {
    batch.push(id);
    if (batch.length === ID_BATCH) {
      yield JSON.stringify(batch);
      batch = [];
    }
  }
  if (batch.length) yield JSON.stringify(batch);
}

/** The SQL of "run_id is one of the batch's ids" (the batch bound to `param`). */
export const IN_BATCH = (param = '?') => `IN (SELECT value FROM json_each(${param}))`;
