/**
 * Top-level text fields of a record (run and step ids, names, pipeline, model)
 * go to TEXT columns, where SQLite stores a lone UTF-16 surrogate ("\ud800",
 * legal in JSON) as U+FFFD. The id stored would then differ from the id in
 * the trace, and the run could not be found by its own id. Such text is made
 * well-formed first, and the importer reports it.
 */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Replaces lone surrogates in the record's top-level strings (in place); returns how many fields changed. */
export function makeTextWellFormed(record: object): number {
  let changed = 0;
  const r = record as Record<string, unknown>;
  for (const k in r) {
    const v = r[k];
    if (typeof v !== 'string') continue;
    LONE_SURROGATE.lastIndex = 0;
    if (!LONE_SURROGATE.test(v)) continue;
    r[k] = v.replace(LONE_SURROGATE, '\ufffd');
    changed += 1;
  }
  return changed;
}

export const WELL_FORMED_MESSAGE = (n: number) => `${n} text field(s) held unpaired UTF-16 surrogates, replaced by U+FFFD`;
