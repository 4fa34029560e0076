/**
 * Writes native trace files (docs: src-shared/trace-format.ts) for the e2e
 * stories and the UI benchmark: a run is described as a list of steps and
 * comes out as the JSON Lines an SDK would have written.
 */
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import type { Json, StepType, TraceError, TraceRecord } from '../src-shared/trace-format';
import { TRACE_FORMAT_VERSION } from '../src-shared/trace-format';

interface StepSpec {
  id: string;
  parent: string | null;
  name: string;
  type?: StepType;
  input?: Json;
  output?: Json;
  error?: TraceError;
  durationMs?: number;
  metadata?: Record<string, Json>;
}

export interface RunSpec {
  runId?: string;
  pipeline: string;
  input?: Json;
  output?: Json;
  status?: 'ok' | 'error';
  verdict?: { pass: boolean; detail?: string };
  steps: StepSpec[];
  /** Leave the run open (no run-end record), as a run still going. */
  open?: boolean;
  startedAt?: number;
}

function traceRecords(spec: RunSpec): TraceRecord[] {
  const runId = spec.runId ?? crypto.randomUUID();
  let t = spec.startedAt ?? Date.now() - 60_000;
  const records: TraceRecord[] = [
    { type: 'run-start', v: TRACE_FORMAT_VERSION, run_id: runId, pipeline: spec.pipeline, ts: t, input: spec.input ?? null, sdk: { name: 'e2e-writer', version: '1' } },
  ];
  const occurrences = new Map<string, number>();
  const keys = new Map<string, string>();
  // Steps are written depth-first with children nested inside their parent's time span.
  const children = new Map<string | null, StepSpec[]>();
  for (const s of spec.steps) {
    const list = children.get(s.parent) ?? [];
    list.push(s);
    children.set(s.parent, list);
  }
  let index = 0;
  const emit = (s: StepSpec) => {
    const parentKey = s.parent ? keys.get(s.parent) ?? '' : '';
    const occKey = `${s.parent ?? ''}/${s.name}`;
    const n = occurrences.get(occKey) ?? 0;
    occurrences.set(occKey, n + 1);
    const key = `${parentKey}/${s.name}#${n}`;
    keys.set(s.id, key);
    records.push({ type: 'step-start', run_id: runId, step_id: s.id, parent_id: s.parent, index: index++, name: s.name, step_type: s.type ?? 'generic', replay_key: key, ts: t, input: s.input, metadata: s.metadata });
    for (const c of children.get(s.id) ?? []) emit(c);
    t += s.durationMs ?? 5;
    records.push({ type: 'step-end', run_id: runId, step_id: s.id, ts: t, status: s.error ? 'error' : 'ok', output: s.output, error: s.error });
  };
  // Iterative for the roots; recursion depth is the tree depth, which the generators keep small.
  for (const root of children.get(null) ?? []) emit(root);
  if (spec.verdict) records.push({ type: 'verdict', run_id: runId, pass: spec.verdict.pass, detail: spec.verdict.detail, ts: t });
  if (!spec.open) records.push({ type: 'run-end', run_id: runId, ts: t + 1, status: spec.status ?? 'ok', output: spec.output });
  return records;
}

/** Writes the file whole and atomically (temp name, then rename) so a watcher never sees half a line. */
export function writeTrace(dir: string, spec: RunSpec): { file: string; runId: string } {
  const records = traceRecords(spec);
  const runId = (records[0] as { run_id: string }).run_id;
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${runId}.jsonl`);
  const tmp = path.join(dir, `.${runId}.jsonl.part`);
  fs.writeFileSync(tmp, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  fs.renameSync(tmp, file);
  return { file, runId };
}

/** A run shaped like an agent loop: root → `loops` iterations → `perLoop` steps each. */
/** `outputBytes`: each step's output padded to about this many characters (what a recorded prompt or answer weighs). */
export function loopRunSpec(pipeline: string, totalSteps: number, runId?: string, outputBytes = 0): RunSpec {
  const pad = outputBytes > 0 ? ' ' + 'the model wrote this sentence. '.repeat(Math.ceil(outputBytes / 31)).slice(0, outputBytes) : '';
  const perLoop = 49;
  const loops = Math.max(1, Math.ceil((totalSteps - 1) / (perLoop + 1)));
  const steps: StepSpec[] = [{ id: 'root', parent: null, name: 'agent', type: 'agent', input: { task: 'answer the question' } }];
  const types: StepType[] = ['prompt', 'llm', 'tool', 'retrieval'];
  outer: for (let i = 0; i < loops; i++) {
    const it = `it${i}`;
    steps.push({ id: it, parent: 'root', name: 'iteration', type: 'agent' });
    for (let j = 0; j < perLoop; j++) {
      if (steps.length >= totalSteps) break outer;
      const type = types[j % types.length];
      steps.push({
        id: `${it}.${j}`,
        parent: it,
        name: `${type}-${j % 7}`,
        type,
        input: { iteration: i, query: `lookup ${i}-${j}` },
        output: { text: `result ${i}-${j}${pad}` },
        durationMs: 1 + ((i * 31 + j * 17) % 40),
      });
    }
  }
  return { runId, pipeline, input: { question: 'big run' }, output: 'done', steps: steps.slice(0, totalSteps) };
}
