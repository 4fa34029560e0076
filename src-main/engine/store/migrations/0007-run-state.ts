/**
 * 0007: the failure detector's answer (failed / healthy / unknown) kept beside
 * each stored blame result, so the runs list shows the same state as the
 * run's header (src-shared/run-state.ts) without parsing every stored result.
 * Rows stored before this migration get theirs from the stored JSON once.
 */
export const migration0007 = {
  version: 7,
  name: 'run-state',
  sql: `
ALTER TABLE blame_results ADD COLUMN detection TEXT CHECK (detection IN ('failed','healthy','unknown'));
UPDATE blame_results SET detection = json_extract(result, '$.detection.status')
WHERE json_valid(result) AND json_extract(result, '$.detection.status') IN ('failed','healthy','unknown');
`,
};
