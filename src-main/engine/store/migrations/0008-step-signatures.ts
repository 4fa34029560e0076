/**
 * 0008: each run's distinct step signatures (type, name, tool, argument shape,
 * outcome class: blame/spectrum.ts), for the across-runs spectrum rule. Blame
 * of one run then reads a few counts per signature instead of loading up to 50
 * whole sibling runs. `signed_runs` records the run version (runs.updated_at)
 * the signatures were computed from; runs stored before this migration have
 * none and are signed on first use.
 */
export const migration0008 = {
  version: 8,
  name: 'step-signatures',
  sql: `
CREATE TABLE run_signatures (
  run_id    TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  signature TEXT NOT NULL,
  PRIMARY KEY (run_id, signature)
) WITHOUT ROWID;
CREATE TABLE signed_runs (
  run_id     TEXT PRIMARY KEY REFERENCES runs(run_id) ON DELETE CASCADE,
  updated_at REAL NOT NULL
) WITHOUT ROWID;
`,
};
