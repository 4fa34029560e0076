import { describe, expect, it } from 'vitest';
import { syntheticRunRecords } from '../../../test/support/synthetic-trace';
import { openDatabase } from './open-database';
import { createRecordWriter } from './write-records';
import { getRunDetail, listRuns, LIST_RUNS_SQL, resolveRunId, STEPS_OF_RUN_SQL } from './read-runs';

function storeWith(...runs: ReturnType<typeof syntheticRunRecords>[]) {
  const db = openDatabase(':memory:');
  const w = createRecordWriter(db);
  db.transaction(() => runs.flat().forEach((r) => w.apply(r, '/tmp/x.jsonl')))();
  return db;
}

describe('reading runs', () => {
  it('a run id prefix finds the run, and an ambiguous prefix says which runs it matches', () => {
    const db = storeWith(syntheticRunRecords({ runId: 'abc-1', steps: 1 }), syntheticRunRecords({ runId: 'abc-2', steps: 1 }));
    expect(resolveRunId(db, 'abc-1')).toBe('abc-1');
    expect(() => resolveRunId(db, 'abc')).toThrow(/matches several runs: abc-1, abc-2/);
    expect(() => resolveRunId(db, 'zzz')).toThrow(/no run matches "zzz"/);
  });

  it('steps come back in start order, parents before their children', () => {
    const db = storeWith(syntheticRunRecords({ runId: 'r', steps: 25 }));
    const d = getRunDetail(db, 'r');
    expect(d.steps.map((s) => s.index)).toEqual([...Array(25).keys()]);
    const pos = new Map(d.steps.map((s, i) => [s.step_id, i]));
    for (const s of d.steps) if (s.parent_id) expect(pos.get(s.parent_id)!).toBeLessThan(pos.get(s.step_id)!);
  });

  it('filters failed runs and searches step content', () => {
    const db = storeWith(syntheticRunRecords({ runId: 'ok-run', steps: 3 }), syntheticRunRecords({ runId: 'bad-run', steps: 3, failAt: 1 }));
    expect(listRuns(db, { filter: 'failed' }).map((r) => r.run_id)).toEqual(['bad-run']);
    expect(listRuns(db, { search: 'step 1 failed' }).map((r) => r.run_id)).toEqual(['bad-run']);
    expect(listRuns(db, {}).map((r) => r.steps)).toEqual([3, 3]);
  });

  it('the runs list and the steps of a run are served by indexes, not table scans', () => {
    const db = storeWith(syntheticRunRecords({ runId: 'r', steps: 3 }));
    const plan = (sql: string, params: unknown) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params as never) as { detail: string }[]).map((r) => r.detail).join('\n');
    expect(plan(STEPS_OF_RUN_SQL, ['r'])).toMatch(/USING (INDEX steps_in_order|PRIMARY KEY)/);
    const listPlan = plan(LIST_RUNS_SQL, { pipeline: null, search: null, filter: 'all', include_trials: 0, running_since: 0, limit: 10 });
    expect(listPlan).toMatch(/runs_by_start/);
    expect(listPlan).not.toMatch(/SCAN s\b/);
  });
});
