/**
 * Row shapes as stored in SQLite, the in-memory application of patches to
 * them (the same rules the SQL upserts keep), and conversion to the model.
 */
import type { Run, RunStatus, Score, Step } from '../../../src-shared/model';
import type { RunPatch, StepPatch } from './record-patches';
import { setOwn } from '../../../src-shared/own-property';

export interface RunRow {
  run_id: string;
  pipeline: string;
  status: 'running' | 'incomplete' | 'ok' | 'error';
  started_at: number;
  ended_at: number | null;
  input: string | null;
  output: string | null;
  error: string | null;
  verdict: string | null;
  tags: string | null;
  entry: string | null;
  provenance: string | null;
  sdk: string | null;
  source_file: string | null;
  source_format: string;
  extra: string | null;
  imported_at: number;
  updated_at: number;
}

export interface StepRow {
  run_id: string;
  step_id: string;
  parent_id: string | null;
  idx: number;
  name: string;
  type: string;
  replay_key: string;
  status: 'running' | 'ok' | 'error';
  input: string | null;
  output: string | null;
  error: string | null;
  started_at: number;
  ended_at: number | null;
  model: string | null;
  usage: string | null;
  metadata: string | null;
  replayed: number;
  extra: string | null;
}

export interface ScoreRow {
  run_id: string;
  step_id: string;
  name: string;
  value: number;
  explanation: string | null;
}

/** A record seen before its run's header (or a header never written) still gets a run row. */
export const UNKNOWN_PIPELINE = '(unknown pipeline)';

const FINISHED = new Set(['ok', 'error']);

/** Finished states win over "running", whatever order records are read in. */
export function mergeStatus<S extends string>(current: S | undefined, incoming: S | undefined): S | undefined {
  if (incoming === undefined) return current;
  if (current !== undefined && FINISHED.has(current) && !FINISHED.has(incoming)) return current;
  return incoming;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** RFC 7396 merge patch: exactly what SQLite's json_patch() does in the store. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return patch;
  const out: Record<string, unknown> = isPlainObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else setOwn(out, k, mergePatch(Object.hasOwn(out, k) ? out[k] : undefined, v));
  }
  return out;
}

/** Merges JSON object texts the way the store's json_patch() upsert does. */
export function mergeJsonObjects(current: string | null, incoming: string | undefined): string | null {
  if (incoming === undefined) return current;
  if (current === null) return JSON.stringify(mergePatch({}, JSON.parse(incoming)));
  return JSON.stringify(mergePatch(JSON.parse(current), JSON.parse(incoming)));
}

const pick = <T>(incoming: T | undefined, current: T): T => (incoming === undefined ? current : incoming);

/**
 * The in-memory twin of the run upsert (ingest/native/fold-records.ts folds with it).
 * @public knip does not follow fold-records' import of it.
 */
export function applyRunPatch(row: RunRow | undefined, p: RunPatch, now: number, startedFallback: number): RunRow {
  const base: RunRow = row ?? {
    run_id: p.run_id,
    pipeline: UNKNOWN_PIPELINE,
    status: 'running',
    started_at: startedFallback,
    ended_at: null,
    input: null,
    output: null,
    error: null,
    verdict: null,
    tags: null,
    entry: null,
    provenance: null,
    sdk: null,
    source_file: null,
    source_format: 'native',
    extra: null,
    imported_at: now,
    updated_at: now,
  };
  return {
    ...base,
    pipeline: pick(p.pipeline, base.pipeline),
    status: mergeStatus(base.status, p.status) ?? base.status,
    started_at: pick(p.started_at, base.started_at),
    ended_at: pick(p.ended_at, base.ended_at),
    input: pick(p.input, base.input),
    output: pick(p.output, base.output),
    error: pick(p.error, base.error),
    verdict: pick(p.verdict, base.verdict),
    tags: pick(p.tags, base.tags),
    entry: pick(p.entry, base.entry),
    provenance: pick(p.provenance, base.provenance),
    sdk: pick(p.sdk, base.sdk),
    source_format: pick(p.source_format, base.source_format),
    extra: mergeJsonObjects(base.extra, p.extra),
    updated_at: now,
  };
}

/**
 * The in-memory twin of the step upsert.
 * @public knip does not follow fold-records' import of it.
 */
export function applyStepPatch(row: StepRow | undefined, p: StepPatch, startedFallback: number): StepRow {
  const base: StepRow = row ?? {
    run_id: p.run_id,
    step_id: p.step_id,
    parent_id: null,
    idx: Number.MAX_SAFE_INTEGER,
    name: p.step_id,
    type: 'generic',
    replay_key: p.step_id,
    status: 'running',
    input: null,
    output: null,
    error: null,
    started_at: startedFallback,
    ended_at: null,
    model: null,
    usage: null,
    metadata: null,
    replayed: 0,
    extra: null,
  };
  return {
    ...base,
    parent_id: pick(p.parent_id, base.parent_id),
    idx: pick(p.index, base.idx),
    name: pick(p.name, base.name),
    type: pick(p.type, base.type),
    replay_key: pick(p.replay_key, base.replay_key),
    status: mergeStatus(base.status, p.status) ?? base.status,
    input: pick(p.input, base.input),
    output: pick(p.output, base.output),
    error: pick(p.error, base.error),
    started_at: pick(p.started_at, base.started_at),
    ended_at: pick(p.ended_at, base.ended_at),
    model: pick(p.model, base.model),
    usage: pick(p.usage, base.usage),
    metadata: mergeJsonObjects(base.metadata, p.metadata),
    replayed: p.replayed ? 1 : base.replayed,
    extra: mergeJsonObjects(base.extra, p.extra),
  };
}

const parse = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));

/**
 * A run without run-end is "running" while its file may still grow, and
 * "incomplete" once nothing has arrived for this long (a crashed writer).
 */
export const RUNNING_GRACE_MS = 10 * 60 * 1000;

export function displayStatus(row: Pick<RunRow, 'status' | 'updated_at'>, now: number): RunStatus {
  if (row.status === 'running' && now - row.updated_at > RUNNING_GRACE_MS) return 'incomplete';
  return row.status;
}

export function runFromRow(row: RunRow, stepCount: number, now: number, runScores: ScoreRow[] = []): Run {
  const provenance = parse<Run['provenance']>(row.provenance);
  return {
    run_id: row.run_id,
    pipeline: row.pipeline,
    status: displayStatus(row, now),
    steps: stepCount,
    started_at: row.started_at,
    ended_at: row.ended_at,
    duration_ms: row.ended_at === null ? null : Math.max(0, row.ended_at - row.started_at),
    verdict: parse(row.verdict),
    source_format: row.source_format,
    forked: provenance !== null,
    input: parse(row.input),
    output: parse(row.output),
    error: parse(row.error),
    tags: parse(row.tags) ?? {},
    entry: parse(row.entry),
    provenance,
    sdk: parse(row.sdk),
    source_file: row.source_file,
    user_scores: scoresOf(runScores),
    extra: parse(row.extra) ?? {},
  };
}

export function scoresOf(rows: ScoreRow[]): Score[] {
  return rows.map((s) => ({
    name: s.name,
    value: s.value,
    ...(s.explanation === null ? {} : { explanation: s.explanation }),
    source: 'user',
  }));
}

export function stepFromRow(row: StepRow, scores: ScoreRow[]): Step {
  const userScores = scoresOf(scores);
  return {
    run_id: row.run_id,
    step_id: row.step_id,
    parent_id: row.parent_id,
    index: row.idx,
    name: row.name,
    type: row.type as Step['type'],
    replay_key: row.replay_key,
    status: row.status,
    input: parse(row.input),
    output: parse(row.output),
    error: parse(row.error),
    started_at: row.started_at,
    ended_at: row.ended_at,
    duration_ms: row.ended_at === null ? null : Math.max(0, row.ended_at - row.started_at),
    model: row.model,
    usage: parse(row.usage),
    metadata: parse(row.metadata) ?? {},
    user_scores: userScores,
    replayed: row.replayed === 1,
    extra: parse(row.extra) ?? {},
  };
}
