/**
 * 0013: the runs with a verdict of each pipeline, newest first (the spectrum
 * rule's history, store/run-signatures.ts), and the tool steps by name (the
 * tool scorer's failure rates, store/read-runs.ts's toolStats).
 *
 * Blame reads the newest 50 runs of its pipeline that have a verdict; through
 * runs_by_pipeline that walked every run of the pipeline when few had one, so
 * blaming each of 20,000 imported runs of 20 pipelines read 1,000 rows three
 * times for each. Tool counts scanned every step for `type = 'tool'`.
 */
export const migration0013 = {
  version: 13,
  name: 'runs-with-verdict',
  sql: `
CREATE INDEX runs_with_verdict ON runs (pipeline, started_at DESC) WHERE verdict IS NOT NULL;
CREATE INDEX tool_steps ON steps (name, status) WHERE type = 'tool';
`,
};
