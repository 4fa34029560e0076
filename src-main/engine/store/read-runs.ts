/**
 * Read queries of the store. All SQL uses bound parameters; the two hot
 * queries (runs list, steps of a run) are covered by indexes checked in
 * read-runs.test.ts with EXPLAIN QUERY PLAN.
 */
import type { ImportError, Run, RunDetail, RunSummary, Step } from '../../../src-shared/model';
import { ownValue, setOwn } from '../../../src-shared/own-property';
import type { RunFilter } from '../../../src-shared/api';
import { EngineError } from '../../../src-shared/result';
import { runFromRow, stepFromRow, displayStatus, RUNNING_GRACE_MS, type RunRow, type ScoreRow, type StepRow } from './rows';
import type { Db, ReadableDb } from './open-database';
import { catchUpStepCounts } from './step-counts';
import { catchUpUnlessBusy } from './catch-up-marks';
import { catchUpStepText, stepTextQuery } from './step-text-index';
import { runOrigin } from './run-origin';
import { breakParentCycles } from './parent-cycles';
import { importProblemCounts } from './import-files';
import { statement } from './statement-cache';

const LIKE_IN_STEPS = `EXISTS (SELECT 1 FROM steps s WHERE s.run_id = r.run_id
  AND (s.name LIKE @search ESCAPE '\\' OR s.input LIKE @search ESCAPE '\\' OR s.output LIKE @search ESCAPE '\\' OR s.error LIKE @search ESCAPE '\\'))`;

/**
 * Step text through the index (step-text-index.ts): a run indexed at its current
 * version matches if one of its documents does (checked with LIKE unless query and
 * document are both plain); a run not indexed at its current version is scanned.
 * The hits are tried first, through a lookup of (run, version) in text_hits: a
 * search that most runs match then needs no second lookup per run to tell
 * whether the run is indexed (issue 14: ~6 ms CPU less for 10,000 runs all hit,
 * 91.5 → 85.8 ms, min of 15 alternating runs on the bench store).
 */
const INDEXED_STEP_TEXT = `CASE
  WHEN (r.run_id, r.updated_at, 1) IN (SELECT run_id, version, plain * @plain FROM text_hits) THEN 1
  WHEN (r.run_id, r.updated_at) IN (SELECT run_id, version FROM text_hits) THEN ${LIKE_IN_STEPS}
  WHEN EXISTS (SELECT 1 FROM step_text_runs d WHERE d.run_id = r.run_id AND d.version = r.updated_at) THEN 0
  ELSE ${LIKE_IN_STEPS} END`;

const TEXT_HITS = `WITH text_hits AS MATERIALIZED (
  SELECT d.run_id, d.version, d.plain FROM step_text JOIN step_text_runs d ON d.doc = step_text.rowid WHERE step_text MATCH @match)`;

function listRunsSql(stepText: string): string {
  return `
SELECT r.run_id, r.pipeline, r.status, r.started_at, r.ended_at, r.verdict, r.source_format, r.provenance IS NOT NULL AS forked, r.updated_at,
       CASE WHEN c.version = r.updated_at THEN c.steps ELSE (SELECT COUNT(*) FROM steps s WHERE s.run_id = r.run_id) END AS steps,
       b.blame_score, b.healthy, b.detection,
       EXISTS (SELECT 1 FROM run_assertions a WHERE a.run_id = r.run_id AND a.failed = 1) AS asserted, r.source_file
FROM runs r LEFT JOIN blame_results b ON b.run_id = r.run_id LEFT JOIN run_step_counts c ON c.run_id = r.run_id
WHERE (@pipeline IS NULL OR r.pipeline = @pipeline)
  AND (@include_trials = 1 OR @filter = 'forked' OR r.provenance IS NULL)
  AND (@search IS NULL OR r.pipeline LIKE @search ESCAPE '\\' OR r.run_id LIKE @search ESCAPE '\\' OR ${stepText})
  AND (@filter = 'all'
       OR (@filter = 'failed' AND (r.status = 'error' OR json_extract(r.verdict, '$.pass') = 0 OR b.healthy = 0))
       OR (@filter = 'blamed' AND b.healthy = 0)
       OR (@filter = 'healthy' AND b.healthy = 1 AND coalesce(b.detection, 'healthy') = 'healthy')
       OR (@filter = 'running' AND r.status = 'running' AND r.updated_at >= @running_since)
       OR (@filter = 'forked' AND r.provenance IS NOT NULL)
       OR (@filter = 'imported' AND r.source_format <> 'native'))
ORDER BY r.started_at DESC
LIMIT @limit`;
}

/** The runs list without a search, or with one answered by scanning every step (see stepTextQuery for when). */
export const LIST_RUNS_SQL = listRunsSql(LIKE_IN_STEPS);
/** The runs list with a search answered through the step text index. */
export const LIST_RUNS_INDEXED_SQL = `${TEXT_HITS}${listRunsSql(INDEXED_STEP_TEXT)}`;
/** The same for a short search that starts no trigram of the index: only runs not indexed yet are scanned. */
const LIST_RUNS_NO_TEXT_HITS_SQL = `WITH text_hits (run_id, version, plain) AS MATERIALIZED (SELECT NULL, NULL, NULL WHERE 0)${listRunsSql(INDEXED_STEP_TEXT)}`;
/**
 * How long a search may spend indexing runs changed since the last one. The
 * rest stay searched by scanning until a later search indexes them. About
 * 17,000 steps of the benchmark's runs (11.6 µs a step, bench/store-at-size.ts).
 */
const SEARCH_CATCH_UP_MS = 200;

export const STEPS_OF_RUN_SQL = 'SELECT * FROM steps WHERE run_id = ? ORDER BY idx, started_at';

/**
 * A runs-list row as the statement returns it: an array (raw()), in the order of
 * listRunsSql's columns. Named objects took ~16 ms more for 10,000 rows (38 vs
 * 22 ms of the statement alone, bench store), built only to be copied; the
 * provenance (JSON text) comes as whether there is one, all the list shows.
 */
type ListRow = [
  run_id: string,
  pipeline: string,
  status: RunRow['status'],
  started_at: number,
  ended_at: number | null,
  verdict: string | null,
  source_format: string,
  forked: number,
  updated_at: number,
  steps: number,
  blame_score: number | null,
  healthy: number | null,
  detection: RunSummary['detection'],
  asserted: number,
  source_file: string | null,
];

export interface ListRunsQuery {
  filter?: RunFilter;
  search?: string;
  pipeline?: string;
  limit?: number;
  includeTrials?: boolean;
}

function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The runs list (`tb list`, the UI's run list). It brings the derived tables it
 * reads up to date first (step counts; the text index when searching), so it
 * needs a writable handle; while another connection writes it skips that.
 */
export function listRuns(db: Db, q: ListRunsQuery = {}, now = Date.now()): RunSummary[] {
  catchUpUnlessBusy(db, () => catchUpStepCounts(db));
  const text = q.search?.trim() || null;
  if (text !== null && !text.includes('\u0000')) catchUpUnlessBusy(db, () => catchUpStepText(db, { budgetMs: SEARCH_CATCH_UP_MS }));
  const indexed = text === null ? null : stepTextQuery(db, text);
  const sql = indexed === null ? LIST_RUNS_SQL : indexed.match === null ? LIST_RUNS_NO_TEXT_HITS_SQL : LIST_RUNS_INDEXED_SQL;
  const rows = db.prepare(sql).raw().all({
    ...(indexed ? { plain: indexed.plain ? 1 : 0, ...(indexed.match === null ? {} : { match: indexed.match }) } : {}),
    pipeline: q.pipeline ?? null,
    search: text === null ? null : likePattern(text),
    filter: q.filter ?? 'all',
    // Fork trials belong to their experiment: listed only when asked for (or under the "forked" filter).
    include_trials: q.includeTrials ? 1 : 0,
    running_since: now - RUNNING_GRACE_MS,
    limit: q.limit ?? 10_000,
  }) as ListRow[];
  const problemsOf = importProblemCounts(db);
  return rows.map(([run_id, pipeline, status, started_at, ended_at, verdict, source_format, forked, updated_at, steps, blame_score, healthy, detection, asserted, source_file]) => ({
    run_id,
    pipeline,
    status: displayStatus({ status, updated_at }, now),
    steps,
    started_at,
    duration_ms: ended_at === null ? null : Math.max(0, ended_at - started_at),
    verdict: verdict === null ? null : JSON.parse(verdict),
    source_format,
    forked: forked === 1,
    blame_score,
    healthy: healthy === null ? null : healthy === 1,
    detection: detection ?? null,
    asserted: asserted === 1,
    import_problems: problemsOf(run_id, source_file),
  }));
}

/** A full id or a unique prefix → the full id; errors name what went wrong. */
export function resolveRunId(db: ReadableDb, idOrPrefix: string): string {
  const exact = statement(db, 'SELECT run_id FROM runs WHERE run_id = ?').get(idOrPrefix) as { run_id: string } | undefined;
  if (exact) return exact.run_id;
  const matches = db
    .prepare(`SELECT run_id FROM runs WHERE run_id LIKE ? ESCAPE '\\' ORDER BY run_id LIMIT 6`)
    .all(`${idOrPrefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`) as { run_id: string }[];
  if (matches.length === 1) return matches[0].run_id;
  if (matches.length === 0) throw new EngineError('not_found', `no run matches "${idOrPrefix}"`);
  throw new EngineError('ambiguous', `"${idOrPrefix}" matches several runs: ${matches.slice(0, 5).map((m) => m.run_id).join(', ')}${matches.length > 5 ? ', …' : ''}`);
}

/**
 * A run's own fields (with its origin and run-level scores) and its steps' user scores by step
 * id: what getRun and the paged reads (read-run-pages.ts) both start from.
 */
export function readRunHead(db: ReadableDb, runId: string, stepCount: number, now: number): { run: Run; scoresByStep: Map<string, ScoreRow[]> } {
  const row = statement(db, 'SELECT * FROM runs WHERE run_id = ?').get(runId) as RunRow;
  const scores = statement(db, 'SELECT * FROM user_scores WHERE run_id = ?').all(runId) as ScoreRow[];
  const scoresByStep = new Map<string, ScoreRow[]>();
  for (const s of scores) {
    const list = scoresByStep.get(s.step_id);
    if (list) list.push(s);
    else scoresByStep.set(s.step_id, [s]);
  }
  const run = runFromRow(row, stepCount, now, scoresByStep.get('') ?? []);
  run.origin = runOrigin(db, row);
  return { run, scoresByStep };
}

export function getRunDetail(db: ReadableDb, idOrPrefix: string, now = Date.now()): RunDetail {
  const runId = resolveRunId(db, idOrPrefix);
  const stepRows = statement(db, STEPS_OF_RUN_SQL).all(runId) as StepRow[];
  const { run, scoresByStep: byStep } = readRunHead(db, runId, stepRows.length, now);
  const steps = stepRows.map((s) => stepFromRow(s, byStep.get(s.step_id) ?? []));
  // Parents that form a cycle would send every tree walk round forever: one link per cycle is cut here.
  const cut = breakParentCycles(steps);
  if (cut.length) run.extra = { ...run.extra, $parent_cycles_broken: cut.slice(0, 100) };
  return { run, steps };
}

/**
 * A run's steps one at a time, each let go once the next is read (no user scores, no parent-cycle cut): what a
 * pass over every step needs of a run too large to hold whole (the spectrum's signatures of a history run that is
 * not blamed unasked; analysis-service.ts). Its own statement: a cached one would be busy for a nested read.
 */
export function* eachStepOf(db: ReadableDb, runId: string): Generator<Step> {
  for (const row of db.prepare(STEPS_OF_RUN_SQL).iterate(runId) as IterableIterator<StepRow>) yield stepFromRow(row, []);
}

export function listImportErrors(db: ReadableDb, limit = 500): ImportError[] {
  return db
    .prepare('SELECT path AS file, line, level, message FROM import_errors ORDER BY created_at DESC, id DESC LIMIT ?')
    .all(limit) as ImportError[];
}

type ToolCounts = Record<string, { calls: number; failures: number }>;

function toolCounts(db: ReadableDb, oneRun: string | null): ToolCounts {
  const rows = statement(db, `SELECT name, COUNT(*) AS calls, SUM(status = 'error') AS failures FROM steps WHERE type = 'tool'${oneRun === null ? '' : ' AND run_id = ?'} GROUP BY name`)
    .all(...(oneRun === null ? [] : [oneRun])) as { name: string; calls: number; failures: number }[];
  return Object.fromEntries(rows.map((r) => [r.name, { calls: r.calls, failures: r.failures }]));
}

type RunStepOutcome = Pick<Step, 'type' | 'name' | 'status'>;

/** toolCounts of one run from its steps already read (`runSteps` of toolStats): the same counts, no statement. */
function toolCountsOf(steps: readonly RunStepOutcome[]): ToolCounts {
  const own: ToolCounts = {};
  for (const s of steps) {
    if (s.type !== 'tool') continue;
    let c = ownValue(own, s.name);
    if (!c) setOwn(own, s.name, (c = { calls: 0, failures: 0 }));
    c.calls += 1;
    if (s.status === 'error') c.failures += 1;
  }
  return own;
}

/**
 * Calls and failures per tool name across the store, for the tool scorer's historical failure rate, without
 * `excludeRunId`'s own. `storeTotals` (the store's counts, toolStats(db) read once) saves the scan of every
 * tool step: blaming each of 20,000 imported runs scanned them all for each, which made a refresh quadratic.
 */
export function toolStats(db: ReadableDb, excludeRunId?: string, storeTotals: ToolCounts = toolCounts(db, null), runSteps?: readonly RunStepOutcome[]): ToolCounts {
  if (excludeRunId === undefined) return storeTotals;
  const own = runSteps ? toolCountsOf(runSteps) : toolCounts(db, excludeRunId);
  const out: [string, { calls: number; failures: number }][] = [];
  for (const [name, total] of Object.entries(storeTotals)) {
    const mine = Object.hasOwn(own, name) ? own[name] : undefined;
    const calls = total.calls - (mine?.calls ?? 0);
    if (calls > 0) out.push([name, { calls, failures: total.failures - (mine?.failures ?? 0) }]);
  }
  return Object.fromEntries(out);
}
