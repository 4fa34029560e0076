/**
 * The live state of one recorded run and of each step in it. A run's state
 * travels through AsyncLocalStorage, so two pipelines running concurrently in
 * one process never see each other's steps.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Json, StepType, TokenUsage, TraceRecord } from './trace-format.js';
import type { NondeterminismLog } from './replay-plan.js';
import type { ResolvedRecording } from './config.js';
import { ModelChangeRefusedError } from './errors.js';
import { capField, toJson } from './json-safe.js';
import type { ReplayController } from './replay-controller.js';
import type { RecordSink } from './trace-writer.js';

/** What a step's code can do to its own record (see `currentStep()`). */
export interface StepHandle {
  readonly stepId: string | null;
  readonly name: string;
  readonly replayKey: string | null;
  /** Merge token usage into this step's record. */
  setUsage(usage: TokenUsage): StepHandle;
  /** The model this step calls; in a forked run a model other than the recorded one is refused. */
  setModel(model: string): StepHandle;
  /** Merge metadata (e.g. `{ samples: 5, expected_type: 'number', side_effect: true }`). */
  setMetadata(metadata: Record<string, unknown>): StepHandle;
  /** A user score for this step, 0 (bad) to 1 (good) by convention. */
  score(name: string, value: number, explanation?: string): StepHandle;
  /**
   * The instructions this step should use: `defaultText`, unless a fork
   * experiment is testing new instructions for this step (or for an
   * enclosing step, e.g. the agent whose model call this is).
   */
  instructions(defaultText: string): string;
}

export class RunState {
  readonly runId: string;
  readonly pipeline: string;
  readonly rec: ResolvedRecording;
  readonly sink: RecordSink;
  readonly replay: ReplayController | null;
  readonly rootCounts = new Map<string, number>();
  readonly rootLog: NondeterminismLog = {};
  private nextIndex = 0;
  ended = false;

  constructor(runId: string, pipeline: string, rec: ResolvedRecording, sink: RecordSink, replay: ReplayController | null) {
    this.runId = runId;
    this.pipeline = pipeline;
    this.rec = rec;
    this.sink = sink;
    this.replay = replay;
  }

  allocateIndex(): number {
    return this.nextIndex++;
  }

  emit(record: TraceRecord | (Record<string, unknown> & { type: string })): void {
    this.sink.write(record);
  }

  /** Converted, redacted and capped, ready for a record. */
  field(value: unknown): Json | undefined {
    return this.capped(toJson(value, this.rec.redactor), value);
  }

  /** `json` (already converted from `original`) capped to the field limit. */
  capped(json: Json | undefined, original: unknown): Json | undefined {
    return capField(json, original, this.rec.redactor, this.rec.maxFieldBytes);
  }
}

/** Keys are "name#n"; a "/" or "#" inside a name would make them ambiguous, so those are escaped. */
function keySegment(name: string): string {
  return /[%/#]/.test(name) ? name.replace(/[%/#]/g, (c) => encodeURIComponent(c)) : name;
}

export class StepState implements StepHandle {
  readonly run: RunState;
  readonly parent: StepState | null;
  readonly stepId: string;
  readonly index: number;
  readonly name: string;
  readonly type: StepType;
  readonly replayKey: string;
  readonly childCounts = new Map<string, number>();
  usage: TokenUsage | undefined;
  model: string | undefined;
  metadata: Record<string, Json> | undefined;
  instructionsOverride: string | undefined;
  log: NondeterminismLog | undefined;
  /** The step returned a promise (written as `async: true` so a replay returns one too). */
  returnedPromise = false;
  /** True while the step's own code executes (replayed steps never run code). */
  live = false;

  constructor(run: RunState, parent: StepState | null, name: string, type: StepType) {
    this.run = run;
    this.parent = parent;
    this.name = name;
    this.type = type;
    this.index = run.allocateIndex();
    this.stepId = `s${this.index}`;
    const counts = parent ? parent.childCounts : run.rootCounts;
    const occurrence = counts.get(name) ?? 0;
    counts.set(name, occurrence + 1);
    const own = `${keySegment(name)}#${occurrence}`;
    this.replayKey = parent ? `${parent.replayKey}/${own}` : own;
  }

  setUsage(usage: TokenUsage): StepHandle {
    const next: TokenUsage = { ...this.usage };
    for (const k of ['input_tokens', 'output_tokens', 'total_tokens', 'cost_usd'] as const) {
      const v = usage?.[k];
      if (typeof v === 'number' && Number.isFinite(v)) next[k] = v;
    }
    this.usage = next;
    return this;
  }

  setModel(model: string): StepHandle {
    const replay = this.run.replay;
    if (replay && this.live && !replay.plan.allow_model_change) {
      const recorded = replay.recordedModel(this.replayKey);
      if (recorded !== undefined && recorded !== model) {
        replay.note(`step ${this.replayKey} asked for model ${model} but was recorded with ${recorded}`, true);
        throw new ModelChangeRefusedError(this.replayKey, recorded, model);
      }
    }
    this.model = model;
    return this;
  }

  setMetadata(metadata: Record<string, unknown>): StepHandle {
    const json = toJson(metadata, this.run.rec.redactor);
    if (json && typeof json === 'object' && !Array.isArray(json)) this.metadata = { ...this.metadata, ...json };
    return this;
  }

  score(name: string, value: number, explanation?: string): StepHandle {
    emitScore(this.run, this.stepId, name, value, explanation);
    return this;
  }

  instructions(defaultText: string): string {
    this.run.replay?.instructionsRead(this.replayKey);
    // An agent step forked with new instructions passes them to the model calls inside it.
    // Walks this step and its ancestors: `s` starts at this one.
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    for (let s: StepState | null = this; s; s = s.parent) if (s.instructionsOverride !== undefined) return s.instructionsOverride;
    return defaultText;
  }
}

export function emitScore(run: RunState, stepId: string | undefined, name: string, value: number, explanation?: string): void {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    process.emitWarning(`traceback: score "${name}" ignored: value must be a finite number`);
    return;
  }
  const record: Record<string, unknown> & { type: 'score' } = { type: 'score', run_id: run.runId, name: String(name), value, ts: Date.now() };
  if (stepId) record.step_id = stepId;
  if (explanation !== undefined) record.explanation = run.rec.redactor.text(String(explanation));
  run.emit(record);
}

/** Handed out by currentStep() outside any step: every call is a harmless no-op. */
export const NO_STEP: StepHandle = {
  stepId: null,
  name: '',
  replayKey: null,
  setUsage: () => NO_STEP,
  setModel: () => NO_STEP,
  setMetadata: () => NO_STEP,
  score: () => NO_STEP,
  instructions: (defaultText: string) => defaultText,
};

export interface TraceContext {
  run: RunState;
  step: StepState | null;
}

export const traceContext = new AsyncLocalStorage<TraceContext>();
