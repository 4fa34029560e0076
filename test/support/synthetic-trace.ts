/**
 * Synthetic native traces for tests and benchmarks: a run with N steps in a
 * shallow tree, written the way the SDK writes them.
 */
import type { TraceRecord } from '../../src-shared/trace-format';
import { TRACE_FORMAT_VERSION } from '../../src-shared/trace-format';

export interface SyntheticRunOptions {
  runId: string;
  steps: number;
  pipeline?: string;
  startTs?: number;
  /** Leave out run-end (a run still going, or a crashed writer). */
  unfinished?: boolean;
  failAt?: number;
}

export function syntheticRunRecords(o: SyntheticRunOptions): TraceRecord[] {
  const t0 = o.startTs ?? 1_700_000_000_000;
  const recs: TraceRecord[] = [
    { type: 'run-start', v: TRACE_FORMAT_VERSION, run_id: o.runId, pipeline: o.pipeline ?? 'synthetic', ts: t0, input: { question: 'q' } },
  ];
  for (let i = 0; i < o.steps; i++) {
    const parent = i === 0 ? null : `s${Math.floor((i - 1) / 10)}`;
    const failed = o.failAt === i;
    recs.push({
      type: 'step-start',
      run_id: o.runId,
      step_id: `s${i}`,
      parent_id: parent,
      index: i,
      name: i % 3 === 0 ? 'retrieve' : i % 3 === 1 ? 'generate' : 'lookup',
      step_type: i % 3 === 0 ? 'retrieval' : i % 3 === 1 ? 'llm' : 'tool',
      replay_key: `${parent ?? ''}/step#${i}`,
      ts: t0 + i,
      input: { i, text: `input of step ${i}` },
    });
    recs.push({
      type: 'step-end',
      run_id: o.runId,
      step_id: `s${i}`,
      ts: t0 + i + 0.5,
      status: failed ? 'error' : 'ok',
      ...(failed ? { error: { type: 'Error', message: `step ${i} failed` } } : { output: { text: `output of step ${i}` } }),
    });
  }
  if (!o.unfinished) recs.push({ type: 'run-end', run_id: o.runId, ts: t0 + o.steps + 1, status: o.failAt === undefined ? 'ok' : 'error' });
  return recs;
}

export function toJsonl(records: TraceRecord[]): string {
  return records.map((r) => JSON.stringify(r)).join('\n') + '\n';
}
