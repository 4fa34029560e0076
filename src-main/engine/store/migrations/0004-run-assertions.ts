/**
 * 0004: what the user asserted about a run ("this run failed", with an
 * optional expected answer). Blame, reports, diff and the gate read it; it
 * goes when the run goes.
 */
export const migration0004 = {
  version: 4,
  name: 'run-assertions',
  sql: `
CREATE TABLE run_assertions (
  run_id      TEXT PRIMARY KEY REFERENCES runs(run_id) ON DELETE CASCADE,
  failed      INTEGER NOT NULL,
  expected    TEXT,
  note        TEXT,
  asserted_at REAL NOT NULL
);
`,
};
