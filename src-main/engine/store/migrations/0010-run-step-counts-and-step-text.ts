/**
 * 0010: what the runs list derives from every step, kept so it is not derived
 * again on each read (issue 14: `tb list` over 10,000 runs of 1,000,000 steps).
 *
 * - `run_step_counts`: a run's number of steps, stamped with the run version
 *   (`runs.updated_at`) it was counted at. Computed here for stored runs; later
 *   changes are counted by store/step-counts.ts before a list is read.
 * - `step_text` (FTS5, trigram tokens, contentless) and `step_text_runs`: one
 *   document per run holding its steps' name, input, output and error, for the
 *   runs list's text search; a big run takes several (store/step-text-index.ts builds them lazily; see
 *   docs/adr/0010-runs-list-search-index.md). Left empty here: building it for a
 *   big store takes seconds, and a search reads unindexed runs the old way.
 * - `runs_by_update`: which runs changed since a catch-up last ran.
 * - `catch_up_marks`: where each catch-up got to, as a `runs.updated_at` value.
 */
export const migration0010 = {
  version: 10,
  name: 'run-step-counts-and-step-text',
  sql: `
CREATE INDEX runs_by_update ON runs (updated_at);

CREATE TABLE run_step_counts (
  run_id  TEXT PRIMARY KEY REFERENCES runs(run_id) ON DELETE CASCADE,
  version REAL NOT NULL,
  steps   INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO run_step_counts (run_id, version, steps)
  SELECT r.run_id, r.updated_at, (SELECT COUNT(*) FROM steps s WHERE s.run_id = r.run_id) FROM runs r;

CREATE VIRTUAL TABLE step_text USING fts5(body, tokenize = 'trigram case_sensitive 0', content = '', contentless_delete = 1);
CREATE TABLE step_text_runs (
  doc     INTEGER PRIMARY KEY,
  run_id  TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  version REAL NOT NULL,
  plain   INTEGER NOT NULL
);
CREATE INDEX step_text_runs_by_run ON step_text_runs (run_id, version);
-- A forgotten run, or one indexed again, takes its documents out of the index with it.
CREATE TRIGGER step_text_runs_forget AFTER DELETE ON step_text_runs BEGIN
  DELETE FROM step_text WHERE rowid = old.doc;
END;

CREATE TABLE catch_up_marks (
  name TEXT PRIMARY KEY,
  at   REAL NOT NULL
);
`,
};
