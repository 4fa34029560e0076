/**
 * executeStep: the one function every step passes through. Recording, replay
 * (return the recorded output instead of executing), fork edits, mocks for
 * side-effect steps and the refusal rules all live here, so the step wrappers
 * and the provider wrappers stay thin.
 *
 * Rules it keeps:
 * - the step index is taken when the step starts, so parents precede children;
 * - a sync step stays sync (its wrapper returns a value, not a promise);
 * - an error thrown by the step is recorded and re-thrown as the same object;
 * - a failure of the recording itself never changes what the user's code sees.
 */
import type { Json, StepEndRecord, StepStartRecord, StepType, TokenUsage, TraceError } from './trace-format.js';
import type { ReplayStepEntry } from './replay-plan.js';
import { ReplayedError, SideEffectRefusedError } from './errors.js';
import { fingerprintJson } from './fingerprint.js';
import { errorStatus, toJson } from './json-safe.js';
import { mockFor } from './mocks.js';
import type { ReplayDecision } from './replay-controller.js';
import { RunState, StepState, traceContext, type StepHandle } from './run-state.js';
import { guardedInvoke, type GuardOptions } from './guard.js';

/** What `extract` may pull out of a step's result. */
export interface Extracted {
  /** Recorded instead of the raw result (the raw result is still returned to the caller). */
  output?: unknown;
  usage?: TokenUsage;
  model?: string;
  metadata?: Record<string, unknown>;
}

/** How a step whose end comes later (a stream being consumed) reports that end. */
export type EndStep = (outcome: ({ ok: true } & Extracted) | { ok: false; error: unknown }) => void;

export interface StepOptions<R = unknown> extends GuardOptions {
  /** Recorded on step-start. `side_effect: true` marks a step that must not run live in a fork. */
  metadata?: Record<string, unknown>;
  /** Shorthand for metadata.side_effect = true. */
  sideEffect?: boolean;
  /** The model the step calls, known before it runs (checked against the recording in a fork). */
  model?: string;
  /** Pull usage / model / metadata / a smaller recorded output from the result. */
  extract?: (result: Awaited<R>, step: StepHandle) => Extracted | void;
  /**
   * Rebuild the value the caller receives from a recorded output (replay mode).
   * Without it, a replayed step returns the recorded JSON as is.
   */
  revive?: (recorded: Json | undefined, entry: ReplayStepEntry | undefined) => Awaited<R>;
  /** Whether the step returns a promise, for replay; guessed from the function when absent. */
  async?: boolean;
  /**
   * For results that finish later (streams): return the value to hand the
   * caller, and call `end` when the result is complete. The step ends then.
   */
  deferEnd?: (result: Awaited<R>, end: EndStep, step: StepHandle) => Awaited<R>;
}

export interface StepSpec<R> {
  name: string;
  type: StepType;
  /** Runs the step's code (in its own context). */
  invoke: () => R;
  /** Arguments as the caller passed them: a registered mock receives these. */
  args: unknown[];
  /** The value recorded as the step's input. */
  input: unknown;
  /** Best guess whether the step is async (an `async function`), for replays. */
  isAsync: boolean;
  opts?: StepOptions<R>;
}

let warnedOutside = false;

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return v !== null && (typeof v === 'object' || typeof v === 'function') && typeof (v as { then?: unknown }).then === 'function';
}

export function traceErrorOf(err: unknown, run: RunState): TraceError {
  if (err instanceof Error) {
    const e: TraceError = { type: err.name || err.constructor?.name || 'Error', message: run.rec.redactor.text(String(err.message ?? '')) };
    if (err.stack) e.stack = run.rec.redactor.text(err.stack);
    const status = errorStatus(err);
    if (status !== undefined) e.status = status;
    return e;
  }
  const e: TraceError = { type: err === null ? 'null' : typeof err, message: run.rec.redactor.text(safeString(err)) };
  const status = errorStatus(err);
  if (status !== undefined) e.status = status;
  return e;
}

function safeString(v: unknown): string {
  try {
    return typeof v === 'string' ? v : JSON.stringify(toJson(v, { text: (s) => s, isSensitiveKey: () => false })) ?? String(v);
  } catch {
    return '[unprintable]';
  }
}

export function executeStep<R>(spec: StepSpec<R>): R {
  const ctx = traceContext.getStore();
  if (!ctx || !ctx.run.rec.enabled) {
    if (!ctx && !warnedOutside) {
      warnedOutside = true;
      process.stderr.write(`traceback: step "${spec.name}" ran outside pipeline(); steps outside a pipeline are not recorded\n`);
    }
    return spec.invoke();
  }
  const run = ctx.run;
  const opts = spec.opts ?? {};
  const step = new StepState(run, ctx.step, spec.name, spec.type);
  const inputJson = toJson(spec.input, run.rec.redactor);
  const fingerprint = fingerprintJson(inputJson);

  let metadata: Record<string, Json> | undefined;
  if (opts.metadata) {
    const m = toJson(opts.metadata, run.rec.redactor);
    if (m && typeof m === 'object' && !Array.isArray(m)) metadata = m;
  }
  if (opts.sideEffect) metadata = { ...metadata, side_effect: true };
  const sideEffect = metadata?.side_effect === true;

  const replay = run.replay;
  let decision: ReplayDecision = { kind: 'live' };
  if (replay) {
    decision = replay.decide(step.replayKey, fingerprint);
    if (decision.kind === 'override') metadata = { ...metadata, fork_point: true, fork_edit: 'output' };
    else if (decision.forkPoint) metadata = { ...metadata, fork_point: true, fork_edit: replay.plan.edit.kind };
  }

  const start: StepStartRecord & { input_fingerprint: string } = {
    type: 'step-start',
    run_id: run.runId,
    step_id: step.stepId,
    parent_id: ctx.step ? ctx.step.stepId : null,
    index: step.index,
    name: spec.name,
    step_type: spec.type,
    replay_key: step.replayKey,
    ts: Date.now(),
    input_fingerprint: fingerprint,
  };
  const recordedInput = run.capped(inputJson, spec.input);
  if (recordedInput !== undefined) start.input = recordedInput;
  if (metadata) start.metadata = metadata;
  run.emit(start);

  if (decision.kind === 'replay' || decision.kind === 'override') {
    return replayOutcome(spec, step, decision);
  }

  // Live from here on.
  let invoke = spec.invoke;
  if (replay) {
    const recordedSideEffect = replay.entry(step.replayKey)?.metadata?.side_effect === true;
    if ((sideEffect || recordedSideEffect) && replay.plan.side_effects === 'require-mock') {
      const mock = mockFor(step.replayKey) ?? mockFor(spec.name);
      if (mock) {
        step.setMetadata({ mocked: true });
        invoke = () => mock(...spec.args) as R;
      } else {
        replay.note(`side-effect step ${step.replayKey} was refused: no mock registered`, true);
        const err = new SideEffectRefusedError(spec.name, step.replayKey);
        endStep(step, { ok: false, error: err });
        if (opts.async ?? spec.isAsync) return Promise.reject(err) as R;
        throw err;
      }
    }
    if (decision.kind === 'live' && decision.instructions !== undefined) {
      step.instructionsOverride = decision.instructions;
      step.setMetadata({ instructions_override: decision.instructions });
    }
  }
  step.live = true;
  if (opts.model !== undefined) {
    try {
      step.setModel(opts.model);
    } catch (err) {
      endStep(step, { ok: false, error: err });
      if (opts.async ?? spec.isAsync) return Promise.reject(err) as R;
      throw err;
    }
  }

  // Known failure motifs checked before the code runs (guard.ts, docs/motifs.md §5).
  if (opts.guard) invoke = guardedInvoke(invoke, spec, opts);
  let result: R;
  try {
    result = traceContext.run({ run, step }, invoke);
  } catch (err) {
    endStep(step, { ok: false, error: err });
    throw err;
  }
  if (isThenable(result)) {
    step.returnedPromise = true;
    return Promise.resolve(result).then(
      (value) => finishOk(step, value as Awaited<R>, opts),
      (err: unknown) => {
        endStep(step, { ok: false, error: err });
        throw err;
      },
    ) as R;
  }
  return finishOk(step, result as Awaited<R>, opts) as R;
}

function finishOk<R>(step: StepState, value: Awaited<R>, opts: StepOptions<R>): Awaited<R> {
  if (opts.deferEnd) {
    try {
      let ended = false;
      return opts.deferEnd(value, (outcome) => {
        if (ended) return;
        ended = true;
        endStep(step, outcome);
      }, step);
    } catch (err) {
      // A broken deferEnd is the SDK's (or a wrapper's) fault: record the value as is.
      endStep(step, { ok: true, output: value });
      return value;
    }
  }
  let extracted: Extracted | void = undefined;
  if (opts.extract) {
    try {
      extracted = opts.extract(value, step);
    } catch {
      extracted = undefined;
    }
  }
  endStep(step, { ok: true, output: value, ...(extracted ?? {}) });
  return value;
}

/** Writes the step-end record; never throws. */
export function endStep(step: StepState, outcome: ({ ok: true } & Extracted) | { ok: false; error: unknown }, replayed = false): void {
  const run = step.run;
  try {
    step.live = false;
    if (outcome.ok) {
      if (outcome.usage) step.setUsage(outcome.usage);
      if (outcome.model) step.model = outcome.model;
      if (outcome.metadata) step.setMetadata(outcome.metadata);
    }
    if (step.log) step.metadata = { ...step.metadata, nondeterminism: step.log as unknown as Json };
    const end: StepEndRecord & { async?: boolean } = {
      type: 'step-end',
      run_id: run.runId,
      step_id: step.stepId,
      ts: Date.now(),
      status: outcome.ok ? 'ok' : 'error',
    };
    if (outcome.ok) {
      const out = run.field(outcome.output);
      if (out !== undefined) end.output = out;
    } else end.error = traceErrorOf(outcome.error, run);
    if (step.model !== undefined) end.model = step.model;
    if (step.usage) end.usage = step.usage;
    if (step.metadata) end.metadata = step.metadata;
    if (replayed) end.replayed = true;
    if (step.returnedPromise) end.async = true;
    run.emit(end);
  } catch {
    // Recording must not break the pipeline; the step simply has no end record.
  }
}

function replayOutcome<R>(spec: StepSpec<R>, step: StepState, decision: Extract<ReplayDecision, { kind: 'replay' | 'override' }>): R {
  const opts = spec.opts ?? {};
  const entry = decision.entry;
  const isAsync = opts.async ?? entry?.async ?? spec.isAsync;
  step.returnedPromise = isAsync;
  if (entry?.model !== undefined) step.model = entry.model;
  if (entry?.usage) step.setUsage(entry.usage);
  if (decision.kind === 'replay' && entry && entry.status === 'error') {
    const err = new ReplayedError(entry.error ?? { type: 'Error', message: 'error recorded without details' });
    endStep(step, { ok: false, error: err }, true);
    emitReplayedDescendants(step);
    if (isAsync) return Promise.reject(err) as R;
    throw err;
  }
  const recorded = decision.kind === 'override' ? decision.output : entry?.output;
  let value: Awaited<R>;
  try {
    value = opts.revive ? opts.revive(recorded, entry) : (recorded as Awaited<R>);
  } catch {
    value = recorded as Awaited<R>;
  }
  endStep(step, { ok: true, output: recorded }, true);
  if (decision.kind === 'replay') emitReplayedDescendants(step);
  return (isAsync ? Promise.resolve(value) : value) as R;
}

/**
 * A replayed step's recorded children did not run, but the forked run should
 * still show them: they are written as replayed steps under the new parent.
 */
function emitReplayedDescendants(parent: StepState): void {
  const replay = parent.run.replay;
  if (!replay) return;
  const prefix = parent.replayKey + '/';
  const children = Object.entries(replay.plan.steps)
    .filter(([key]) => key.startsWith(prefix))
    .sort((a, b) => a[1].index - b[1].index);
  if (!children.length) return;
  const run = parent.run;
  const byKey = new Map<string, StepState>([[parent.replayKey, parent]]);
  for (const [key, entry] of children) {
    const parentKey = key.slice(0, key.lastIndexOf('/'));
    const p = byKey.get(parentKey);
    if (!p) continue;
    const child = new StepState(run, p, entry.name, entry.step_type);
    // The occurrence counter produced the same key in the recording, unless names were escaped differently.
    byKey.set(key, child);
    if (child.replayKey !== key) continue;
    const start: StepStartRecord = {
      type: 'step-start',
      run_id: run.runId,
      step_id: child.stepId,
      parent_id: p.stepId,
      index: child.index,
      name: entry.name,
      step_type: entry.step_type,
      replay_key: key,
      ts: Date.now(),
    };
    if (entry.metadata) start.metadata = entry.metadata;
    run.emit(start);
    if (entry.model !== undefined) child.model = entry.model;
    if (entry.usage) child.usage = entry.usage;
    endStep(child, entry.status === 'error' ? { ok: false, error: new ReplayedError(entry.error ?? { type: 'Error', message: '' }) } : { ok: true, output: entry.output }, true);
  }
}
