/**
 * ForeignRun → native records. Here live the rules every foreign format
 * shares: start order with parents first, replay keys, orphan spans under a
 * synthetic root (and no run-end, so the run shows as incomplete), duplicate
 * model calls, and error text from calls that left no step.
 */
import { syntheticParentId } from './synthetic-parent-id';
import { TRACE_FORMAT_VERSION, type Json, type TraceRecord } from '../../../../src-shared/trace-format';
import { findDuplicateLlmCalls } from './duplicate-llm-calls';
import type { ForeignIssue, ForeignRun, ForeignStep } from './foreign-run';
import { findUpstreamErrors } from './upstream-errors';

/** The same escaping the SDKs apply to a key segment, so keys compare across sources. */
export function keySegment(name: string): string {
  return /[%/#]/.test(name) ? name.replace(/[%/#]/g, (c) => encodeURIComponent(c)) : name;
}

// Math.min(...list) overflows the stack past ~100k arguments; traces get that big.
function minOf(values: number[]): number {
  return values.reduce((m, v) => (v < m ? v : m), Infinity);
}
function maxOf(values: number[]): number {
  return values.reduce((m, v) => (v > m ? v : m), -Infinity);
}

function syntheticRoot(id: string, missingId: string, children: ForeignStep[]): ForeignStep {
  const ends = children.map((c) => c.end).filter((e): e is number => e !== null);
  return {
    id,
    parentId: null,
    name: `(missing parent ${missingId})`,
    type: 'generic',
    start: minOf(children.map((c) => c.start)),
    end: ends.length ? maxOf(ends) : null,
    status: 'ok',
    startMetadata: { synthetic: true, missing_step_id: missingId },
    endMetadata: {},
    position: children[0].position,
  };
}

/** Depth of every step below its root, memoized and iterative (linear even for one long chain). Parents must not form cycles. */
function stepDepths(steps: ForeignStep[], byId: Map<string, ForeignStep>): Map<string, number> {
  const depths = new Map<string, number>();
  for (const s of steps) {
    if (depths.has(s.id)) continue;
    const chain: ForeignStep[] = [];
    let cur: ForeignStep | undefined = s;
    while (cur && !depths.has(cur.id)) {
      chain.push(cur);
      cur = cur.parentId === null ? undefined : byId.get(cur.parentId);
      if (chain.length > steps.length) break; // a cycle: breakCycles runs first, this is a guard
    }
    let d = cur ? depths.get(cur.id)! + 1 : 0;
    for (let i = chain.length - 1; i >= 0; i--) depths.set(chain[i].id, d++);
  }
  return depths;
}

/**
 * Parents that form a cycle (a names b, b names a) are cut: the step of each
 * cycle listed last in the file becomes a root, with a warning naming it.
 */
function breakCycles(run: ForeignRun, steps: ForeignStep[], issues: ForeignIssue[]): void {
  const byId = new Map(steps.map((s) => [s.id, s]));
  const state = new Map<string, 1 | 2>();
  for (const start of steps) {
    if (state.has(start.id)) continue;
    const path: ForeignStep[] = [];
    let cur: ForeignStep | undefined = start;
    while (cur && !state.has(cur.id)) {
      state.set(cur.id, 1);
      path.push(cur);
      cur = cur.parentId === null ? undefined : byId.get(cur.parentId);
    }
    if (cur && state.get(cur.id) === 1) {
      const cycle = path.slice(path.indexOf(cur));
      const cut = cycle[cycle.length - 1];
      issues.push({
        line: cut.position.line,
        level: 'warning',
        message: `run ${run.runId}: parents form a cycle of ${cycle.length} step(s) (${cycle.slice(0, 4).map((c) => c.id).join(' → ')}${cycle.length > 4 ? ' → …' : ''}); step ${cut.id} at ${cut.position.path} was made a root`,
      });
      cut.parentId = null;
    }
    for (const s of path) state.set(s.id, 2);
  }
}

/** Longest replay key built from parent keys; deeper steps get a key of their own id (keys of a 50,000-deep chain would be quadratic). */
export const MAX_KEY_CHARS = 1000;

/**
 * Start order: stable by start time, then parents before children. A child
 * whose clock put it before its parent waits for the parent.
 */
function orderSteps(steps: ForeignStep[]): ForeignStep[] {
  const byId = new Map(steps.map((s) => [s.id, s]));
  const depths = stepDepths(steps, byId);
  const sorted = steps
    .map((s, i) => ({ s, i }))
    .sort((a, b) => a.s.start - b.s.start || depths.get(a.s.id)! - depths.get(b.s.id)! || a.i - b.i)
    .map((x) => x.s);
  const emitted = new Set<string>();
  const waiting = new Map<string, ForeignStep[]>();
  const out: ForeignStep[] = [];
  // Iterative, depth-first (children right after their parent, in start order): a chain of 50,000 spans is no stack overflow.
  const emit = (first: ForeignStep) => {
    const stack = [first];
    while (stack.length) {
      const s = stack.pop()!;
      if (emitted.has(s.id)) continue;
      out.push(s);
      emitted.add(s.id);
      const children = waiting.get(s.id);
      waiting.delete(s.id);
      if (children) for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
    }
  };
  for (const s of sorted) {
    if (s.parentId === null || !byId.has(s.parentId) || emitted.has(s.parentId)) emit(s);
    else {
      const list = waiting.get(s.parentId);
      if (list) list.push(s);
      else waiting.set(s.parentId, [s]);
    }
  }
  // Only a parent cycle leaves steps waiting; keep them, in start order.
  for (const s of sorted) if (!emitted.has(s.id)) emit(s);
  return out;
}

/**
 * The whole-run decisions, made once every step of the run is known: start
 * order, replay keys, final parents (orphans adopted, cycles cut), synthetic
 * roots, duplicate calls, upstream errors, the root. Steps may be summaries
 * (no input or output): nothing here reads payloads except through them.
 */
export interface RunPlan {
  /** Every step in start order, synthetic roots included, with its final parent. */
  ordered: ForeignStep[];
  index: Map<string, number>;
  keys: Map<string, string>;
  duplicates: Map<string, string>;
  upstream: Map<string, string[]>;
  root: ForeignStep | undefined;
  /** The run gets a run-end. */
  complete: boolean;
}

export function planRun(run: ForeignRun, issues: ForeignIssue[]): RunPlan {
  // The first occurrence of a repeated id wins; later ones are reported.
  const unique: ForeignStep[] = [];
  const ids = new Set<string>();
  for (const step of run.steps) {
    if (ids.has(step.id)) {
      issues.push({ line: step.position.line, level: 'warning', message: `${step.position.path}: step id ${step.id} appears twice in run ${run.runId}; the later copy is skipped` });
      continue;
    }
    ids.add(step.id);
    unique.push(step);
  }

  const orphansByParent = new Map<string, ForeignStep[]>();
  for (const step of unique) {
    if (step.parentId === null || ids.has(step.parentId)) continue;
    const list = orphansByParent.get(step.parentId);
    if (list) list.push(step);
    else orphansByParent.set(step.parentId, [step]);
  }
  const synthetic: ForeignStep[] = [];
  const syntheticIds = new Map<string, string>();
  const assigned = new Set<string>();
  for (const [missing, children] of orphansByParent) {
    const id = syntheticParentId(missing, (candidate) => ids.has(candidate) || assigned.has(candidate));
    assigned.add(id);
    syntheticIds.set(missing, id);
    synthetic.push(syntheticRoot(id, missing, children));
    issues.push({
      line: children[0].position.line,
      level: 'warning',
      message: `run ${run.runId}: ${children.length} step(s) (first: "${children[0].name}" at ${children[0].position.path}) name parent ${missing}, which is not in the file; kept under a synthetic root and the run is marked incomplete`,
    });
  }

  breakCycles(run, unique, issues);
  const adopted = unique.map((s) => (s.parentId !== null && syntheticIds.has(s.parentId) ? { ...s, parentId: syntheticIds.get(s.parentId)! } : s));
  const ordered = orderSteps([...synthetic, ...adopted]);
  const index = new Map(ordered.map((s, i) => [s.id, i]));
  const keys = new Map<string, string>();
  const counts = new Map<string, Map<string, number>>();
  let shortenedKeys = 0;
  for (const step of ordered) {
    const parentKey = step.parentId !== null ? keys.get(step.parentId) : undefined;
    const scope = step.parentId ?? '';
    const perName = counts.get(scope) ?? new Map<string, number>();
    counts.set(scope, perName);
    const occurrence = perName.get(step.name) ?? 0;
    perName.set(step.name, occurrence + 1);
    const own = `${keySegment(step.name)}#${occurrence}`;
    let key = step.replayKey ?? (parentKey ? `${parentKey}/${own}` : own);
    if (key.length > MAX_KEY_CHARS) {
      key = `${keySegment(step.id)}/${own}`;
      shortenedKeys += 1;
    }
    keys.set(step.id, key);
  }
  if (shortenedKeys) {
    issues.push({ line: 1, level: 'warning', message: `run ${run.runId}: ${shortenedKeys} step(s) nested too deep for a path-like replay key got a key from their own id` });
  }

  const duplicates = findDuplicateLlmCalls(ordered);
  const upstream = new Map<string, string[]>();
  for (const u of findUpstreamErrors(ordered)) {
    const quotes = upstream.get(u.stepId);
    if (quotes) quotes.push(u.quote);
    else upstream.set(u.stepId, [u.quote]);
    const step = ordered[index.get(u.stepId)!];
    issues.push({
      line: step.position.line,
      level: 'warning',
      message: `run ${run.runId}: step "${step.name}" (${step.position.path}) received error text that no recorded step produced, so a failing call left no trace: "${u.quote}"`,
    });
  }

  const roots = ordered.filter((s) => s.parentId === null);
  const root = roots.find((s) => !s.startMetadata.synthetic) ?? roots[0];
  const complete = run.finished && orphansByParent.size === 0 && ordered.every((s) => s.end !== null);
  return { ordered, index, keys, duplicates, upstream, root, complete };
}

/** The run-start record; `rootInput` is the root step's input (absent when the root is only summarised so far). */
export function runStartRecord(run: ForeignRun, plan: RunPlan, rootInput: Json | undefined): TraceRecord {
  const record = {
    type: 'run-start' as const,
    v: TRACE_FORMAT_VERSION,
    run_id: run.runId,
    pipeline: run.pipeline,
    ts: minOf(plan.ordered.map((s) => s.start)),
    ...(run.input !== undefined ? { input: run.input } : rootInput !== undefined ? { input: rootInput } : {}),
    source_format: run.format,
    ...run.extra,
  };
  return record;
}

/** The step-start (and step-end, when it ended) of one step with its payloads; parent, order and key come from the plan. */
export function stepRecords(run: ForeignRun, plan: RunPlan, step: ForeignStep, out: TraceRecord[]): void {
  const at = plan.index.get(step.id)!;
  const startMetadata: Record<string, Json> = { ...step.startMetadata };
  const duplicateOf = plan.duplicates.get(step.id);
  if (duplicateOf !== undefined) startMetadata.duplicate_of = duplicateOf;
  const quotes = plan.upstream.get(step.id);
  if (quotes) startMetadata.upstream_error = quotes.length === 1 ? quotes[0] : quotes;
  out.push({
    type: 'step-start',
    run_id: run.runId,
    step_id: step.id,
    parent_id: plan.ordered[at].parentId,
    index: at,
    name: step.name,
    step_type: step.type,
    replay_key: plan.keys.get(step.id)!,
    ts: step.start,
    ...(step.input !== undefined ? { input: step.input } : {}),
    metadata: startMetadata,
  });
  if (step.end !== null) out.push(stepEndRecord(run.runId, step, step.end));
}

/** A foreign step's step-end record (the streaming OTLP import writes it too). */
export function stepEndRecord(runId: string, step: ForeignStep, end: number): TraceRecord {
  return {
    type: 'step-end',
    run_id: runId,
    step_id: step.id,
    ts: end,
    status: step.status,
    ...(step.output !== undefined ? { output: step.output } : {}),
    ...(step.error ? { error: step.error } : {}),
    ...(step.model ? { model: step.model } : {}),
    ...(step.usage && Object.keys(step.usage).length ? { usage: step.usage } : {}),
    ...(Object.keys(step.endMetadata).length ? { metadata: step.endMetadata } : {}),
  };
}

/** The run-end record, or null when the run is incomplete; `rootOutput` is the root step's output. */
export function runEndRecord(run: ForeignRun, plan: RunPlan, rootOutput: Json | undefined): TraceRecord | null {
  const root = plan.root;
  if (!plan.complete || !root) return null;
  return {
    type: 'run-end',
    run_id: run.runId,
    ts: maxOf(plan.ordered.map((s) => s.end!)),
    status: root.status,
    ...(run.output !== undefined ? { output: run.output } : rootOutput !== undefined ? { output: rootOutput } : {}),
    ...(root.error ? { error: root.error } : {}),
  };
}

/**
 * `lines`, when given, gets each record's line in the file: its step's, and 1 for the run's own records (their
 * input and output come from different steps in different formats).
 */
export function runRecords(run: ForeignRun, issues: ForeignIssue[], lines?: number[]): TraceRecord[] {
  const plan = planRun(run, issues);
  const records: TraceRecord[] = [runStartRecord(run, plan, plan.root?.input)];
  const start = lines?.length ?? 0;
  lines?.push(1);
  for (const step of plan.ordered) {
    stepRecords(run, plan, step, records);
    if (lines) while (lines.length - start < records.length) lines.push(step.position.line > 0 ? step.position.line : 1);
  }
  const end = runEndRecord(run, plan, plan.root?.output);
  if (end) {
    records.push(end);
    lines?.push(1);
  }
  return records;
}
