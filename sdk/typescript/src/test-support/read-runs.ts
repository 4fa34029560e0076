/** Test helpers: a fresh temp home, and the records of the runs written into its inbox. */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RECORD_TYPES, STEP_TYPES, type TraceRecord } from '../trace-format.js';

export function tempHome(): string {
  return mkdtempSync(join(tmpdir(), 'tb-sdk-'));
}

export function runFiles(home: string): string[] {
  const inbox = join(home, 'inbox');
  return readdirSync(inbox)
    .filter((f) => f.endsWith('.jsonl'))
    .map((f) => join(inbox, f));
}

export function readRecords(file: string): TraceRecord[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as TraceRecord);
}

/** Every record of every run in the home, grouped by run id. */
export function readRuns(home: string): Map<string, TraceRecord[]> {
  const out = new Map<string, TraceRecord[]>();
  for (const f of runFiles(home)) {
    for (const r of readRecords(f)) out.set(r.run_id, [...(out.get(r.run_id) ?? []), r]);
  }
  return out;
}

export function onlyRun(home: string): TraceRecord[] {
  const runs = [...readRuns(home).values()];
  if (runs.length !== 1) throw new Error(`expected one run, found ${runs.length}`);
  return runs[0];
}

export function stepStarts(records: TraceRecord[]) {
  return records.filter((r): r is Extract<TraceRecord, { type: 'step-start' }> => r.type === 'step-start');
}

export function stepEnd(records: TraceRecord[], stepId: string) {
  return records.find((r): r is Extract<TraceRecord, { type: 'step-end' }> => r.type === 'step-end' && r.step_id === stepId);
}

export function stepByKey(records: TraceRecord[], key: string) {
  const start = stepStarts(records).find((s) => s.replay_key === key);
  if (!start) throw new Error(`no step ${key}`);
  return { start, end: stepEnd(records, start.step_id) };
}

/** The problems with one record against the native format's required fields (empty = valid). */
export function recordProblems(r: Record<string, unknown>): string[] {
  const p: string[] = [];
  const need = (field: string, type: string) => {
    if (typeof r[field] !== type) p.push(`${String(r.type)}.${field} should be ${type}`);
  };
  if (!RECORD_TYPES.includes(r.type as never)) return [`unknown type ${String(r.type)}`];
  need('run_id', 'string');
  need('ts', 'number');
  switch (r.type) {
    case 'run-start':
      need('v', 'string');
      need('pipeline', 'string');
      break;
    case 'step-start':
      need('step_id', 'string');
      need('index', 'number');
      need('name', 'string');
      need('replay_key', 'string');
      if (!STEP_TYPES.includes(r.step_type as never)) p.push(`bad step_type ${String(r.step_type)}`);
      if (r.parent_id !== null && typeof r.parent_id !== 'string') p.push('parent_id should be string|null');
      break;
    case 'step-end':
    case 'run-end':
      if (r.status !== 'ok' && r.status !== 'error') p.push(`bad status ${String(r.status)}`);
      if (r.status === 'error' && typeof (r.error as { message?: unknown })?.message !== 'string') p.push('error without message');
      break;
    case 'score':
      need('name', 'string');
      need('value', 'number');
      break;
    case 'verdict':
      need('pass', 'boolean');
      break;
  }
  return p;
}
