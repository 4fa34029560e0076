/**
 * A small builder of native trace records for tests and the scenario
 * generator: steps get start-order indices, replay keys (parent key / name #
 * occurrence) and a clock that moves 10 ms per record. `detail()` folds the
 * records with the importer's own foldRecords, so tests see exactly what an
 * imported file would give.
 */
import type { RunDetail } from '../../src-shared/model';
import type { Json, StepType, TraceError, TraceRecord } from '../../src-shared/trace-format';
import { TRACE_FORMAT_VERSION } from '../../src-shared/trace-format';
import { foldRecords } from '../../src-main/engine/ingest/native/fold-records';

export interface StartOpts {
  parent?: string | null;
  input?: Json;
  metadata?: Record<string, Json>;
  /** Override the computed replay key. */
  replayKey?: string;
  /** Override the generated step id. */
  id?: string;
}

export interface EndOpts {
  output?: Json;
  error?: TraceError;
  status?: 'ok' | 'error';
  metadata?: Record<string, Json>;
  model?: string;
  usage?: { input_tokens?: number; output_tokens?: number };
}

export class TraceBuilder {
  readonly records: TraceRecord[] = [];
  readonly runId: string;
  private clock: number;
  private index = 0;
  private readonly keys = new Map<string, string>();
  private readonly occurrences = new Map<string, number>();

  constructor(opts: { runId?: string; pipeline?: string; input?: Json; tags?: Record<string, string>; t0?: number } = {}) {
    this.runId = opts.runId ?? 'run-1';
    this.clock = opts.t0 ?? 1_700_000_000_000;
    this.records.push({
      type: 'run-start',
      v: TRACE_FORMAT_VERSION,
      run_id: this.runId,
      pipeline: opts.pipeline ?? 'test-pipeline',
      ts: this.clock,
      ...(opts.input !== undefined ? { input: opts.input } : {}),
      sdk: { name: 'traceback-test', version: '0' },
      ...(opts.tags ? { tags: opts.tags } : {}),
    });
  }

  private tick(): number {
    this.clock += 10;
    return this.clock;
  }

  start(name: string, type: StepType, opts: StartOpts = {}): string {
    const parent = opts.parent ?? null;
    const parentKey = parent === null ? '' : (this.keys.get(parent) ?? parent);
    const occKey = `${parentKey}\u0000${name}`;
    const occ = this.occurrences.get(occKey) ?? 0;
    this.occurrences.set(occKey, occ + 1);
    const key = opts.replayKey ?? `${parentKey ? `${parentKey}/` : ''}${name}#${occ}`;
    const id = opts.id ?? `s${this.index}`;
    this.keys.set(id, key);
    this.records.push({
      type: 'step-start',
      run_id: this.runId,
      step_id: id,
      parent_id: parent,
      index: this.index++,
      name,
      step_type: type,
      replay_key: key,
      ts: this.tick(),
      ...(opts.input !== undefined ? { input: opts.input } : {}),
      ...(opts.metadata ? { metadata: opts.metadata } : {}),
    });
    return id;
  }

  end(id: string, opts: EndOpts = {}): this {
    const status = opts.status ?? (opts.error ? 'error' : 'ok');
    this.records.push({
      type: 'step-end',
      run_id: this.runId,
      step_id: id,
      ts: this.tick(),
      status,
      ...(opts.output !== undefined ? { output: opts.output } : {}),
      ...(opts.error ? { error: opts.error } : {}),
      ...(opts.metadata ? { metadata: opts.metadata } : {}),
      ...(opts.model ? { model: opts.model } : {}),
      ...(opts.usage ? { usage: opts.usage } : {}),
    });
    return this;
  }

  /** A step that starts and ends at once. */
  step(name: string, type: StepType, opts: StartOpts & EndOpts & { endMetadata?: Record<string, Json> } = {}): string {
    const id = this.start(name, type, { parent: opts.parent, input: opts.input, metadata: opts.metadata, replayKey: opts.replayKey, id: opts.id });
    this.end(id, { output: opts.output, error: opts.error, status: opts.status, metadata: opts.endMetadata, model: opts.model, usage: opts.usage });
    return id;
  }

  score(name: string, value: number, stepId?: string, explanation?: string): this {
    this.records.push({ type: 'score', run_id: this.runId, ...(stepId ? { step_id: stepId } : {}), name, value, ...(explanation ? { explanation } : {}), ts: this.tick() });
    return this;
  }

  verdict(pass: boolean, detail?: string, expected?: Json): this {
    this.records.push({ type: 'verdict', run_id: this.runId, pass, ...(detail ? { detail } : {}), ...(expected !== undefined ? { expected } : {}), ts: this.tick() });
    return this;
  }

  finish(status: 'ok' | 'error' = 'ok', output?: Json, error?: TraceError): this {
    this.records.push({ type: 'run-end', run_id: this.runId, ts: this.tick(), status, ...(output !== undefined ? { output } : {}), ...(error ? { error } : {}) });
    return this;
  }

  /** Folded as the importer would; `final` marks a file that will not grow (no run-end → incomplete). */
  detail(opts: { final?: boolean } = {}): RunDetail {
    const [d] = foldRecords(this.records, { final: opts.final ?? true, now: this.clock + 1 });
    return d;
  }

  jsonl(): string {
    return `${this.records.map((r) => JSON.stringify(r)).join('\n')}\n`;
  }
}
