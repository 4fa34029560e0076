/**
 * Top-level text fields of a record (run and step ids, names, pipeline, model)
 * go to TEXT columns, where SQLite stores a lone UTF-16 surrogate ("\ud800",
 * legal in JSON) as U+FFFD. The id stored would then differ from the id in
 * the trace, and the run could not be found by its own id. Such text is made
 * well-formed first, and the importer reports it.
 */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Replaces lone surrogates in the record's top-level strings (in place); returns how many fields changed, naming them in `fields`. */
export function makeTextWellFormed(record: object, fields?: Set<string>): number {
  let changed = 0;
  const r = record as Record<string, unknown>;
  for (const k in r) {
    const v = r[k];
    if (typeof v !== 'string') continue;
    LONE_SURROGATE.lastIndex = 0;
    if (!LONE_SURROGATE.test(v)) continue;
    r[k] = v.replace(LONE_SURROGATE, '\ufffd');
    fields?.add(k);
    changed += 1;
  }
  return changed;
}

export const WELL_FORMED_MESSAGE = (n: number) => `${n} text field(s) held unpaired UTF-16 surrogates, replaced by U+FFFD`;

/** Per run: the fields whose text was made well-formed. */
export type WellFormedTally = Map<string, Set<string>>;

/**
 * Makes the text of foreign records well-formed (in place) and notes, per
 * run, which fields held lone surrogates; wellFormedMessages says it once per
 * run. A foreign file names no line per record, so a run id holding a lone
 * surrogate, repeated in every record of its run, would otherwise give each
 * of them a warning of its own (thousands for a big run).
 */
export function tallyWellFormed(records: { run_id: string }[], tally: WellFormedTally): void {
  for (const r of records) {
    const fields = new Set<string>();
    if (makeTextWellFormed(r, fields) > 0) noteWellFormed(tally, r.run_id, fields);
  }
}

/** Adds fields made well-formed in a record of `runId` (the id as stored) to `tally`. */
export function noteWellFormed(tally: WellFormedTally, runId: string, fields: Set<string>): void {
  const seen = tally.get(runId);
  if (seen) for (const f of fields) seen.add(f);
  else tally.set(runId, fields);
}

export function wellFormedMessages(tally: WellFormedTally): string[] {
  return [...tally].map(([runId, fields]) => `run ${runId}: unpaired UTF-16 surrogates replaced by U+FFFD in ${[...fields].sort().join(', ')}`);
}
