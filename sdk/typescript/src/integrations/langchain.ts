/**
 * TracebackCallbackHandler: records LangChain / LangGraph runs as native
 * Traceback runs. Pass it as a callback (`{ callbacks: [handler] }`).
 *
 * - Inside an SDK `pipeline()`, every LangChain run becomes a step under the
 *   SDK step that made the call, in the pipeline's own run.
 * - Outside one, the outermost LangChain run becomes a run of its own
 *   (run-start … run-end, run id = LangChain's run id); its children are the
 *   run's steps. A root chain is the run itself; a root model, tool or
 *   retriever call is the run and its single step.
 *
 * Steps: chain → `generic` (`prompt` for prompt templates, `agent` for a
 * LangGraph node), chat model / LLM → `llm`, tool → `tool`, retriever →
 * `retrieval`. Runs LangChain marks hidden (`langsmith:hidden`: LangGraph's
 * channel writes and `__start__`) are left out; their children attach to the
 * nearest recorded ancestor.
 *
 * This module imports @langchain/core; the SDK's index does not import this
 * module, so users without LangChain never need the package.
 */
import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import type { Serialized } from '@langchain/core/load/serializable';
import type { EntryCommand, Json, RunEndRecord, RunStartRecord, StepStartRecord, StepType } from '../trace-format.js';
import { TRACE_FORMAT_VERSION } from '../trace-format.js';
import { resolveRecording, type RecordingOptions } from '../config.js';
import { endStep, traceErrorOf, type Extracted } from '../execute-step.js';
import { fingerprintJson } from '../fingerprint.js';
import { toJson } from '../json-safe.js';
import type { VerdictOptions } from '../pipeline.js';
import { RunState, StepState, traceContext } from '../run-state.js';
import { TraceWriter } from '../trace-writer.js';
import { SDK_NAME, SDK_VERSION } from '../version.js';
import { chatMessage, documentJson, llmFacts, requestedModel, simplify, toolInput, toolResult, unwrapSingle } from './langchain-values.js';

export interface TracebackCallbackHandlerOptions extends RecordingOptions {
  /** Pipeline name of the runs this handler starts (default: the outermost LangChain run's name). */
  pipeline?: string;
  /** Tags on the runs this handler starts (`integration: "langchain"` is always added unless given). */
  tags?: Record<string, string>;
  /** How to re-run the program for fork experiments; default none (see docs/sdk.md). */
  entry?: EntryCommand | null;
  /** Also record runs LangChain marks hidden (LangGraph's channel writes, `__start__`). Default false. */
  includeHidden?: boolean;
}

type Kind = 'chain' | 'llm' | 'tool' | 'retriever';

interface Tracked {
  /** Where this LangChain run's records go; null when recording is off for it. */
  run: RunState | null;
  /** The step this LangChain run is, when it is one. */
  step: StepState | null;
  /** The parent step for this run's children. */
  anchor: StepState | null;
  /** This LangChain run is the root of a run the handler started. */
  ownsRun: boolean;
  kind: Kind;
  /** The model asked for at start (llm runs). */
  model?: string;
  /** A streamed chain starts before its input is known; the input arrives with its end. */
  inputPending?: boolean;
}

const HIDDEN_TAG = 'langsmith:hidden';

function nameOf(serialized: Serialized | undefined, runName: string | undefined, fallback: string): string {
  if (runName) return runName;
  const s = serialized as { name?: unknown; id?: unknown } | undefined;
  if (typeof s?.name === 'string' && s.name) return s.name;
  if (Array.isArray(s?.id) && s.id.length) return String(s.id[s.id.length - 1]);
  return fallback;
}

function isGraphNode(name: string, tags: string[] | undefined, metadata: Record<string, unknown> | undefined): boolean {
  return metadata?.langgraph_node === name && (tags ?? []).some((t) => t.startsWith('graph:step:'));
}

export class TracebackCallbackHandler extends BaseCallbackHandler {
  override name = 'traceback_callback_handler';
  private readonly options: TracebackCallbackHandlerOptions;
  private readonly tracked = new Map<string, Tracked>();
  /** Runs this handler started, by run id, kept for a verdict given after the run ended. */
  private readonly ownRuns = new Map<string, RunState>();
  private lastRun: RunState | null = null;

  constructor(options: TracebackCallbackHandlerOptions = {}) {
    // Awaited handlers run in the caller's async context (where the SDK's current step is
    // known) and write every record before invoke() resolves.
    super({ _awaitHandler: true });
    this.options = options;
  }

  /** All state is keyed by LangChain run id, so a copy would only lose track of parents: share this one. */
  override copy(): this {
    return this;
  }

  /** The id of the Traceback run this handler recorded into most recently (null before any). */
  get lastRunId(): string | null {
    return this.lastRun?.runId ?? null;
  }

  /**
   * The oracle's pass/fail for a run this handler recorded (default: the most
   * recent one), also after the run ended. Inside an SDK pipeline this is the
   * pipeline's run, the same as the SDK's `verdict()`.
   */
  verdict(pass: boolean, opts: VerdictOptions & { runId?: string } = {}): void {
    const run = opts.runId !== undefined ? (this.ownRuns.get(opts.runId) ?? null) : this.lastRun;
    if (!run || !run.rec.enabled) return;
    try {
      const record: Record<string, unknown> & { type: 'verdict' } = { type: 'verdict', run_id: run.runId, pass: Boolean(pass), ts: Date.now() };
      if (opts.detail !== undefined) record.detail = run.rec.redactor.text(String(opts.detail));
      if (opts.expected !== undefined) record.expected = run.field(opts.expected);
      if (!run.ended) {
        run.emit(record);
        return;
      }
      // The run's file is closed once its run-end is written; a verdict given later is appended.
      const late = new TraceWriter(run.rec.inbox, run.runId);
      late.write(record);
      late.close();
    } catch {
      // Recording never breaks the caller.
    }
  }

  // ---------------------------------------------------------------- chains

  // LangChain's callback manager passes (chain, inputs, runId, parentRunId, tags, metadata, runType, runName),
  // whatever the declared parameter names say (its own tracers read them in this order too).
  override handleChainStart(
    chain: Serialized,
    inputs: Record<string, unknown>,
    runId: string,
    parentRunId?: string,
    tags?: string[],
    metadata?: Record<string, unknown>,
    runType?: string,
    runName?: string,
  ): void {
    this.guard(() => {
      const name = nameOf(chain, runName, 'chain');
      const parent = parentRunId ? this.tracked.get(parentRunId) : undefined;
      if (parent && !this.options.includeHidden && tags?.includes(HIDDEN_TAG)) {
        this.tracked.set(runId, { run: parent.run, step: null, anchor: parent.anchor, ownsRun: false, kind: 'chain' });
        return;
      }
      const type: StepType = runType === 'prompt' ? 'prompt' : isGraphNode(name, tags, metadata) ? 'agent' : 'generic';
      const stepMetadata: Record<string, unknown> = { ...metadata, langchain_run_id: runId };
      if (runType) stepMetadata.run_type = runType;
      const visibleTags = (tags ?? []).filter((t) => t !== HIDDEN_TAG);
      if (visibleTags.length) stepMetadata.tags = visibleTags;
      const input = unwrapSingle(inputs, 'input');
      const tracked = this.begin({ runId, parentRunId, kind: 'chain', name, type, input: simplify(input), metadata: stepMetadata });
      if (tracked && input === '') tracked.inputPending = true;
    });
  }

  override handleChainEnd(outputs: Record<string, unknown>, runId: string, _parentRunId?: string, _tags?: string[], kwargs?: { inputs?: Record<string, unknown> }): void {
    this.guard(() => {
      const pending = this.tracked.get(runId)?.inputPending && kwargs?.inputs !== undefined;
      // step-end has no input field, so the input a stream delivered is kept in its metadata.
      const metadata = pending ? { streamed_input: simplify(unwrapSingle(kwargs.inputs, 'input')) } : undefined;
      this.finish(runId, { ok: true, output: simplify(unwrapSingle(outputs, 'output')), metadata });
    });
  }

  override handleChainError(err: unknown, runId: string): void {
    this.guard(() => this.finish(runId, { ok: false, error: err }));
  }

  // ---------------------------------------------------------------- models

  override handleChatModelStart(
    llm: Serialized,
    messages: unknown[][],
    runId: string,
    parentRunId?: string,
    extraParams?: Record<string, unknown>,
    tags?: string[],
    metadata?: Record<string, unknown>,
    runName?: string,
  ): void {
    this.guard(() => {
      const batch = (messages ?? []).map((group) => (Array.isArray(group) ? group.map(chatMessage) : group));
      const input: Record<string, unknown> = batch.length === 1 ? { messages: batch[0] } : { batches: batch };
      this.beginLlm(llm, input, runId, parentRunId, extraParams, tags, metadata, runName);
    });
  }

  override handleLLMStart(
    llm: Serialized,
    prompts: string[],
    runId: string,
    parentRunId?: string,
    extraParams?: Record<string, unknown>,
    tags?: string[],
    metadata?: Record<string, unknown>,
    runName?: string,
  ): void {
    this.guard(() => {
      const input = prompts?.length === 1 ? { prompt: prompts[0] } : { prompts };
      this.beginLlm(llm, input, runId, parentRunId, extraParams, tags, metadata, runName);
    });
  }

  override handleLLMEnd(output: unknown, runId: string): void {
    this.guard(() => {
      const tracked = this.tracked.get(runId);
      const facts = llmFacts(output);
      const model = tracked?.model ?? facts.responseModel;
      this.finish(runId, { ok: true, output: facts.output, usage: facts.usage, model, metadata: facts.metadata });
    });
  }

  override handleLLMError(err: unknown, runId: string): void {
    this.guard(() => this.finish(runId, { ok: false, error: err }));
  }

  // ---------------------------------------------------------------- tools

  override handleToolStart(
    tool: Serialized,
    input: string,
    runId: string,
    parentRunId?: string,
    tags?: string[],
    metadata?: Record<string, unknown>,
    runName?: string,
    toolCallId?: string,
  ): void {
    this.guard(() => {
      const stepMetadata: Record<string, unknown> = { ...metadata, langchain_run_id: runId };
      if (toolCallId) stepMetadata.tool_call_id = toolCallId;
      this.begin({ runId, parentRunId, kind: 'tool', name: nameOf(tool, runName, 'tool'), type: 'tool', input: toolInput(input), metadata: stepMetadata });
    });
  }

  override handleToolEnd(output: unknown, runId: string): void {
    this.guard(() => {
      const r = toolResult(output);
      this.finish(runId, { ok: true, output: r.output, metadata: Object.keys(r.metadata).length ? r.metadata : undefined });
    });
  }

  override handleToolError(err: unknown, runId: string): void {
    this.guard(() => this.finish(runId, { ok: false, error: err }));
  }

  // ---------------------------------------------------------------- retrievers

  override handleRetrieverStart(
    retriever: Serialized,
    query: string,
    runId: string,
    parentRunId?: string,
    tags?: string[],
    metadata?: Record<string, unknown>,
    name?: string,
  ): void {
    this.guard(() => {
      this.begin({ runId, parentRunId, kind: 'retriever', name: nameOf(retriever, name, 'retriever'), type: 'retrieval', input: query, metadata: { ...metadata, langchain_run_id: runId } });
    });
  }

  override handleRetrieverEnd(documents: unknown[], runId: string): void {
    this.guard(() => {
      const docs = Array.isArray(documents) ? documents.map((d) => (d && typeof d === 'object' ? documentJson(d as Record<string, unknown>) : d)) : documents;
      this.finish(runId, { ok: true, output: docs });
    });
  }

  override handleRetrieverError(err: unknown, runId: string): void {
    this.guard(() => this.finish(runId, { ok: false, error: err }));
  }

  // ---------------------------------------------------------------- recording

  /** A failure of the recording must never reach LangChain (it would log it on every event). */
  private guard(fn: () => void): void {
    try {
      fn();
    } catch {
      // Nothing sensible to do: the run simply lacks this record.
    }
  }

  private beginLlm(
    llm: Serialized,
    input: Record<string, unknown>,
    runId: string,
    parentRunId: string | undefined,
    extraParams: Record<string, unknown> | undefined,
    tags: string[] | undefined,
    metadata: Record<string, unknown> | undefined,
    runName: string | undefined,
  ): void {
    const params = extraParams?.invocation_params;
    const { tools, ...otherParams } = (params && typeof params === 'object' ? params : {}) as Record<string, unknown>;
    if (tools !== undefined) input.tools = tools;
    const stepMetadata: Record<string, unknown> = { ...metadata, langchain_run_id: runId };
    if (Object.keys(otherParams).length) stepMetadata.invocation_params = otherParams;
    const visibleTags = (tags ?? []).filter((t) => t !== HIDDEN_TAG);
    if (visibleTags.length) stepMetadata.tags = visibleTags;
    const model = requestedModel(params, metadata, llm);
    const tracked = this.begin({ runId, parentRunId, kind: 'llm', name: nameOf(llm, runName, 'llm'), type: 'llm', input, metadata: stepMetadata });
    if (tracked) tracked.model = model;
  }

  private begin(spec: { runId: string; parentRunId?: string; kind: Kind; name: string; type: StepType; input: unknown; metadata: Record<string, unknown> }): Tracked | null {
    const parent = spec.parentRunId ? this.tracked.get(spec.parentRunId) : undefined;
    let run: RunState | null;
    let parentStep: StepState | null;
    if (parent) {
      run = parent.run;
      parentStep = parent.anchor;
    } else {
      const ctx = traceContext.getStore();
      if (ctx) {
        // Called inside an SDK pipeline (possibly a disabled one, or one that already ended).
        run = ctx.run.rec.enabled && !ctx.run.ended ? ctx.run : null;
        parentStep = ctx.step;
        if (run) this.lastRun = run;
      } else {
        const own = this.startRun(spec.runId, spec.name, spec.input);
        if (spec.kind === 'chain' || !own) {
          const tracked: Tracked = { run: own, step: null, anchor: null, ownsRun: true, kind: spec.kind };
          this.tracked.set(spec.runId, tracked);
          return tracked;
        }
        run = own;
        parentStep = null;
        const tracked = this.openStep(run, parentStep, spec);
        tracked.ownsRun = true;
        return tracked;
      }
    }
    if (!run) {
      const tracked: Tracked = { run: null, step: null, anchor: null, ownsRun: false, kind: spec.kind };
      this.tracked.set(spec.runId, tracked);
      return tracked;
    }
    return this.openStep(run, parentStep, spec);
  }

  private openStep(run: RunState, parentStep: StepState | null, spec: { runId: string; kind: Kind; name: string; type: StepType; input: unknown; metadata: Record<string, unknown> }): Tracked {
    // StepState assigns the index at start and the replay key from the parent's occurrence counts,
    // exactly as SDK steps get them, so LangChain steps and SDK steps share one numbering.
    const step = new StepState(run, parentStep, spec.name, spec.type);
    const inputJson = toJson(spec.input, run.rec.redactor);
    const start: StepStartRecord & { input_fingerprint: string } = {
      type: 'step-start',
      run_id: run.runId,
      step_id: step.stepId,
      parent_id: parentStep ? parentStep.stepId : null,
      index: step.index,
      name: spec.name,
      step_type: spec.type,
      replay_key: step.replayKey,
      ts: Date.now(),
      input_fingerprint: fingerprintJson(inputJson),
    };
    const recordedInput = run.capped(inputJson, spec.input);
    if (recordedInput !== undefined) start.input = recordedInput;
    const metadata = toJson(spec.metadata, run.rec.redactor);
    if (metadata && typeof metadata === 'object' && !Array.isArray(metadata) && Object.keys(metadata).length) start.metadata = metadata;
    run.emit(start);
    const tracked: Tracked = { run, step, anchor: step, ownsRun: false, kind: spec.kind };
    this.tracked.set(spec.runId, tracked);
    return tracked;
  }

  private startRun(runId: string, rootName: string, input: unknown): RunState | null {
    const o = this.options;
    const rec = resolveRecording({ home: o.home, inbox: o.inbox, maxFieldBytes: o.maxFieldBytes, redact: o.redact, enabled: o.enabled });
    if (!rec.enabled) return null;
    const pipelineName = o.pipeline ?? rootName;
    const run = new RunState(runId, pipelineName, rec, new TraceWriter(rec.inbox, runId), null);
    const start: RunStartRecord = {
      type: 'run-start',
      v: TRACE_FORMAT_VERSION,
      run_id: runId,
      pipeline: pipelineName,
      ts: Date.now(),
      sdk: { name: SDK_NAME, version: SDK_VERSION, language: 'typescript' },
    };
    const recordedInput = run.field(input);
    if (recordedInput !== undefined) start.input = recordedInput;
    if (o.entry) start.entry = { ...o.entry, command: o.entry.command.map((a) => rec.redactor.text(String(a))) };
    start.tags = { integration: 'langchain', ...o.tags };
    run.emit(start);
    this.ownRuns.set(runId, run);
    this.lastRun = run;
    return run;
  }

  private finish(runId: string, outcome: ({ ok: true } & Extracted) | { ok: false; error: unknown }): void {
    const tracked = this.tracked.get(runId);
    if (!tracked) return;
    this.tracked.delete(runId);
    const run = tracked.run;
    if (!run) return;
    if (tracked.step) endStep(tracked.step, outcome);
    if (tracked.ownsRun) this.endRun(run, outcome);
  }

  private endRun(run: RunState, outcome: ({ ok: true } & Extracted) | { ok: false; error: unknown }): void {
    try {
      const end: RunEndRecord = { type: 'run-end', run_id: run.runId, ts: Date.now(), status: outcome.ok ? 'ok' : 'error' };
      if (outcome.ok) {
        const out = run.field(outcome.output);
        if (out !== undefined) end.output = out as Json;
      } else end.error = traceErrorOf(outcome.error, run);
      run.emit(end);
    } finally {
      run.ended = true;
      run.sink.close();
      // Bounded memory for long-lived handlers: only recent runs can still take a late verdict.
      if (this.ownRuns.size > 64) this.ownRuns.delete(this.ownRuns.keys().next().value as string);
    }
  }
}
