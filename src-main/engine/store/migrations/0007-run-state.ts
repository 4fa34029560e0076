/**
 * 0007: the failure detector's answer (failed / healthy / unknown) and whether
 * the user asserted it, kept beside each stored blame result, so the runs list
 * shows the same state as the run's header without parsing every stored
 * result. Rows stored before this migration get theirs from the stored JSON once.
 */
export const migration0007 = {
  version: 7,
  name: 'run-state',
  sql: `
ALTER TABLE blame_results ADD COLUMN detection TEXT;
ALTER TABLE blame_results ADD COLUMN asserted INTEGER NOT NULL DEFAULT 0;
UPDATE blame_results SET
  detection = json_extract(result, '$.detection.status'),
  asserted = coalesce(json_extract(result, '$.asserted'), 0)
WHERE json_valid(result);
`,
};
