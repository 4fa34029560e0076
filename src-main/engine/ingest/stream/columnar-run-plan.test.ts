/**
 * The columnar plan decides what planRun decides: on random traces with
 * orphans, parent cycles, repeated ids, recorded and over-long replay keys,
 * duplicate model calls and error text, it produces the records and problems
 * that planRun with run-records.ts's record builders produce.
 */
import { describe, expect, it } from 'vitest';
import type { Json, TraceRecord } from '../../../../src-shared/trace-format';
import type { ForeignIssue, ForeignRun, ForeignStep } from '../foreign/foreign-run';
import { planRun, runEndRecord, runStartRecord, stepRecords, type RunPlan } from '../foreign/run-records';
import { TraceColumns } from './columnar-run-plan';
import { SpanRows } from './span-rows';
import { StringTable } from '../../text/string-table';
import { mulberry32 } from '../../../demo/seeded-random';

/** A small deterministic generator, so a failing seed can be replayed. */
const random = mulberry32;

function path(k: number): string {
  return `resourceSpans[0].scopeSpans[0].spans[${k}]`;
}

/** Spans as the OTLP mapping gives them, in file order: parents name span ids; some steps carry ids of their own (a Traceback export). */
function randomTrace(seed: number): { steps: ForeignStep[]; spanIds: string[] } {
  const r = random(seed);
  const pick = <T>(list: T[]) => list[Math.floor(r() * list.length)];
  const n = 5 + Math.floor(r() * 120);
  const deep = r() < 0.2;
  // Span ids as OTLP writes them (16 hex digits), in a few traces as other text.
  const textIds = r() < 0.15;
  const ids = Array.from({ length: n }, (_, i) => (textIds ? `s${i}` : (i + 1).toString(16).padStart(16, '0')));
  const steps: ForeignStep[] = [];
  const ownIds = r() < 0.2;
  for (let i = 0; i < n; i++) {
    const roll = r();
    let parentId: string | null = null;
    if (deep && i > 0) parentId = ids[i - 1];
    else if (roll < 0.05) parentId = pick(['gone', 'ffff00000000000']) + Math.floor(r() * 3);
    else if (roll < 0.85 && i > 0) parentId = pick(ids);
    const llm = r() < 0.4;
    const start = 1000 + Math.floor(r() * 50);
    const ended = r() < 0.95;
    const failed = r() < 0.1;
    const text = pick(['hello', 'the same answer', '', 'x'.repeat(100), 'ValueError: the index is out of range', 'HTTP 503 Service Unavailable']);
    const input: Json | undefined = r() < 0.8 ? { messages: [{ role: 'user', content: pick(['q1', 'q2', 'a long question '.repeat(8)]) }] } : undefined;
    const output: Json | undefined = r() < 0.7 ? { content: text } : undefined;
    const step: ForeignStep = {
      id: r() < 0.05 && i > 0 ? pick(ids.slice(0, i)) : ownIds && r() < 0.5 ? `own-${i}` : ids[i],
      parentId,
      name: deep ? `a/very#long%name-${i % 3}` : pick(['agent', 'llm', 'tool', 'retrieve', 'a#b']),
      type: llm ? 'llm' : pick(['tool', 'generic', 'retrieval', 'agent']),
      start,
      end: ended ? start + Math.floor(r() * 8) : null,
      status: failed ? 'error' : 'ok',
      ...(input !== undefined ? { input } : {}),
      ...(output !== undefined ? { output } : {}),
      ...(failed ? { error: { type: 'Error', message: pick(['ValueError: the index is out of range\nat line 3', 'short', 'the server answered 500']) } } : {}),
      ...(llm && r() < 0.5 ? { usage: { input_tokens: pick([10, 20]), output_tokens: pick([5, 6]) } } : {}),
      startMetadata: { attributes: { i } },
      endMetadata: r() < 0.2 ? { finish_reason: 'stop' } : {},
      ...(r() < 0.05 ? { replayKey: pick(['recorded/key#0', '', 'k'.repeat(1200)]) } : {}),
      position: { line: i + 1, path: path(i) },
    };
    steps.push(step);
  }
  return { steps, spanIds: ids };
}

function clone(steps: ForeignStep[]): ForeignStep[] {
  return steps.map((s) => ({ ...s, startMetadata: { ...s.startMetadata }, position: { ...s.position } }));
}

function newRun(steps: ForeignStep[]): ForeignRun {
  return { runId: 'run-1', pipeline: 'p', format: 'otlp', steps, extra: { otel_trace_id: 't' }, finished: true };
}

/** What the import stored before the columns: planRun on whole steps, records by run-records.ts. */
function reference(steps: ForeignStep[], spanIds: string[]): { records: TraceRecord[]; issues: ForeignIssue[] } {
  const issues: ForeignIssue[] = [];
  // As otlp-import.ts's traceRun: parents name step ids.
  const spanToStep = new Map<string, string>();
  steps.forEach((s, i) => spanToStep.set(spanIds[i], s.id));
  const run = newRun(clone(steps).map((s) => ({ ...s, parentId: s.parentId === null ? null : (spanToStep.get(s.parentId) ?? s.parentId) })));
  const plan: RunPlan = planRun(run, issues);
  const records: TraceRecord[] = [runStartRecord(run, plan, plan.root?.input)];
  for (const s of plan.ordered) stepRecords(run, plan, s, records);
  const end = runEndRecord(run, plan, plan.root?.output);
  if (end) records.push(end);
  return { records, issues };
}

/**
 * The streaming import's way: columns from a first pass, records from a second pass over the same spans. With
 * `shared`, the trace's rows sit among another trace's in one SpanRows (a file of many traces), one span of each
 * in turn.
 */
function columnar(steps: ForeignStep[], spanIds: string[], shared = false): { records: TraceRecord[]; issues: ForeignIssue[] } {
  const issues: ForeignIssue[] = [];
  const names = new StringTable();
  const rows = new SpanRows();
  const columns = new TraceColumns({}, names, undefined, shared ? rows : undefined);
  const other = new TraceColumns({}, names, undefined, rows);
  const otherSteps = randomTrace(9999).steps;
  clone(steps).forEach((s, k) => {
    if (shared && k < otherSteps.length) other.add(clone([otherSteps[k]])[0], otherSteps[k].id, [1, 0, k], false);
    columns.add(s, spanIds[k], [0, 0, k], false);
  });
  const plan = columns.plan(newRun([]), issues);
  const records: TraceRecord[] = [];
  for (const s of clone(steps)) plan.nextSpan(s, records);
  expect(plan.finished).toBe(true);
  const end = plan.runEnd();
  if (end) records.push(end);
  // Asked again, the run-end is not made twice.
  expect(plan.runEnd()).toBeNull();
  return { records, issues };
}

/** Step records by id and type (the passes write them in different orders); the run-start written last wins, as upserts merge it. */
function byStep(records: TraceRecord[]): Map<string, TraceRecord> {
  const out = new Map<string, TraceRecord>();
  for (const r of records) out.set('step_id' in r ? `${r.step_id} ${r.type}` : r.type, r);
  return out;
}

describe('the columnar plan of a trace', () => {
  it('stores the records and reports the problems planRun does, on 300 random traces', () => {
    let orphans = 0;
    let cycles = 0;
    let duplicates = 0;
    let shortened = 0;
    let upstream = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const { steps, spanIds } = randomTrace(seed);
      const want = reference(steps, spanIds);
      const got = columnar(steps, spanIds);
      expect(got.issues, `seed ${seed}`).toEqual(want.issues);
      expect(byStep(got.records), `seed ${seed}`).toEqual(byStep(want.records));
      // Among another trace's rows, the same records and problems.
      const among = columnar(steps, spanIds, true);
      expect(among.issues, `seed ${seed}, shared rows`).toEqual(want.issues);
      expect(byStep(among.records), `seed ${seed}, shared rows`).toEqual(byStep(want.records));
      const text = want.issues.map((i) => i.message).join('\n');
      if (text.includes('synthetic root')) orphans += 1;
      if (text.includes('form a cycle')) cycles += 1;
      if (text.includes('nested too deep')) shortened += 1;
      if (text.includes('received error text')) upstream += 1;
      if (want.records.some((r) => r.type === 'step-start' && r.metadata?.duplicate_of !== undefined)) duplicates += 1;
    }
    // The generator reaches every rule, so the comparison above covers them.
    expect(Math.min(orphans, cycles, duplicates, shortened, upstream)).toBeGreaterThan(0);
  });

  it('lets go of what its spans read after the last one, keeping only its run-end (a file can hold 100,000s of traces)', () => {
    const { steps, spanIds } = randomTrace(7);
    const columns = new TraceColumns({}, new StringTable());
    clone(steps).forEach((s, k) => columns.add(s, spanIds[k], [0, 0, k], false));
    const plan = columns.plan(newRun([]), []);
    const records: TraceRecord[] = [];
    for (const s of clone(steps)) plan.nextSpan(s, records);
    expect(plan.finished).toBe(true);
    expect(records[0].type).toBe('run-start');
    expect(() => plan.nextSpan(clone(steps)[0], records)).toThrow(/a span after the last one/);
    expect(plan.runEnd()?.type).toBe('run-end');
    expect(plan.runEnd()).toBeNull();
  });
});
