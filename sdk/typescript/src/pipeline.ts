/**
 * pipeline(): the root of a recorded run. It writes run-start, runs the
 * user's function in the run's own async context, and writes run-end with
 * the status and output. Under a replay plan (TRACEBACK_REPLAY_PLAN) the
 * first matching pipeline becomes a forked run.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { EntryCommand, Json, RunEndRecord, RunStartRecord } from './trace-format.js';
import { TRACE_FORMAT_VERSION } from './trace-format.js';
import { parseReplayPlan, REPLAY_PLAN_ENV, type ReplayPlan } from './replay-plan.js';
import { resolveRecording, type RecordingOptions } from './config.js';
import { traceErrorOf } from './execute-step.js';
import { ReplayController } from './replay-controller.js';
import { emitScore, RunState, traceContext } from './run-state.js';
import { TraceWriter, type RecordSink } from './trace-writer.js';

const NULL_SINK: RecordSink = { write() {}, flush() {}, close() {}, path: null };
import { SDK_NAME, SDK_VERSION } from './version.js';

export interface PipelineOptions extends RecordingOptions {
  /** Recorded as the run's input. */
  input?: unknown;
  /** How to re-run this pipeline (fork experiments spawn it); default: this process's command line and cwd. null: none. */
  entry?: EntryCommand | null;
  tags?: Record<string, string>;
  runId?: string;
  /**
   * A replay plan (object, or path to its JSON file) to run this pipeline as a fork.
   * Default: the file named by $TRACEBACK_REPLAY_PLAN, for the first matching pipeline in the process.
   * null: ignore the environment.
   */
  replayPlan?: ReplayPlan | string | null;
}

export interface VerdictOptions {
  detail?: string;
  expected?: unknown;
}

/** What the pipeline function receives: its run, to score and judge. */
export interface RunHandle {
  readonly runId: string | null;
  /** The active fork experiment's arm and trial, when this run is a forked run. */
  readonly fork: { experimentId: string; arm: 'treatment' | 'control'; trial: number } | null;
  score(name: string, value: number, explanation?: string): RunHandle;
  verdict(pass: boolean, opts?: VerdictOptions): RunHandle;
}

class LiveRunHandle implements RunHandle {
  constructor(private readonly run: RunState) {}
  get runId(): string {
    return this.run.runId;
  }
  get fork(): RunHandle['fork'] {
    const p = this.run.replay?.plan;
    return p ? { experimentId: p.experiment_id, arm: p.arm, trial: p.trial } : null;
  }
  score(name: string, value: number, explanation?: string): RunHandle {
    emitScore(this.run, undefined, name, value, explanation);
    return this;
  }
  verdict(pass: boolean, opts: VerdictOptions = {}): RunHandle {
    emitVerdict(this.run, pass, opts);
    return this;
  }
}

const NO_RUN: RunHandle = {
  runId: null,
  fork: null,
  score: () => NO_RUN,
  verdict: () => NO_RUN,
};

export function emitVerdict(run: RunState, pass: boolean, opts: VerdictOptions): void {
  const record: Record<string, unknown> & { type: 'verdict' } = { type: 'verdict', run_id: run.runId, pass: Boolean(pass), ts: Date.now() };
  if (opts.detail !== undefined) record.detail = run.rec.redactor.text(String(opts.detail));
  if (opts.expected !== undefined) record.expected = run.field(opts.expected);
  run.emit(record);
}

/** The run the calling code belongs to (a no-op handle outside any pipeline). */
export function currentRun(): RunHandle {
  const ctx = traceContext.getStore();
  return ctx ? new LiveRunHandle(ctx.run) : NO_RUN;
}

let envPlanTaken = false;

/** For tests: let the next pipeline read $TRACEBACK_REPLAY_PLAN again. */
export function resetEnvPlanForTests(): void {
  envPlanTaken = false;
}

function resolvePlan(name: string, given: PipelineOptions['replayPlan']): ReplayPlan | null {
  if (given === null) return null;
  if (given && typeof given === 'object') return given;
  const path = typeof given === 'string' ? given : process.env[REPLAY_PLAN_ENV];
  if (!path) return null;
  if (typeof given !== 'string' && envPlanTaken) return null;
  let plan: ReplayPlan;
  try {
    plan = parseReplayPlan(readFileSync(path, 'utf8'));
  } catch (err) {
    // A fork trial without its plan would silently record a plain run: fail loudly instead.
    throw new Error(`traceback: cannot use replay plan ${path}: ${(err as Error).message}`);
  }
  if (plan.pipeline && plan.pipeline !== name) return null;
  if (typeof given !== 'string') envPlanTaken = true;
  return plan;
}

export function defaultEntry(): EntryCommand {
  return { command: [process.execPath, ...process.execArgv, ...process.argv.slice(1)], cwd: process.cwd() };
}

/**
 * Run `fn` as a recorded pipeline run. Resolves to what `fn` returns;
 * rejects with exactly what it throws.
 */
export async function pipeline<T>(name: string, fn: (run: RunHandle) => T | Promise<T>, opts: PipelineOptions = {}): Promise<Awaited<T>> {
  const plan = resolvePlan(name, opts.replayPlan);
  const rec = resolveRecording({
    home: opts.home,
    inbox: plan?.inbox ?? opts.inbox,
    maxFieldBytes: opts.maxFieldBytes,
    redact: opts.redact,
    enabled: opts.enabled,
  });
  if (!rec.enabled) {
    // Steps inside still see a (disabled) run, so they run unrecorded without the "outside pipeline()" warning.
    const off = new RunState('', name, rec, NULL_SINK, null);
    return await traceContext.run({ run: off, step: null }, () => fn(NO_RUN));
  }

  const runId = opts.runId ?? plan?.run_id ?? randomUUID();
  const replay = plan ? new ReplayController(plan) : null;
  const run = new RunState(runId, name, rec, new TraceWriter(rec.inbox, runId), replay);

  const start: RunStartRecord = {
    type: 'run-start',
    v: TRACE_FORMAT_VERSION,
    run_id: runId,
    pipeline: name,
    ts: Date.now(),
    sdk: { name: SDK_NAME, version: SDK_VERSION, language: 'typescript' },
  };
  const input = run.field(opts.input);
  if (input !== undefined) start.input = input;
  const entry = opts.entry === undefined ? defaultEntry() : opts.entry;
  if (entry) start.entry = redactEntry(entry, run);
  const tags = { ...opts.tags, ...plan?.tags };
  if (plan) Object.assign(tags, { experiment: plan.experiment_id, arm: plan.arm, trial: String(plan.trial) });
  if (Object.keys(tags).length) start.tags = tags;
  if (replay) start.provenance = replay.provenance();
  run.emit(start);

  const handle = new LiveRunHandle(run);
  try {
    const output = await traceContext.run({ run, step: null }, () => fn(handle));
    endRun(run, { status: 'ok', output });
    return output;
  } catch (err) {
    endRun(run, { status: 'error', error: err });
    throw err;
  }
}

/** Same as pipeline(); the name some users look for. */
export const tracedRun = pipeline;

function redactEntry(entry: EntryCommand, run: RunState): EntryCommand {
  const r = run.rec.redactor;
  const out: EntryCommand = { command: entry.command.map((a) => r.text(String(a))) };
  if (entry.cwd) out.cwd = entry.cwd;
  if (entry.env) out.env = Object.fromEntries(Object.entries(entry.env).map(([k, v]) => [k, r.isSensitiveKey(k) ? '[REDACTED]' : r.text(v)]));
  return out;
}

function endRun(run: RunState, outcome: { status: 'ok'; output: unknown } | { status: 'error'; error: unknown }): void {
  try {
    run.replay?.finish();
    const end: RunEndRecord & { nondeterminism?: Json } = { type: 'run-end', run_id: run.runId, ts: Date.now(), status: outcome.status };
    if (outcome.status === 'ok') {
      const out = run.field(outcome.output);
      if (out !== undefined) end.output = out;
    } else end.error = traceErrorOf(outcome.error, run);
    if (Object.keys(run.rootLog).length) end.nondeterminism = run.rootLog as unknown as Json;
    // The run-start carried the provenance as it was known then; divergence is only known now.
    if (run.replay) end.provenance = run.replay.provenance();
    run.emit(end);
  } finally {
    run.ended = true;
    run.sink.close();
  }
}
