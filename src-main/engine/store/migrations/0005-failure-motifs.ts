/**
 * 0005: what Traceback learned from failures (docs/motifs.md) and the
 * root-cause agent's answers (docs/explain.md).
 *
 * A motif learned here points at its source run and goes with it (a user who
 * deletes a run withdraws what was learned from it); a motif imported from a
 * teammate's file has no local run (source_run_id NULL) and stays until
 * `tb motifs forget`. The proving experiment may be gone while the motif
 * stays: its rates and p-value are kept in the body.
 */
export const migration0005 = {
  version: 5,
  name: 'failure-motifs',
  sql: `
CREATE TABLE failure_motifs (
  motif_id       TEXT PRIMARY KEY,
  origin         TEXT NOT NULL CHECK (origin IN ('blame','agent','imported')),
  source_run_id  TEXT REFERENCES runs(run_id) ON DELETE CASCADE,
  experiment_id  TEXT REFERENCES experiments(experiment_id) ON DELETE SET NULL,
  body           TEXT NOT NULL,
  created_at     REAL NOT NULL
);
CREATE INDEX failure_motifs_by_run ON failure_motifs (source_run_id);

CREATE TABLE run_explanations (
  run_id      TEXT PRIMARY KEY REFERENCES runs(run_id) ON DELETE CASCADE,
  body        TEXT NOT NULL,
  created_at  REAL NOT NULL
);
`,
};
