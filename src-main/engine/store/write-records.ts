/**
 * Applies record patches to SQLite with upserts that keep the same rules as
 * importer/rows.ts (the in-memory fold): fields overwrite only when present,
 * finished statuses are never downgraded, metadata and extra merge with
 * json_patch. Callers wrap calls in a transaction.
 */
import type { TraceRecord } from '../../../src-shared/trace-format';
import { patchesFor } from '../importer/record-patches';
import { UNKNOWN_PIPELINE } from '../importer/rows';
import type { Db } from './open-database';

const MERGE = (col: string, param: string) =>
  `CASE WHEN ${param} IS NULL THEN ${col} WHEN ${col} IS NULL THEN json_patch('{}', ${param}) ELSE json_patch(${col}, ${param}) END`;
const STATUS = (col: string) =>
  `CASE WHEN @status IS NULL THEN ${col} WHEN ${col} IN ('ok','error') AND @status NOT IN ('ok','error') THEN ${col} ELSE @status END`;

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
  updated_at = @now`;

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

const SCORE_UPSERT = `
INSERT INTO user_scores (run_id, step_id, name, value, explanation) VALUES (@run_id, @step_id, @name, @value, @explanation)
ON CONFLICT(run_id, step_id, name) DO UPDATE SET value = excluded.value, explanation = excluded.explanation`;

const RUN_COLUMNS = ['pipeline', 'status', 'started_at', 'ended_at', 'input', 'output', 'error', 'verdict', 'tags', 'entry', 'provenance', 'sdk', 'source_format', 'extra'] as const;

export interface RecordWriter {
  /** Applies one record; returns names of fields stored truncated. */
  apply(record: TraceRecord, sourceFile: string | null): string[];
  /** Runs touched since the writer was created. */
  touchedRuns(): Set<string>;
}

export function createRecordWriter(db: Db, now: () => number = Date.now): RecordWriter {
  const runUpsert = db.prepare(RUN_UPSERT);
  const stepUpsert = db.prepare(STEP_UPSERT);
  const scoreUpsert = db.prepare(SCORE_UPSERT);
  const touched = new Set<string>();
  // Runs this writer already made sure exist; step records then skip the run upsert.
  const ensured = new Set<string>();
  return {
    apply(record, sourceFile) {
      const p = patchesFor(record);
      const t = now();
      const fallbackTs = 'ts' in record && typeof record.ts === 'number' ? record.ts : t;
      if (p.run || !ensured.has(record.run_id)) {
        const params: Record<string, unknown> = { run_id: record.run_id, fallback_ts: fallbackTs, now: t, source_file: sourceFile };
        for (const c of RUN_COLUMNS) params[c] = (p.run as Record<string, unknown> | undefined)?.[c] ?? null;
        runUpsert.run(params);
        ensured.add(record.run_id);
      }
      touched.add(record.run_id);
      if (p.step) {
        const s = p.step;
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
      }
      if (p.score) scoreUpsert.run(p.score);
      return p.truncated;
    },
    touchedRuns: () => touched,
  };
}

/** Marks runs as touched now, so "running" vs "incomplete" and cached analyses see the change. */
export function touchRuns(db: Db, runIds: Iterable<string>, at: number = Date.now()): void {
  const stmt = db.prepare('UPDATE runs SET updated_at = ? WHERE run_id = ?');
  for (const id of runIds) stmt.run(at, id);
}
