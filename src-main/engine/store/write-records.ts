/**
 * Applies record patches to SQLite with upserts that keep the same rules as
 * store/rows.ts (the in-memory fold): fields overwrite only when present,
 * finished statuses are never downgraded, metadata and extra merge with
 * json_patch. Callers wrap calls in a transaction.
 */
import type { TraceRecord } from '../../../src-shared/trace-format';
import { patchesFor, type RunPatch, type ScorePatch, type StepPatch } from './record-patches';
import { mergeJsonObjects, mergeStatus, UNKNOWN_PIPELINE } from './rows';
import type { Db } from './open-database';
import { IN_BATCH, idBatches } from './id-batches';
import { statement } from './statement-cache';

const MERGE = (col: string, param: string) =>
  `CASE WHEN ${param} IS NULL THEN ${col} WHEN ${col} IS NULL THEN json_patch('{}', ${param}) ELSE json_patch(${col}, ${param}) END`;
const STATUS = (col: string) =>
  `CASE WHEN @status IS NULL THEN ${col} WHEN ${col} IN ('ok','error') AND @status NOT IN ('ok','error') THEN ${col} ELSE @status END`;

/**
 * A run's version (runs.updated_at) only grows. A run upsert moves it to the time (never back); each transaction
 * that writes a run's steps ends with touchRuns, which gives it the time or one more than its version when that is
 * not later (two commits in one millisecond). So every committed change has a new, larger version, and a row
 * derived from a run and stamped with its version (step counts, the text index, cached blame) is never taken as
 * current after a later change. Versions run ahead of the clock by a few at most per commit within a millisecond.
 */
const LATER_VERSION = (col: string, now: string) => `MAX(${now}, ${col})`;
const NEXT_VERSION = (col: string, now: string) => `MAX(${now}, ${col} + 1)`;
const TOUCH_RUNS = `UPDATE runs SET updated_at = ${NEXT_VERSION('updated_at', '?')} WHERE run_id ${IN_BATCH()}`;

const RUN_UPSERT = `
INSERT INTO runs (run_id, pipeline, status, started_at, ended_at, input, output, error, verdict, tags, entry,
                  provenance, sdk, source_file, source_format, extra, imported_at, updated_at)
VALUES (@run_id, COALESCE(@pipeline, '${UNKNOWN_PIPELINE}'), COALESCE(@status, 'running'), COALESCE(@started_at, @fallback_ts),
        @ended_at, @input, @output, @error, @verdict, @tags, @entry, @provenance, @sdk, @source_file,
        COALESCE(@source_format, 'native'), CASE WHEN @extra IS NULL THEN NULL ELSE json_patch('{}', @extra) END, @now, @now)
ON CONFLICT(run_id) DO UPDATE SET
  pipeline = COALESCE(@pipeline, runs.pipeline),
  status = ${STATUS('runs.status')},
  started_at = COALESCE(@started_at, runs.started_at),
  ended_at = COALESCE(@ended_at, runs.ended_at),
  input = COALESCE(@input, runs.input),
  output = COALESCE(@output, runs.output),
  error = COALESCE(@error, runs.error),
  verdict = COALESCE(@verdict, runs.verdict),
  tags = COALESCE(@tags, runs.tags),
  entry = COALESCE(@entry, runs.entry),
  provenance = COALESCE(@provenance, runs.provenance),
  sdk = COALESCE(@sdk, runs.sdk),
  source_file = COALESCE(@source_file, runs.source_file),
  source_format = COALESCE(@source_format, runs.source_format),
  extra = ${MERGE('runs.extra', '@extra')},
  updated_at = ${LATER_VERSION('runs.updated_at', '@now')}`;

const STEP_UPSERT = `
INSERT INTO steps (run_id, step_id, parent_id, idx, name, type, replay_key, status, input, output, error,
                   started_at, ended_at, model, usage, metadata, replayed, extra)
VALUES (@run_id, @step_id, @parent_id, COALESCE(@idx, ${Number.MAX_SAFE_INTEGER}), COALESCE(@name, @step_id),
        COALESCE(@type, 'generic'), COALESCE(@replay_key, @step_id), COALESCE(@status, 'running'), @input, @output, @error,
        COALESCE(@started_at, @fallback_ts), @ended_at, @model, @usage,
        CASE WHEN @metadata IS NULL THEN NULL ELSE json_patch('{}', @metadata) END, COALESCE(@replayed, 0),
        CASE WHEN @extra IS NULL THEN NULL ELSE json_patch('{}', @extra) END)
ON CONFLICT(run_id, step_id) DO UPDATE SET
  parent_id = CASE WHEN @has_parent THEN @parent_id ELSE steps.parent_id END,
  idx = COALESCE(@idx, steps.idx),
  name = COALESCE(@name, steps.name),
  type = COALESCE(@type, steps.type),
  replay_key = COALESCE(@replay_key, steps.replay_key),
  status = ${STATUS('steps.status')},
  input = COALESCE(@input, steps.input),
  output = COALESCE(@output, steps.output),
  error = COALESCE(@error, steps.error),
  started_at = COALESCE(@started_at, steps.started_at),
  ended_at = COALESCE(@ended_at, steps.ended_at),
  model = COALESCE(@model, steps.model),
  usage = COALESCE(@usage, steps.usage),
  metadata = ${MERGE('steps.metadata', '@metadata')},
  replayed = MAX(steps.replayed, COALESCE(@replayed, 0)),
  extra = ${MERGE('steps.extra', '@extra')}`;

// The common case, steps not stored yet: positional INSERTs of FRESH_ROWS rows at a time
// (positional binding is ~1.5× faster than named in better-sqlite3). A statement that may write many rows
// keeps a statement journal; with it in memory (temp_store, open-database.ts) 16-row statements cost
// ~0.85× of one-row calls (32 rows ~0.82×), with it in a temporary file 1.25× (a 50k-step import's rows).
// Values match what STEP_UPSERT inserts; when a chunk meets a stored row, the full upsert runs for each
// of its rows (upserts are idempotent).
const FRESH_ROWS = 32;
const FRESH_PARAMS = 18;
const STEP_INSERT_FRESH = (rows: number) => `
INSERT INTO steps (run_id, step_id, parent_id, idx, name, type, replay_key, status, input, output, error,
                   started_at, ended_at, model, usage, metadata, replayed, extra)
VALUES ${Array.from({ length: rows }, () => `(?, ?, ?, COALESCE(?, ${Number.MAX_SAFE_INTEGER}), ?, COALESCE(?, 'generic'), ?,
        COALESCE(?, 'running'), ?, ?, ?, ?, ?, ?, ?, ?, COALESCE(?, 0), ?)`).join(',\n')}
ON CONFLICT(run_id, step_id) DO NOTHING`;
const STEP_INSERT_ONE = STEP_INSERT_FRESH(1);
const STEP_INSERT_CHUNK = STEP_INSERT_FRESH(FRESH_ROWS);

const SCORE_UPSERT = `
INSERT INTO user_scores (run_id, step_id, name, value, explanation) VALUES (@run_id, @step_id, @name, @value, @explanation)
ON CONFLICT(run_id, step_id, name) DO UPDATE SET value = excluded.value, explanation = excluded.explanation`;

const RUN_COLUMNS = ['pipeline', 'status', 'started_at', 'ended_at', 'input', 'output', 'error', 'verdict', 'tags', 'entry', 'provenance', 'sdk', 'source_format', 'extra'] as const;

export interface RecordWriter {
  /** Applies one record; returns names of fields stored truncated. */
  apply(record: TraceRecord, sourceFile: string | null): string[];
  /**
   * Applies records in order, coalescing the patches of each row first (a
   * step-start and its step-end become one upsert). Returns, per record, the
   * fields stored truncated.
   */
  applyBatch(records: TraceRecord[], sourceFile: string | null): string[][];
  /** Runs touched since the writer was created (every run of an import: per block, read the block's own, runIdsOf). */
  touchedRuns(): Set<string>;
}

type Op =
  | { kind: 'run'; patch: RunPatch; fallbackTs: number }
  | { kind: 'step'; patch: StepPatch; fallbackTs: number }
  | { kind: 'score'; patch: ScorePatch };

export function createRecordWriter(db: Db, now: () => number = Date.now): RecordWriter {
  // The connection's statements, prepared once (statement-cache.ts): prepared for each writer, a folder of
  // 2,000 one-run files spent a third of its import compiling them again.
  const runUpsert = statement(db, RUN_UPSERT);
  const stepUpsert = statement(db, STEP_UPSERT);
  const stepInsertFresh = statement(db, STEP_INSERT_ONE);
  // Steps waiting for a multi-row insert: their bound values, and the patches for the upsert fallback.
  const freshArgs: unknown[] = new Array(FRESH_ROWS * FRESH_PARAMS);
  const freshSteps: { patch: StepPatch; fallbackTs: number }[] = [];
  const scoreUpsert = statement(db, SCORE_UPSERT);
  const touched = new Set<string>();
  // Runs this writer already made sure exist; later records of them skip the run upsert.
  const ensured = new Set<string>();

  const writeRun = (p: RunPatch, fallbackTs: number) => {
    const params: Record<string, unknown> = { run_id: p.run_id, fallback_ts: fallbackTs, now: now(), source_file: currentSource };
    for (const c of RUN_COLUMNS) params[c] = (p as unknown as Record<string, unknown>)[c] ?? null;
    runUpsert.run(params);
    ensured.add(p.run_id);
  };
  const queueFreshStep = (s: StepPatch, fallbackTs: number) => {
    let a = freshSteps.length * FRESH_PARAMS;
    freshArgs[a++] = s.run_id;
    freshArgs[a++] = s.step_id;
    freshArgs[a++] = s.parent_id ?? null;
    freshArgs[a++] = s.index ?? null;
    freshArgs[a++] = s.name ?? s.step_id;
    freshArgs[a++] = s.type ?? null;
    freshArgs[a++] = s.replay_key ?? s.step_id;
    freshArgs[a++] = s.status ?? null;
    freshArgs[a++] = s.input ?? null;
    freshArgs[a++] = s.output ?? null;
    freshArgs[a++] = s.error ?? null;
    freshArgs[a++] = s.started_at ?? fallbackTs;
    freshArgs[a++] = s.ended_at ?? null;
    freshArgs[a++] = s.model ?? null;
    freshArgs[a++] = s.usage ?? null;
    freshArgs[a++] = s.metadata ?? null;
    freshArgs[a++] = s.replayed ? 1 : null;
    freshArgs[a++] = s.extra ?? null;
    freshSteps.push({ patch: s, fallbackTs });
    if (freshSteps.length === FRESH_ROWS) flushFreshSteps();
  };
  const flushFreshSteps = () => {
    const n = freshSteps.length;
    if (n === 0) return;
    // Taken off the queue first: after a failed statement the caller retries record by record.
    const steps = freshSteps.splice(0, n);
    let inserted: number;
    if (n === FRESH_ROWS) inserted = statement(db, STEP_INSERT_CHUNK).run(freshArgs).changes;
    else {
      inserted = 0;
      for (let i = 0; i < n; i++) inserted += stepInsertFresh.run(freshArgs.slice(i * FRESH_PARAMS, (i + 1) * FRESH_PARAMS)).changes;
    }
    // Some rows were stored already (a step-start read in an earlier block): upsert the chunk's rows.
    if (inserted !== n) for (const f of steps) upsertStep(f.patch, f.fallbackTs);
  };
  const writeStep = (s: StepPatch, fallbackTs: number) => {
    // JSON.stringify output without nulls is already what json_patch('{}', x) would store.
    if (!hasJsonNull(s.metadata) && !hasJsonNull(s.extra)) queueFreshStep(s, fallbackTs);
    else {
      // Keep the order of rows: queued steps are written before this one.
      flushFreshSteps();
      upsertStep(s, fallbackTs);
    }
  };
  const upsertStep = (s: StepPatch, fallbackTs: number) => {
    stepUpsert.run({
      run_id: s.run_id,
      step_id: s.step_id,
      has_parent: s.parent_id === undefined ? 0 : 1,
      parent_id: s.parent_id ?? null,
      idx: s.index ?? null,
      name: s.name ?? null,
      type: s.type ?? null,
      replay_key: s.replay_key ?? null,
      status: s.status ?? null,
      input: s.input ?? null,
      output: s.output ?? null,
      error: s.error ?? null,
      started_at: s.started_at ?? null,
      ended_at: s.ended_at ?? null,
      model: s.model ?? null,
      usage: s.usage ?? null,
      metadata: s.metadata ?? null,
      replayed: s.replayed ? 1 : null,
      extra: s.extra ?? null,
      fallback_ts: fallbackTs,
    });
  };
  let currentSource: string | null = null;

  const applyBatch = (records: TraceRecord[], sourceFile: string | null): string[][] => {
    currentSource = sourceFile;
    const ops: Op[] = [];
    // Where each row's latest op is, by run id then step id: no key string is built per record.
    const runOpAt = new Map<string, number>();
    const stepOpAt = new Map<string, Map<string, number>>();
    const truncated: string[][] = new Array(records.length);
    for (let r = 0; r < records.length; r++) {
      const record = records[r];
      const p = patchesFor(record);
      truncated[r] = p.truncated;
      const runId = record.run_id;
      const fallbackTs = 'ts' in record && typeof record.ts === 'number' ? record.ts : now();
      touched.add(runId);
      // The run row must exist before its steps (foreign key), so its op comes first.
      if (p.run || (!ensured.has(runId) && !runOpAt.has(runId))) {
        const patch = p.run ?? { run_id: runId };
        const at = runOpAt.get(runId);
        if (at === undefined || !composePatches(ops[at].patch as RunPatch, patch)) {
          runOpAt.set(runId, ops.length);
          ops.push({ kind: 'run', patch, fallbackTs });
        }
      }
      if (p.step) {
        let steps = stepOpAt.get(p.step.run_id);
        if (steps === undefined) stepOpAt.set(p.step.run_id, (steps = new Map()));
        const at = steps.get(p.step.step_id);
        if (at === undefined || !composePatches(ops[at].patch as StepPatch, p.step)) {
          steps.set(p.step.step_id, ops.length);
          ops.push({ kind: 'step', patch: p.step, fallbackTs });
        }
      }
      if (p.score) ops.push({ kind: 'score', patch: p.score });
    }
    for (const op of ops) {
      if (op.kind === 'step') writeStep(op.patch, op.fallbackTs);
      else {
        flushFreshSteps();
        if (op.kind === 'run') writeRun(op.patch, op.fallbackTs);
        else scoreUpsert.run(op.patch);
      }
    }
    flushFreshSteps();
    return truncated;
  };

  return {
    apply: (record, sourceFile) => applyBatch([record], sourceFile)[0],
    applyBatch,
    touchedRuns: () => touched,
  };
}

/**
 * Folds patch `b` into patch `a` of the same row (both a run's or both a step's), with the result the store
 * would reach applying them in turn; false when that cannot be guaranteed (a JSON null in merged metadata
 * deletes keys, which does not compose), and then both are applied.
 */
function composePatches(a: RunPatch | StepPatch, b: RunPatch | StepPatch): boolean {
  // Patches are created per record and owned by this batch, so `a` is updated in place.
  const ap = a as unknown as Record<string, unknown>;
  const bp = b as unknown as Record<string, unknown>;
  if (hasJsonNull(ap.metadata) || hasJsonNull(bp.metadata) || hasJsonNull(ap.extra) || hasJsonNull(bp.extra)) return false;
  for (const k in bp) {
    const v = bp[k];
    if (v === undefined) continue;
    if (k === 'status') ap.status = mergeStatus(ap.status as string | undefined, v as string);
    else if (k === 'metadata' || k === 'extra') ap[k] = mergeJsonObjects((ap[k] as string | undefined) ?? null, v as string) ?? undefined;
    else if (k === 'replayed') ap.replayed = ap.replayed === true || v === true;
    else ap[k] = v;
  }
  return true;
}

function hasJsonNull(text: unknown): boolean {
  return typeof text === 'string' && text.includes('null');
}

/** The run ids of a block's records, once each. */
export function runIdsOf(records: readonly TraceRecord[]): Set<string> {
  const ids = new Set<string>();
  for (const r of records) ids.add(r.run_id);
  return ids;
}

/**
 * Marks runs as touched now (a new version each), so "running" vs "incomplete" and cached analyses see the change.
 * An id named twice in one call gets one new version (one statement touches each run once).
 */
export function touchRuns(db: Db, runIds: Iterable<string>, at: number = Date.now()): void {
  const stmt = statement(db, TOUCH_RUNS);
  for (const batch of idBatches(runIds)) stmt.run(at, batch);
}
