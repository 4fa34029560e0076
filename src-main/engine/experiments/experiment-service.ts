/**
 * The experiment calls of the API contract, over one engine's database and
 * home. The engine spreads `handlers` into its ApiHandlers, calls
 * `recoverExperiments(db)` once at start, and `close()` when it closes (which
 * cancels what is still running, so no trial outlives its engine).
 */
import type { ApiHandlers } from '../../../src-shared/api';
import type { BlameResult } from '../../../src-shared/analysis';
import type { ExperimentProgress, ExperimentSummary } from '../../../src-shared/experiments';
import { EngineError } from '../../../src-shared/result';
import type { HomePaths } from '../home';
import type { Db } from '../store/open-database';
import { getRunDetail, resolveRunId } from '../store/read-runs';
import { confirmBlame } from './confirm-blame';
import { readExperiment } from '../store/experiments';
import { getExperimentDetail, getExperimentSummary, listExperiments } from './summarize-experiment';
import { prepareExperiment, startExperiment, type RunningExperiment } from './run-experiment';

export { recoverExperiments } from './recover-experiments';

type ExperimentHandlers = Pick<
  ApiHandlers,
  'estimateExperiment' | 'startExperiment' | 'listExperiments' | 'getExperiment' | 'cancelExperiment' | 'confirmBlame'
>;

export interface ExperimentServiceDeps {
  db: Db;
  paths: HomePaths;
  onProgress?: (p: ExperimentProgress) => void;
  onRunsChanged?: (runIds: string[]) => void;
  blame: (runId: string) => BlameResult;
}

export interface ExperimentService {
  handlers: ExperimentHandlers;
  /** Cancels running experiments and waits for them to record it. */
  close(): Promise<void>;
}

export function createExperimentService(deps: ExperimentServiceDeps): ExperimentService {
  const { db } = deps;
  const host = { db, paths: deps.paths, onProgress: deps.onProgress, onRunsChanged: deps.onRunsChanged };
  const running = new Map<string, RunningExperiment>();
  const lastShown = new Map<string, string>();
  const track = (r: RunningExperiment) => {
    running.set(r.experimentId, r);
    void r.done.finally(() => running.delete(r.experimentId)).catch(() => {});
  };

  const handlers: ExperimentHandlers = {
    estimateExperiment: (a) => {
      const source = getRunDetail(db, a.runId);
      const { estimate } = prepareExperiment(db, { source, at: a.at, edit: a.edit, n: a.n, env: a.env }, deps.paths);
      // What this engine showed: Start with `approve` alone is bound to exactly this (run content included).
      if (estimate.approval) lastShown.set(source.run.run_id, estimate.approval.sha);
      return estimate;
    },
    startExperiment: async (a) => {
      const r = startExperiment(host, {
        source: getRunDetail(db, a.runId),
        at: a.at,
        edit: a.edit,
        n: a.n,
        parallel: a.parallel,
        timeoutMs: a.timeoutS === undefined ? undefined : Math.round(a.timeoutS * 1000),
        oracle: a.oracle,
        maxTrials: a.maxTrials,
        tokenCeiling: a.tokenCeiling,
        label: a.label,
        approve: a.approve,
        approvedSha: a.approvedCommand,
        lastShownSha: lastShown.get(resolveRunId(db, a.runId)),
        env: a.env,
        clopperPearson: a.clopperPearson,
      });
      track(r);
      if (a.wait) return r.done;
      return getExperimentSummary(db, r.experimentId);
    },
    listExperiments: (a) => listExperiments(db, { runId: a.runId ? resolveRunId(db, a.runId) : undefined, limit: a.limit }),
    getExperiment: (a) => getExperimentDetail(db, a.experimentId),
    cancelExperiment: async (a): Promise<ExperimentSummary> => {
      const e = readExperiment(db, a.experimentId);
      const r = running.get(e.experiment_id);
      if (!r) {
        if (e.status === 'running') throw new EngineError('conflict', `experiment ${e.experiment_id} is run by another process (pid ${e.runner_pid}); cancel it there`);
        return getExperimentSummary(db, e.experiment_id);
      }
      r.cancel();
      return r.done;
    },
    confirmBlame: (a) =>
      confirmBlame(
        host,
        {
          source: getRunDetail(db, a.runId),
          reference: a.referenceRunId ? getRunDetail(db, a.referenceRunId) : undefined,
          candidates: a.candidates,
          maxCandidates: a.maxCandidates,
          scope: a.scope,
          n: a.n,
          parallel: a.parallel,
          timeoutMs: a.timeoutS === undefined ? undefined : Math.round(a.timeoutS * 1000),
          approve: a.approve,
          approvedSha: a.approvedCommand,
          env: a.env,
          onExperiment: track,
        },
        () => deps.blame(a.runId),
      ),
  };

  return {
    handlers,
    close: async () => {
      const all = [...running.values()];
      for (const r of all) r.cancel();
      await Promise.allSettled(all.map((r) => r.done));
    },
  };
}
