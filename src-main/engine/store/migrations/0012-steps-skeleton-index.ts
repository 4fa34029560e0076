/**
 * 0012: a run's skeleton (store/read-run-pages.ts) is read from one index,
 * never from the steps table (issue 14: opening a 100,000-step run).
 *
 * `steps` is WITHOUT ROWID and its timing and usage columns come after input
 * and output: for a step with a few kB of payload, SQLite reached them only by
 * walking the row's overflow pages, and then sorted by start time. Reading
 * the skeleton of a 100,000-step run of 1 kB outputs took ~4 s; from this
 * covering index, in order, ~0.5 s. It leads with (run_id, idx), so it also
 * does the work of steps_in_order, which goes.
 */
export const migration0012 = {
  version: 12,
  name: 'steps-skeleton-index',
  sql: `
CREATE INDEX steps_skeleton ON steps (run_id, idx, started_at, step_id, parent_id, name, type, status, ended_at, usage);
DROP INDEX steps_in_order;
`,
};
