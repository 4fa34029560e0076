/**
 * One record → the row changes it implies. Both the SQLite store and the
 * in-memory fold apply these same patches, so they cannot disagree.
 *
 * Patches are order-independent where it matters: a finished status is never
 * downgraded by a start record read again, and fields only overwrite when the
 * record actually carries them. That is what makes re-import idempotent.
 */
import type { TraceRecord } from '../../../src-shared/trace-format';
import { storedJson } from './field-limits';
import { setOwn } from '../../../src-shared/own-property';

export interface RunPatch {
  run_id: string;
  pipeline?: string;
  status?: 'running' | 'ok' | 'error';
  started_at?: number;
  ended_at?: number;
  input?: string | null;
  output?: string | null;
  error?: string | null;
  verdict?: string;
  tags?: string;
  entry?: string;
  provenance?: string;
  sdk?: string;
  source_format?: string;
  extra?: string;
}

export interface StepPatch {
  run_id: string;
  step_id: string;
  parent_id?: string | null;
  index?: number;
  name?: string;
  type?: string;
  replay_key?: string;
  status?: 'running' | 'ok' | 'error';
  input?: string | null;
  output?: string | null;
  error?: string | null;
  started_at?: number;
  ended_at?: number;
  model?: string;
  usage?: string;
  /** Merged key by key into what is stored. */
  metadata?: string;
  replayed?: boolean;
  extra?: string;
}

export interface ScorePatch {
  run_id: string;
  /** '' for a run-level score. */
  step_id: string;
  name: string;
  value: number;
  explanation: string | null;
}

export interface RecordPatches {
  run?: RunPatch;
  step?: StepPatch;
  score?: ScorePatch;
  /** Fields that were too large and stored truncated. */
  truncated: string[];
}

const KNOWN: Record<TraceRecord['type'], Set<string>> = {
  'run-start': new Set(['type', 'v', 'run_id', 'pipeline', 'ts', 'input', 'sdk', 'entry', 'tags', 'provenance', 'source_format']),
  'step-start': new Set(['type', 'run_id', 'step_id', 'parent_id', 'index', 'name', 'step_type', 'replay_key', 'ts', 'input', 'metadata']),
  'step-end': new Set(['type', 'run_id', 'step_id', 'ts', 'status', 'output', 'error', 'model', 'usage', 'metadata', 'replayed']),
  score: new Set(['type', 'run_id', 'step_id', 'name', 'value', 'explanation', 'ts']),
  verdict: new Set(['type', 'run_id', 'pass', 'detail', 'expected', 'ts']),
  'run-end': new Set(['type', 'run_id', 'ts', 'status', 'output', 'error', 'provenance']),
};

/** Unknown fields, kept verbatim so nothing a user recorded is lost. */
function extraOf(record: TraceRecord): string | undefined {
  const known = KNOWN[record.type];
  let extra: Record<string, unknown> | undefined;
  for (const k in record) {
    if (!known.has(k)) setOwn((extra ??= {}), k, (record as unknown as Record<string, unknown>)[k]);
  }
  return extra ? storedJson(extra).text ?? undefined : undefined;
}

/** JSON text of a field, noting in `truncated` when the size cap cut it. Hoisted: this runs per record. */
function jsonField(truncated: string[], field: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const s = storedJson(value);
  if (s.truncated) truncated.push(field);
  // "field:depth:N" — the importer's warning says N values nested too deep were dropped.
  if (s.depthDropped) truncated.push(`${field}:depth:${s.depthDropped}`);
  return s.text ?? undefined;
}

export function patchesFor(record: TraceRecord): RecordPatches {
  const truncated: string[] = [];
  const extra = extraOf(record);
  switch (record.type) {
    case 'run-start':
      return {
        run: {
          run_id: record.run_id,
          pipeline: record.pipeline,
          status: 'running',
          started_at: record.ts,
          input: jsonField(truncated, 'input', record.input),
          sdk: jsonField(truncated, 'sdk', record.sdk) ,
          entry: jsonField(truncated, 'entry', record.entry) ,
          tags: jsonField(truncated, 'tags', record.tags) ,
          provenance: jsonField(truncated, 'provenance', record.provenance) ,
          source_format: (record as { source_format?: string }).source_format,
          extra,
        },
        truncated,
      };
    case 'step-start':
      return {
        step: {
          run_id: record.run_id,
          step_id: record.step_id,
          parent_id: record.parent_id ?? null,
          index: record.index,
          name: record.name,
          type: record.step_type,
          replay_key: record.replay_key,
          status: 'running',
          started_at: record.ts,
          input: jsonField(truncated, 'input', record.input),
          metadata: jsonField(truncated, 'metadata', record.metadata) ,
          extra,
        },
        truncated,
      };
    case 'step-end':
      return {
        step: {
          run_id: record.run_id,
          step_id: record.step_id,
          status: record.status,
          ended_at: record.ts,
          output: jsonField(truncated, 'output', record.output),
          error: jsonField(truncated, 'error', record.error),
          model: typeof record.model === 'string' ? record.model : undefined,
          usage: jsonField(truncated, 'usage', record.usage) ,
          metadata: jsonField(truncated, 'metadata', record.metadata) ,
          replayed: record.replayed === true ? true : undefined,
          extra,
        },
        truncated,
      };
    case 'score':
      return {
        score: {
          run_id: record.run_id,
          step_id: record.step_id ?? '',
          name: record.name,
          value: record.value,
          explanation: typeof record.explanation === 'string' ? record.explanation : null,
        },
        truncated,
      };
    case 'verdict':
      return {
        run: {
          run_id: record.run_id,
          verdict: jsonField(truncated, 'verdict', { pass: record.pass, detail: record.detail, expected: record.expected }) ,
        },
        truncated,
      };
    case 'run-end':
      return {
        run: {
          run_id: record.run_id,
          status: record.status,
          ended_at: record.ts,
          output: jsonField(truncated, 'output', record.output),
          error: jsonField(truncated, 'error', record.error),
          // A forked run knows whether it diverged only at its end.
          provenance: jsonField(truncated, 'provenance', record.provenance) ,
          extra,
        },
        truncated,
      };
  }
}
