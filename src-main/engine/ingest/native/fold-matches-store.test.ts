import { describe, expect, it } from 'vitest';
import type { TraceRecord } from '../../../../src-shared/trace-format';
import { openDatabase } from '../../store/open-database';
import { createRecordWriter } from '../../store/write-records';
import { getRunDetail } from '../../store/read-runs';
import { foldRecords } from './fold-records';
import { syntheticRunRecords } from '../../../../test/support/synthetic-trace';

const NOW = 1_800_000_000_000;

function viaStore(batches: TraceRecord[][]) {
  const db = openDatabase(':memory:');
  const w = createRecordWriter(db, () => NOW);
  for (const b of batches) db.transaction(() => w.applyBatch(b, null))();
  return getRunDetail(db, 'r', NOW);
}

const records: TraceRecord[] = [
  { type: 'run-start', v: '1.0', run_id: 'r', pipeline: 'p', ts: 1, input: { q: 'x' }, tags: { env: 'test' } },
  { type: 'step-start', run_id: 'r', step_id: 'a', parent_id: null, index: 0, name: 'plan', step_type: 'llm', replay_key: 'plan#0', ts: 2, input: 'hi', metadata: { k: { x: 1 }, keep: true } },
  { type: 'step-end', run_id: 'r', step_id: 'b', ts: 6, status: 'error', error: { type: 'E', message: 'boom' } },
  { type: 'step-start', run_id: 'r', step_id: 'b', parent_id: 'a', index: 1, name: 'tool', step_type: 'tool', replay_key: 'plan#0/tool#0', ts: 3 },
  { type: 'step-end', run_id: 'r', step_id: 'a', ts: 7, status: 'ok', output: { plan: [1, 2] }, model: 'm', usage: { input_tokens: 3 }, metadata: { k: { y: 2 }, finish_reason: 'stop' } },
  { type: 'score', run_id: 'r', step_id: 'a', name: 'quality', value: 0.5, ts: 8 },
  { type: 'verdict', run_id: 'r', pass: false, detail: 'wrong', ts: 9 },
  { type: 'run-end', run_id: 'r', ts: 10, status: 'ok', output: 'done' },
  { type: 'step-start', run_id: 'r', step_id: 'c', parent_id: null, index: 2, name: 'cleanup', step_type: 'generic', replay_key: 'cleanup#0', ts: 11, metadata: { drop: 1, stay: 2 } },
  { type: 'step-end', run_id: 'r', step_id: 'c', ts: 12, status: 'ok', metadata: { drop: null } } as TraceRecord,
];

describe('the in-memory fold and the SQLite store agree', () => {
  it('on out-of-order ends, merged metadata (including a null that deletes a key), scores and verdicts', () => {
    const folded = foldRecords(records, { now: NOW })[0];
    const stored = viaStore([records]);
    expect(stored.steps).toEqual(folded.steps);
    expect({ ...stored.run, source_file: null }).toEqual({ ...folded.run, source_file: null });
    expect(stored.steps.find((s) => s.step_id === 'a')!.metadata).toEqual({ k: { x: 1, y: 2 }, keep: true, finish_reason: 'stop' });
    expect(stored.steps.find((s) => s.step_id === 'c')!.metadata).toEqual({ stay: 2 });
    expect(stored.steps.find((s) => s.step_id === 'b')!.status).toBe('error');
  });

  it('whether records arrive in one batch, one by one, or twice', () => {
    const once = viaStore([records]);
    expect(viaStore(records.map((r) => [r]))).toEqual(once);
    expect(viaStore([records, records])).toEqual(once);
  });

  it('for a long run whose step-ends come in a later block than their starts (steps are written many rows per statement)', () => {
    const long = syntheticRunRecords({ runId: 'r', steps: 53, failAt: 20 });
    const starts = long.filter((r) => r.type !== 'step-end');
    const ends = long.filter((r) => r.type === 'step-end');
    const folded = foldRecords(long, { now: NOW })[0];
    // Ends split across two blocks, the second block's first 32-row chunk meeting steps stored already.
    const stored = viaStore([starts.slice(0, 30), [...ends.slice(0, 10), ...starts.slice(30)], ends.slice(10)]);
    expect(stored.steps).toHaveLength(53);
    expect(stored.steps).toEqual(folded.steps);
    expect(viaStore([long])).toEqual(stored);
  });
});
