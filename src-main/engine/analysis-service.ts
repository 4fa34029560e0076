/**
 * Glue between the store and the pure analysis engines (scoring, blame,
 * diff, reports): gathers the context they need from the database and keeps
 * blame results stored, recomputing them when the run or the settings change.
 */
import { AUTO_BLAME_MAX_STEPS, type BlameResult, type DiffResult } from '../../src-shared/analysis';
import type { DeferredBlame, RunDetail } from '../../src-shared/model';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CallResult, ReportFormat } from '../../src-shared/api';
import { EngineError } from '../../src-shared/result';
import { isDatabaseFault } from './ingest/import-result';
import { printHtmlToPdf } from '../platform/print-pdf';
import type { HomePaths } from './home';
import type { Db } from './store/open-database';
import { eachStepOf, getRunDetail, resolveRunId, toolStats } from './store/read-runs';
import { historyFor, historySignatureCounts, pipelineHistory, saveRunSignatures, unsignedHistoryRuns, type HistoryRow } from './store/run-signatures';
import { signaturesOf } from './blame/spectrum';
import { termBackground } from './scoring/score-retrieval';
import { jsonText } from './text/json-text';
import { getRunAssertion, setRunAssertion } from './store/run-assertions';
import { stepsOfVersion } from './store/step-counts';
import { openBlameCache } from './store/blame-cache';
import { blameRun } from './blame/index';
import { diffRuns } from './diff/index';
import { renderReport } from './report/index';
import { loadSettings, settingsHash, type Settings } from './scoring/index';

/** Per-call options of blame: an expected answer, and "this run failed" (neither is stored). */
interface BlameOptions {
  expected?: string;
  failed?: boolean;
}

export interface Analysis {
  blame(runIdOrPrefix: string, opts?: BlameOptions): BlameResult;
  /** Stores (or with null clears) the user's assertion about a run and returns the new blame. */
  mark(runIdOrPrefix: string, assertion: { failed: boolean; expected?: string | null; note?: string | null } | null): BlameResult;
  diff(a: string, b: string): DiffResult;
  report(runIdOrPrefix: string, format: ReportFormat): Promise<CallResult<'renderReport'>>;
  /**
   * Recompute stored blame for runs that changed (keeps list filters and the gate current).
   * Runs still being written are skipped: every chunk of a growing run would
   * otherwise repeat a whole-run blame; they are blamed when they end or when asked.
   * So are runs of more than AUTO_BLAME_MAX_STEPS steps, which are returned: they are blamed when asked.
   */
  refresh(runIds: string[]): DeferredBlame[];
  /** The same, REFRESH_BATCH runs at a time with a turn of the event loop between (the engine's imports). */
  refreshInTurns(runIds: string[]): Promise<DeferredBlame[]>;
  settings(): Settings;
  /** What was wrong in the settings file as last read (each ignored, its default used); [] when nothing. */
  settingsProblems(): string[];
}

/** Blame strength of a result: the top finding's score, 0 for a healthy run. */
function blameScoreOf(b: BlameResult): number {
  return b.blamed[0]?.score ?? 0;
}

/** Runs whose blame a refresh stores in one transaction. */
const REFRESH_BATCH = 200;

export interface AnalysisOptions {
  /** AUTO_BLAME_MAX_STEPS unless a test lowers it. */
  autoBlameMaxSteps?: number;
}

/** Other runs of the pipeline (newest, with verdicts) the spectrum rule compares a run with. */
const HISTORY_RUNS = 50;

/**
 * The spectrum context a refresh's runs share, inside its one transaction (blame writes no run, so the runs
 * read stay as read): each pipeline's history rows, read once, and the context made from each distinct
 * history (runs outside their pipeline's newest HISTORY_RUNS all have the same one). Read for every run, they
 * were a fifth of the blame of a file of 16,000 three-step runs.
 */
interface HistoryMemo {
  rows: Map<string, HistoryRow[]>;
  contexts: Map<string, { spectrum: ReturnType<typeof historySignatureCounts>['counts']; background: ReturnType<typeof termBackground> | undefined }>;
}

function newHistoryMemo(): HistoryMemo {
  return { rows: new Map(), contexts: new Map() };
}

export function createAnalysis(db: Db, paths: HomePaths, opts: AnalysisOptions = {}): Analysis {
  const autoBlameMaxSteps = opts.autoBlameMaxSteps ?? AUTO_BLAME_MAX_STEPS;
  // A typo in settings.json must not be silently ignored: the problems of the file as last read are kept
  // for getInfo (the app shows a banner, the CLI one line on stderr).
  let problems: string[] = [];
  const load = () => {
    const found: string[] = [];
    const prefix = `${paths.settings}: `;
    const loaded = loadSettings(paths.settings, (message) => found.push(message.startsWith(prefix) ? message.slice(prefix.length) : message));
    problems = found;
    return loaded;
  };
  let settings = load();
  let hash = settingsHash(settings);
  const cache = openBlameCache(db);

  const reloadSettingsIfChanged = () => {
    const next = load();
    const h = settingsHash(next);
    if (h !== hash) {
      settings = next;
      hash = h;
    }
  };

  // A run with a verdict is history for its pipeline's other runs: its step signatures are stored for their
  // spectrum rule (store/run-signatures.ts), stamped with the run version they were read from.
  // The version is read before the steps: a commit in between (another process) leaves signatures stamped with
  // an older version than they were read from, signed again later, never newer ones taken as current.
  const signRun = (runId: string, read?: { version: number; detail: RunDetail }): void => {
    if (read) return saveRunSignatures(db, runId, read.version, signaturesOf(read.detail.steps));
    const state = cache.runState(runId);
    if (!state) return;
    // Read a step at a time, not loaded whole: a history run may be one too large to blame unasked
    // (AUTO_BLAME_MAX_STEPS), never signed by a blame of its own, and the blame of each small run of its pipeline
    // would otherwise load it.
    saveRunSignatures(db, runId, state.updated_at, signaturesOf(eachStepOf(db, runId)));
  };
  // The spectrum's view of the pipeline's other runs: signature counts and run inputs, not the runs themselves
  // (a blame used to load up to HISTORY_RUNS whole runs). Runs changed since they were signed are signed again.
  // `memo`: what a refresh of many runs shares (HistoryMemo); a blame of its own reads afresh.
  const historyContext = (runId: string, pipeline: string, memo: HistoryMemo = newHistoryMemo()) => {
    let rows = memo.rows.get(pipeline);
    if (!rows) memo.rows.set(pipeline, (rows = pipelineHistory(db, pipeline, HISTORY_RUNS)));
    const history = historyFor(rows, runId, HISTORY_RUNS);
    const key = JSON.stringify([pipeline, ...history.flatMap((r) => [r.run_id, r.updated_at])]);
    const known = memo.contexts.get(key);
    if (known) return known;
    for (const id of unsignedHistoryRuns(db, history)) signRun(id);
    const { counts, inputs } = historySignatureCounts(db, history);
    const context = { spectrum: counts, background: inputs.length > 0 ? termBackground(inputs.map((i) => jsonText(i, 5000))) : undefined };
    memo.contexts.set(key, context);
    return context;
  };

  // The stored assertion, overridden by what this call says (an expected answer given now wins).
  /** `toolTotals`: the store's tool counts, read once for a refresh of many runs (toolStats). */
  const compute = (runId: string, opts: BlameOptions = {}, toolTotals?: ReturnType<typeof toolStats>, memo?: HistoryMemo): BlameResult => {
    const version = cache.runState(runId)?.updated_at;
    const detail = getRunDetail(db, runId);
    if (detail.run.verdict && version !== undefined) signRun(runId, { version, detail });
    const assertion = getRunAssertion(db, runId);
    const expected = opts.expected ?? assertion?.expected ?? undefined;
    const result = blameRun(detail, {
      settings,
      toolStats: toolStats(db, runId, toolTotals, detail.steps),
      ...historyContext(runId, detail.run.pipeline, memo),
      expected,
      asserted: opts.failed ?? assertion?.failed ?? false,
    });
    result.assertion = assertion;
    return result;
  };

  const blame = (idOrPrefix: string, opts: BlameOptions = {}): BlameResult => {
    reloadSettingsIfChanged();
    const runId = resolveRunId(db, idOrPrefix);
    if (opts.expected !== undefined || opts.failed !== undefined) return compute(runId, opts);
    return storedBlame(runId, cache.runState(runId)!.updated_at);
  };

  /** The stored blame of a run at this version, computed and stored when there is none. */
  const storedBlame = (runId: string, updated_at: number, toolTotals?: ReturnType<typeof toolStats>, memo?: HistoryMemo): BlameResult => {
    const cached = cache.read(runId, hash, updated_at);
    if (cached) return JSON.parse(cached) as BlameResult;
    const result = compute(runId, {}, toolTotals, memo);
    cache.write(runId, hash, updated_at, {
      healthy: result.healthy,
      blameScore: blameScoreOf(result),
      detection: result.detection?.status ?? null,
      result: JSON.stringify(result),
    });
    return result;
  };

  /**
   * Stores the blame of runs that changed, in one transaction (a commit for each stored result was most of a big
   * import's refresh), reading the store's tool counts once for all of them (each run's own are taken away).
   */
  const refreshBatch = (runIds: string[], deferred: DeferredBlame[]): void => {
    const storeBatch = db.transaction(() => {
      const toolTotals = toolStats(db);
      const memo = newHistoryMemo();
      for (const id of runIds) {
        const state = cache.runState(id);
        if (!state || state.status === 'running') continue;
        const steps = stepsOfVersion(db, id, state.updated_at);
        if (steps > autoBlameMaxSteps) {
          // A blame asked for at this version stays; one of an older version goes (a run that grew past the
          // limit, e.g. a trace the OTLP receiver adds to, must not keep showing the blame of its smaller self).
          if (!cache.isCurrent(id, hash, state.updated_at)) {
            cache.forget(id);
            deferred.push({ run_id: id, steps });
          }
          continue;
        }
        try {
          db.transaction(() => storedBlame(id, state.updated_at, toolTotals, memo))();
        } catch (err) {
          if (isDatabaseFault(err)) throw err;
          console.error(`[traceback] blame of ${id} failed: ${(err as Error).message}`);
        }
      }
    });
    try {
      storeBatch();
    } catch (err) {
      // The database itself failed (busy, full): these runs are blamed again when next asked.
      console.error(`[traceback] blame of ${runIds.length} run(s) not stored: ${(err as Error).message}`);
    }
  };

  return {
    blame,
    mark: (idOrPrefix, assertion) => {
      const runId = resolveRunId(db, idOrPrefix);
      setRunAssertion(db, runId, assertion === null ? null : { failed: assertion.failed, expected: assertion.expected?.trim() || null, note: assertion.note?.trim() || null });
      return blame(runId);
    },
    diff: (a, b) => {
      reloadSettingsIfChanged();
      const da = getRunDetail(db, a);
      const dbb = getRunDetail(db, b);
      // The stored blame of each run: what the user asserted about it counts in the verdict.
      return diffRuns(da, dbb, { settings, toolStats: toolStats(db) }, { a: blame(da.run.run_id), b: blame(dbb.run.run_id) });
    },
    report: async (idOrPrefix, format) => {
      const detail = getRunDetail(db, idOrPrefix);
      const b = blame(detail.run.run_id);
      const filename = `traceback-${detail.run.run_id.slice(0, 12)}.${format}`;
      if (format !== 'pdf') return { format, content: renderReport(detail, b, format), filename, encoding: 'utf8' };
      // PDF is the HTML report printed by headless Chromium (Electron prints it itself in the app).
      const html = renderReport(detail, b, 'html');
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-report-'));
      try {
        const file = path.join(dir, filename);
        const printed = await printHtmlToPdf(html, file);
        if (!printed.ok) throw new EngineError('unsupported', printed.message);
        return { format, content: fs.readFileSync(file).toString('base64'), filename, encoding: 'base64' };
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
    refresh: (runIds) => {
      reloadSettingsIfChanged();
      const deferred: DeferredBlame[] = [];
      for (let i = 0; i < runIds.length; i += REFRESH_BATCH) refreshBatch(runIds.slice(i, i + REFRESH_BATCH), deferred);
      return deferred;
    },
    refreshInTurns: async (runIds) => {
      const deferred: DeferredBlame[] = [];
      for (let i = 0; i < runIds.length; i += REFRESH_BATCH) {
        // Between batches the event loop answers other calls: 20,000 imported runs take seconds to blame.
        if (i > 0) await new Promise((resolve) => setImmediate(resolve));
        if (!db.open) return deferred;
        reloadSettingsIfChanged();
        refreshBatch(runIds.slice(i, i + REFRESH_BATCH), deferred);
      }
      return deferred;
    },
    settings: () => settings,
    settingsProblems: () => {
      reloadSettingsIfChanged();
      return [...problems];
    },
  };
}
