import { SYNTHETIC_PARENT_PREFIX } from '../../store/import-files';

/**
 * The id of the synthetic root that stands in for a missing parent (planRun
 * in run-records.ts, and the streaming import's columnar plan): normally
 * `missing-parent:X`, but a file may hold a step of that very id (a Traceback
 * export names its steps freely): then `missing-parent:X~2`, `~3`…, so the
 * synthetic root never merges into a recorded step.
 */
export function syntheticParentId(missing: string, taken: (id: string) => boolean): string {
  const base = `${SYNTHETIC_PARENT_PREFIX}${missing}`;
  let id = base;
  for (let n = 2; taken(id); n++) id = `${base}~${n}`;
  return id;
}
