/**
 * 0009: runs by the file they came from. Every import asks which runs a file
 * holds (and which of its run ids collide); without an index that is a scan of
 * every run, which made importing one more 1,000-step run into a store of
 * 10,000 runs about twice as slow as into an empty one (bench/store-at-size.ts).
 */
export const migration0009 = {
  version: 9,
  name: 'runs-by-source-file',
  sql: `CREATE INDEX runs_by_source_file ON runs (source_file);`,
};
