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
  // One set for the fields of the record at hand: this runs for every record of a streamed import.
  const fixed = new Set<string>();
  for (const r of records) {
    if (makeTextWellFormed(r, fixed) === 0) continue;
    let seen = tally.get(r.run_id);
    if (!seen) tally.set(r.run_id, (seen = new Set()));
    for (const f of fixed) seen.add(f);
    fixed.clear();
  }
}

/** One message per run of `tally`, naming the run by the id it is stored under (`storedId`: renamed on a collision). */
export function wellFormedMessages(tally: WellFormedTally, storedId: (runId: string) => string = (id) => id): string[] {
  return [...tally].map(([runId, fields]) => `run ${storedId(runId)}: unpaired UTF-16 surrogates replaced by U+FFFD in ${[...fields].sort().join(', ')}`);
}
