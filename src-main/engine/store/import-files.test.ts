import { describe, expect, it } from 'vitest';
import type { TraceRecord } from '../../../src-shared/trace-format';
import { openDatabase, type Db } from './open-database';
import { createRecordWriter } from './write-records';
import { dropStaleSyntheticSteps, noteSyntheticSteps } from './import-files';

function storeRun(db: Db, runId: string, stepIds: string[]): void {
  const records: TraceRecord[] = [
    { type: 'run-start', v: '1.0', run_id: runId, pipeline: 'p', ts: 1 },
    ...stepIds.map((step_id, index): TraceRecord => ({ type: 'step-start', run_id: runId, step_id, parent_id: null, index, name: step_id, step_type: 'generic', replay_key: `${step_id}#${index}`, ts: 2 + index })),
  ];
  db.transaction(() => createRecordWriter(db).applyBatch(records, null))();
}

const stepsOf = (db: Db, runId: string) => db.prepare('SELECT step_id FROM steps WHERE run_id = ? ORDER BY step_id').pluck().all(runId);

describe('a whole read replacing what an earlier read of the file made up', () => {
  it('drops the synthetic roots this read did not write again, keeps those it wrote and every other step, and leaves other runs alone', () => {
    const db = openDatabase(':memory:');
    storeRun(db, 'r', ['a', 'missing-parent:gone', 'missing-parent:recorded', 'missing-parent:again']);
    storeRun(db, 'other', ['missing-parent:gone']);
    const written = new Map<string, Set<string>>();
    // This read wrote a recorded step whose id looks synthetic, and made one synthetic root again.
    noteSyntheticSteps(
      [
        { type: 'step-start', run_id: 'r', step_id: 'missing-parent:recorded' },
        { type: 'step-end', run_id: 'r', step_id: 'missing-parent:gone' },
        { type: 'step-start', run_id: 'r', step_id: 'missing-parent:again' },
        { type: 'step-start', run_id: 'r', step_id: 'a' },
      ],
      written,
    );
    dropStaleSyntheticSteps(db, written, ['r']);
    expect(stepsOf(db, 'r')).toEqual(['a', 'missing-parent:again', 'missing-parent:recorded']);
    expect(stepsOf(db, 'other')).toEqual(['missing-parent:gone']);
  });
});
