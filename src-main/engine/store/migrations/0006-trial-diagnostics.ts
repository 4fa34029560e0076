/**
 * 0006: what a user needs to understand a trial that did not test what they
 * meant: the log file and the last lines of stderr of a trial that crashed,
 * and whether the pipeline consumed the fork edit (an instructions edit at a
 * step that never reads its instructions tested nothing). NULL = not known
 * (trials recorded before this migration, or by an SDK that does not report it).
 */
export const migration0006 = {
  version: 6,
  name: 'trial-diagnostics',
  sql: `
ALTER TABLE trials ADD COLUMN log_file TEXT;
ALTER TABLE trials ADD COLUMN stderr_tail TEXT;
ALTER TABLE trials ADD COLUMN edit_applied INTEGER;
`,
};
