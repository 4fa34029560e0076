/**
 * pipeline(): the root of a recorded run. It writes run-start, runs the
 * user's function in the run's own async context, and writes run-end with
 * the status and output. Under a replay plan (TRACEBACK_REPLAY_PLAN) the
 * run the plan targets becomes a forked run, and the process records no other.
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
import { fingerprintJson } from './fingerprint.js';
import { toJson } from './json-safe.js';

const NULL_SINK: RecordSink = { write() {}, flush() {}, close() {}, path: null };
import { SDK_NAME, SDK_VERSION } from './version.js';

export interface PipelineOptions extends RecordingOptions {
  /** Recorded as the run's input. */
  input?: unknown;
  /** How to re-run this pipeline (fork experiments spawn it); default: this process's command line, cwd and interpreter path variables. null: none. */
  entry?: EntryCommand | null;
  /**
   * Environment variables a re-run needs (e.g. ['OPENAI_API_KEY']): recorded by name only, never
   * the value; a fork trial takes them from the environment of whoever runs the fork.
   */
  needsEnv?: string[];
  tags?: Record<string, string>;
  runId?: string;
  /**
   * A replay plan (object, or path to its JSON file) to run this pipeline as a fork.
   * Default: the file named by $TRACEBACK_REPLAY_PLAN, for the run the plan targets (its pipeline name,
   * position among this process's runs and input); every other run in a trial process runs unrecorded.
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
/** pipeline() calls per name in this process: a run's position, which a fork's plan targets. */
const runsStarted = new Map<string, number>();

/**
 * Variables that decide which code an interpreter loads: a trial without them would load other
 * modules (or none) than the recording did. Their values are paths, not secrets.
 */
const RUNTIME_ENV_NAMES = ['NODE_PATH', 'NODE_OPTIONS', 'PYTHONPATH', 'PYTHONHOME', 'VIRTUAL_ENV', 'CONDA_PREFIX'];
const REDACTED = '[REDACTED]';

/** For tests: let the next pipeline read $TRACEBACK_REPLAY_PLAN again, and count runs from 0. */
export function resetEnvPlanForTests(): void {
  envPlanTaken = false;
  runsStarted.clear();
}

function nextRunIndex(name: string): number {
  const i = runsStarted.get(name) ?? 0;
  runsStarted.set(name, i + 1);
  return i;
}

/** The plan this pipeline might follow, and whether it came from the environment. */
function readPlan(given: PipelineOptions['replayPlan']): { plan: ReplayPlan | null; fromEnv: boolean } {
  if (given === null) return { plan: null, fromEnv: false };
  if (given && typeof given === 'object') return { plan: given, fromEnv: false };
  const path = typeof given === 'string' ? given : process.env[REPLAY_PLAN_ENV];
  if (!path) return { plan: null, fromEnv: false };
  try {
    return { plan: parseReplayPlan(readFileSync(path, 'utf8')), fromEnv: typeof given !== 'string' };
  } catch (err) {
    // A fork trial without its plan would silently record a plain run: fail loudly instead.
    throw new Error(`traceback: cannot use replay plan ${path}: ${(err as Error).message}`);
  }
}

/**
 * Is this pipeline call the run the plan forks? Several runs in one process (an evaluation
 * loop) are told apart by their input, else by their recorded position: the first run whose input
 * matches the recording's, or the run at the recorded position (whose changed input the replay
 * then reports as a divergence). A plan without a target (an older Traceback) takes the first
 * run with the plan's pipeline name.
 */
function isTarget(plan: ReplayPlan, name: string, runIndex: number, inputFingerprint: string | undefined): boolean {
  if (plan.pipeline && plan.pipeline !== name) return false;
  const t = plan.target;
  if (!t || (t.run_index === undefined && t.input_fingerprint === undefined)) return true;
  if (inputFingerprint !== undefined && t.input_fingerprint === inputFingerprint) return true;
  return t.run_index === runIndex;
}

/**
 * The plan when this call is the forked run; 'suppress' for any other run of a trial process
 * (it runs, unrecorded, so a fork trial records nothing but the forked run); null otherwise.
 */
function claimPlan(read: { plan: ReplayPlan | null; fromEnv: boolean }, name: string, runIndex: number, inputFingerprint: string | undefined): ReplayPlan | 'suppress' | null {
  const { plan, fromEnv } = read;
  if (!plan) return null;
  if (!fromEnv) return !plan.pipeline || plan.pipeline === name ? plan : null;
  if (envPlanTaken || !isTarget(plan, name, runIndex, inputFingerprint)) return 'suppress';
  envPlanTaken = true;
  return plan;
}

/**
 * This process's command line, cwd and the environment a re-run needs. The interpreter's path
 * variables are recorded with their values; `needsEnv` names (API keys, …) by name only: a
 * fork trial takes them from the environment of whoever runs the fork.
 */
export function defaultEntry(needsEnv: readonly string[] = []): EntryCommand {
  const entry: EntryCommand = { command: [process.execPath, ...process.execArgv, ...process.argv.slice(1)], cwd: process.cwd() };
  const env: Record<string, string> = {};
  for (const k of RUNTIME_ENV_NAMES) {
    const v = process.env[k];
    if (v) env[k] = v;
  }
  for (const k of needsEnv) env[String(k)] = REDACTED;
  if (Object.keys(env).length) entry.env = env;
  return entry;
}

/**
 * Run `fn` as a recorded pipeline run. Resolves to what `fn` returns;
 * rejects with exactly what it throws.
 */
export async function pipeline<T>(name: string, fn: (run: RunHandle) => T | Promise<T>, opts: PipelineOptions = {}): Promise<Awaited<T>> {
  const runIndex = nextRunIndex(name);
  const candidate = readPlan(opts.replayPlan);
  const recordingOf = (inbox: string | undefined) =>
    resolveRecording({ home: opts.home, inbox, maxFieldBytes: opts.maxFieldBytes, redact: opts.redact, enabled: opts.enabled });
  let rec = recordingOf(candidate.plan?.inbox ?? opts.inbox);
  const inputFingerprint = rec.enabled && opts.input !== undefined ? fingerprintJson(toJson(opts.input, rec.redactor)) : undefined;
  const claimed = rec.enabled ? claimPlan(candidate, name, runIndex, inputFingerprint) : null;
  const plan = claimed === 'suppress' ? null : claimed;
  // The plan named another pipeline: this run records where it would without one.
  if (candidate.plan && !plan && claimed !== 'suppress') rec = recordingOf(opts.inbox);
  if (!rec.enabled || claimed === 'suppress') {
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
  const entry = opts.entry === undefined ? defaultEntry(opts.needsEnv) : opts.entry;
  if (entry) {
    start.entry = redactEntry(entry, run);
    start.entry.run_index = runIndex;
    if (inputFingerprint !== undefined) start.entry.input_fingerprint = inputFingerprint;
  }
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
    if (run.replay) end.provenance = run.replay.provenance(true);
    run.emit(end);
  } finally {
    run.ended = true;
    run.sink.close();
  }
}
