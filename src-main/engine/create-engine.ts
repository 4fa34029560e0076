/**
 * The engine: one object that owns the database, the inbox watcher and the
 * analysis engines, and implements the API contract's handlers. Electron's
 * worker, `tb serve` and the CLI all host this same object.
 */
import type { ApiHandlers, CallArgs, CallName, CallResult } from '../../src-shared/api';
import { callSchemas } from '../../src-shared/api';
import { EngineError, type Result } from '../../src-shared/result';
import type { DeferredBlame } from '../../src-shared/model';
import { EventHub } from './event-hub';
import { ensureHome, homePaths, type HomePaths } from './home';
import { importPathsAsync } from './ingest/import-paths';
import { watchInbox, type InboxWatcher } from './ingest/watch-inbox';
import { startIdleCatchUp } from './idle-catch-up';
import { closeDatabase, openDatabase, type Db } from './store/open-database';
import { getRunDetail, listImportErrors, listRuns, resolveRunId } from './store/read-runs';
import { countSteps } from './store/step-counts';
import { importProblemsOfRun } from './store/import-files';
import { createAnalysis, type Analysis, type AnalysisOptions } from './analysis-service';
import { createExperimentService, recoverExperiments } from './experiments/experiment-service';
import { exportOtlp } from './ingest/foreign/index';
import { createMotifService } from './motifs/motif-service';
import { createExplainService } from './explain/explain-service';
import { getStepPayloads } from './store/read-run-pages';
import { createSkeletonCache } from './store/skeleton-cache';
import { withNotableStepScores } from './notable-scores';
import { findStepsInRun } from './store/find-in-run';

const ENGINE_VERSION = '0.1.0';

export interface EngineOptions {
  home?: string;
  /** Watch the inbox (app and `tb serve`); the CLI's one-shot commands do not. */
  watch?: boolean;
  nativeBinding?: string;
  /** Passed to the analysis (AnalysisOptions): a test lowers the size of the largest run blamed unasked. */
  analysis?: AnalysisOptions;
}

export interface Engine {
  paths: HomePaths;
  db: Db;
  events: EventHub;
  handlers: ApiHandlers;
  analysis: Analysis;
  /** Validates arguments, runs the handler, and wraps the outcome as a Result. */
  call<K extends CallName>(name: K, args: unknown): Promise<Result<CallResult<K>>>;
  watcher: InboxWatcher | null;
  close(): Promise<void>;
}

export function createEngine(opts: EngineOptions = {}): Engine {
  const paths = homePaths(opts.home);
  ensureHome(paths);
  const db = openDatabase(paths.database, { nativeBinding: opts.nativeBinding });
  const events = new EventHub();
  const skeletons = createSkeletonCache(db);
  /** Imports in progress (importPaths), for cancelImport. */
  const imports = new Set<AbortController>();
  const analysis = createAnalysis(db, paths, opts.analysis);
  // A long-lived engine builds the derived tables while idle; a one-shot `tb` command leaves them to reads.
  const idle = opts.watch ? startIdleCatchUp(db) : null;
  // Runs written while the engine was not running (`tb import`, a migration that dropped the index).
  idle?.poke();
  // Also after an import that changed no run: it may have left a checkpoint owed (store/bulk-write.ts).
  const importEnded = () => idle?.poke();
  // Blame of the changed runs is stored first (the list's filters and the gate read it), in turns: other calls
  // are answered meanwhile. Then the renderer is told.
  const refreshRuns = async (runIds: string[]): Promise<DeferredBlame[]> => {
    const deferred = await analysis.refreshInTurns(runIds);
    if (!db.open) return deferred;
    events.emit('data-changed', { runIds });
    idle?.poke();
    return deferred;
  };
  const runsChanged = (runIds: string[]): void => {
    refreshRuns(runIds).catch((err: unknown) => console.error(`[traceback] refresh after an import failed: ${(err as Error).message}`));
  };
  recoverExperiments(db);
  const experiments = createExperimentService({ db, paths, onProgress: (p) => events.emit('experiment-progress', p), onRunsChanged: runsChanged, blame: (id) => analysis.blame(id) });
  const motifs = createMotifService(db, paths, () => analysis.settings(), (id) => analysis.blame(id));
  const explain = createExplainService({ db, settings: () => analysis.settings(), blame: (id) => analysis.blame(id), motifs, startExperiment: experiments.handlers.startExperiment });

  const handlers: ApiHandlers = {
    listRuns: (a) => listRuns(db, a),
    getRun: (a) => {
      if (a.maxSteps !== undefined) {
        const id = resolveRunId(db, a.runId);
        const n = countSteps(db, id);
        if (n > a.maxSteps) throw new EngineError('unsupported', `run ${id} has ${n} steps, more than ${a.maxSteps}: read it with getRunSkeleton and getStepPayloads`);
      }
      return getRunDetail(db, a.runId);
    },
    getRunSkeleton: (a) => skeletons.get(a.runId),
    getStepPayloads: (a) => getStepPayloads(db, a.runId, a),
    findSteps: (a) => findStepsInRun(db, a.runId, a.query, a.limit),
    // Big OTLP/JSON files stream with turns to the event loop: other calls are answered meanwhile.
    importPaths: async (a) => {
      const controller = new AbortController();
      imports.add(controller);
      try {
        const r = await importPathsAsync(db, a.paths, { signal: controller.signal, onProgress: (p) => events.emit('import-progress', p) });
        const deferred = r.changedRuns.length ? await refreshRuns(r.changedRuns) : [];
        if (r.errors.length) events.emit('import-errors', { errors: r.errors });
        return { imported: r.imported, errors: r.errors, blame_deferred: deferred };
      } finally {
        imports.delete(controller);
        importEnded();
      }
    },
    cancelImport: () => {
      const cancelled = imports.size;
      for (const c of imports) c.abort();
      return { cancelled };
    },
    listImportErrors: (a) => (a.runId ? importProblemsOfRun(db, resolveRunId(db, a.runId), a.limit) : listImportErrors(db, a.limit)),
    blameRun: (a) => {
      const result = motifs.withSeenBefore(analysis.blame(a.runId, { expected: a.expected, failed: a.failed }));
      return a.stepScores === 'notable' ? withNotableStepScores(result) : result;
    },
    markRun: (a) => {
      const result = analysis.mark(a.runId, a.clear ? null : { failed: a.failed, expected: a.expected ?? null, note: a.note ?? null });
      events.emit('data-changed', { runIds: [result.run_id] });
      return result;
    },
    diffRuns: (a) => analysis.diff(a.runA, a.runB),
    renderReport: (a) => analysis.report(a.runId, a.format),
    exportRun: (a) => {
      const detail = getRunDetail(db, a.runId);
      return { format: a.format, content: JSON.stringify(exportOtlp(detail), null, 2), filename: `${detail.run.run_id}.otlp.json` };
    },
    getInfo: () => ({
      home: paths.home,
      database: paths.database,
      inbox: paths.inbox,
      version: ENGINE_VERSION,
      watching: watcher !== null,
      settings_file: paths.settings,
      settings_problems: analysis.settingsProblems(),
    }),
    ...experiments.handlers,
    // A confirmed root cause is remembered as a failure motif (docs/motifs.md).
    confirmBlame: async (a) => {
      const confirmation = await experiments.handlers.confirmBlame(a);
      motifs.learnFromConfirmation(confirmation);
      return confirmation;
    },
    getStepScores: (a) => {
      const wanted = new Set(a.stepIds);
      return analysis.blame(a.runId).step_scores.filter((s) => wanted.has(s.step_id));
    },
    ...motifs.handlers,
    ...explain.handlers,
  };

  const watcher = opts.watch
    ? watchInbox(db, paths.inbox, {
        onRunsChanged: runsChanged,
        onErrors: (errors) => events.emit('import-errors', { errors }),
        onProgress: (p) => events.emit('import-progress', p),
        track: (controller) => {
          imports.add(controller);
          return () => {
            imports.delete(controller);
            importEnded();
          };
        },
      })
    : null;

  return {
    paths,
    db,
    events,
    handlers,
    analysis,
    watcher,
    call: (name, args) => {
      idle?.busy();
      return invokeHandler(handlers, name, args);
    },
    close: async () => {
      idle?.stop();
      await experiments.close();
      await watcher?.close();
      // Stamps the file as verified, so the next open can skip quick_check if nothing touched it since.
      closeDatabase(db);
    },
  };
}

/** The one place arguments are validated and errors become Results, for every transport. */
async function invokeHandler<K extends CallName>(handlers: ApiHandlers, name: K, args: unknown): Promise<Result<CallResult<K>>> {
  const parsed = callSchemas[name].safeParse(args ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? ` at "${issue.path.join('.')}"` : '';
    return { ok: false, error: { code: 'bad_request', message: `invalid arguments for ${name}${where}: ${issue?.message ?? 'malformed'}` } };
  }
  try {
    const handler = handlers[name] as (a: CallArgs<K>) => CallResult<K> | Promise<CallResult<K>>;
    return { ok: true, value: await handler(parsed.data as CallArgs<K>) };
  } catch (err) {
    if (err instanceof EngineError) return { ok: false, error: { code: err.code, message: err.message } };
    return { ok: false, error: { code: 'internal', message: (err as Error).message ?? String(err) } };
  }
}
