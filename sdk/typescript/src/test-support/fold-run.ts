/**
 * Just enough of the importer's fold (records → RunDetail) for the SDK's own
 * replay tests, so they do not depend on the engine. Unknown fields go to
 * `extra`, as the importer keeps them.
 */
import type { RunDetail, Step } from '../../../../src-shared/model';
import type { Json, TraceRecord } from '../trace-format.js';

const KNOWN_START = new Set(['type', 'run_id', 'step_id', 'parent_id', 'index', 'name', 'step_type', 'replay_key', 'ts', 'input', 'metadata']);
const KNOWN_END = new Set(['type', 'run_id', 'step_id', 'ts', 'status', 'output', 'error', 'model', 'usage', 'metadata', 'replayed']);

export function foldRun(records: TraceRecord[]): RunDetail {
  const start = records.find((r) => r.type === 'run-start');
  const end = records.find((r) => r.type === 'run-end');
  if (!start || start.type !== 'run-start') throw new Error('no run-start');
  const steps = new Map<string, Step>();
  for (const r of records) {
    if (r.type === 'step-start') {
      const extra: Record<string, Json> = {};
      for (const [k, v] of Object.entries(r)) if (!KNOWN_START.has(k)) extra[k] = v as Json;
      steps.set(r.step_id, {
        run_id: r.run_id, step_id: r.step_id, parent_id: r.parent_id, index: r.index, name: r.name, type: r.step_type,
        replay_key: r.replay_key, status: 'running', input: r.input ?? null, output: null, error: null, started_at: r.ts,
        ended_at: null, duration_ms: null, model: null, usage: null, metadata: r.metadata ?? {}, user_scores: [], replayed: false, extra,
      });
    } else if (r.type === 'step-end') {
      const s = steps.get(r.step_id);
      if (!s) continue;
      for (const [k, v] of Object.entries(r)) if (!KNOWN_END.has(k)) s.extra[k] = v as Json;
      Object.assign(s, {
        status: r.status, output: r.output ?? null, error: r.error ?? null, ended_at: r.ts, model: r.model ?? null,
        usage: r.usage ?? null, metadata: { ...s.metadata, ...r.metadata }, replayed: r.replayed === true,
      });
    }
  }
  const runExtra: Record<string, Json> = {};
  if (end && end.type === 'run-end') {
    const nd = (end as unknown as { nondeterminism?: Json }).nondeterminism;
    if (nd !== undefined) runExtra.nondeterminism = nd;
  }
  return {
    run: {
      run_id: start.run_id, pipeline: start.pipeline, status: end && end.type === 'run-end' ? end.status : 'running', steps: steps.size,
      started_at: start.ts, duration_ms: null, verdict: null, source_format: 'native', forked: false, ended_at: null,
      input: start.input ?? null, output: null, error: null, tags: start.tags ?? {}, entry: start.entry ?? null,
      provenance: start.provenance ?? null, sdk: start.sdk ?? null, source_file: null, extra: runExtra,
    } as RunDetail['run'],
    steps: [...steps.values()].sort((a, b) => a.index - b.index),
  };
}
