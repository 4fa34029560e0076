/**
 * 0002: stored blame results. A result is valid for one settings hash and one
 * state of the run (its updated_at); anything else is recomputed on read.
 */
export const migration0002 = {
  version: 2,
  name: 'analysis-cache',
  sql: `
CREATE TABLE blame_results (
  run_id        TEXT PRIMARY KEY REFERENCES runs(run_id) ON DELETE CASCADE,
  settings_hash TEXT NOT NULL,
  run_updated   REAL NOT NULL,
  healthy       INTEGER NOT NULL,
  blame_score   REAL,
  result        TEXT NOT NULL,
  computed_at   REAL NOT NULL
);
`,
};
