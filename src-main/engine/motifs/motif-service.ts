/**
 * The motif calls of the API contract, and learning: a confirmed blame
 * (confirmBlame found the root cause) or a verified agent candidate becomes a
 * motif. After every change the store is also written to
 * $TRACEBACK_HOME/motifs.json, the file the SDKs read for pitfalls and the
 * guard (docs/motifs.md §4), so they never need the database.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ApiHandlers } from '../../../src-shared/api';
import type { BlameResult } from '../../../src-shared/analysis';
import type { BlameConfirmation } from '../../../src-shared/experiments';
import type { FailureMotif } from '../../../src-shared/motifs';
import type { HomePaths } from '../home';
import type { Db } from '../store/open-database';
import { getRunDetail } from '../store/read-runs';
import { getExperimentSummary } from '../experiments/summarize-experiment';
import { resolveForkStep } from '../experiments/resolve-fork-step';
import { EngineError } from '../../../src-shared/result';
import type { Json } from '../../../src-shared/trace-format';
import type { Settings } from '../scoring/settings';
import { deriveMotif, type ConfirmedCause } from './derive-motif';
import { motifFileOf, parseMotifFile } from './motif-file';
import { forgetMotif, listMotifs, saveMotif } from './motif-store';
import { seenBefore } from './seen-before';

type MotifHandlers = Pick<ApiHandlers, 'listMotifs' | 'exportMotifs' | 'importMotifs' | 'forgetMotif' | 'seenBefore' | 'learnMotif'>;

export interface MotifService {
  handlers: MotifHandlers;
  /** The root cause a blame confirmation proved, as a motif (null when none was confirmed). */
  learnFromConfirmation(c: BlameConfirmation): FailureMotif | null;
  learn(cause: ConfirmedCause): FailureMotif;
  /** Adds `seen_before` to a failed run's blame. */
  withSeenBefore(b: BlameResult): BlameResult;
  similarTo(runId: string, b: BlameResult): FailureMotif[];
}

export function motifFilePath(paths: HomePaths): string {
  return path.join(paths.home, 'motifs.json');
}

export function createMotifService(db: Db, paths: HomePaths, settings: () => Settings, blame: (runId: string) => BlameResult): MotifService {
  const fileOf = () => {
    const s = settings().motifs;
    return motifFileOf(listMotifs(db), { pitfall: s.pitfall_threshold, guard: s.guard_threshold });
  };
  const writeSdkFile = () => {
    const file = motifFilePath(paths);
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, `${JSON.stringify(fileOf(), null, 2)}\n`);
    fs.renameSync(tmp, file);
  };
  const learn = (cause: ConfirmedCause): FailureMotif => {
    const m = saveMotif(db, deriveMotif(cause));
    writeSdkFile();
    return m;
  };
  const near = (runId: string, b: BlameResult) => {
    const motifs = listMotifs(db);
    // Most users have no motifs: blame then costs nothing more.
    if (motifs.length === 0) return [];
    const s = settings().motifs;
    return seenBefore(getRunDetail(db, runId), b, motifs, { minSimilarity: s.seen_before_min_similarity, max: s.seen_before_max });
  };
  return {
    learn,
    learnFromConfirmation(c) {
      const root = c.candidates.find((x) => x.step_id === c.root_cause_step_id && x.confirmed);
      if (!root) return null;
      const source = getRunDetail(db, c.run_id);
      const reference = getRunDetail(db, c.reference_run_id);
      const step = source.steps.find((s) => s.step_id === root.step_id);
      const donor = reference.steps.find((s) => s.replay_key === step?.replay_key);
      if (!step || !donor || donor.output === null) return null;
      const experiment = root.experiment_id ? getExperimentSummary(db, root.experiment_id) : null;
      return learn({ source, step, fixedOutput: donor.output, blame: blame(c.run_id), experiment, origin: 'blame' });
    },
    withSeenBefore(b) {
      if (b.healthy) return b;
      return { ...b, seen_before: near(b.run_id, b) };
    },
    similarTo(runId, b) {
      const ids = new Set(near(runId, b).map((s) => s.motif_id));
      return listMotifs(db).filter((m) => ids.has(m.motif_id));
    },
    handlers: {
      listMotifs: () => listMotifs(db),
      exportMotifs: () => fileOf(),
      importMotifs: (a) => {
        const known = new Set(listMotifs(db).map((m) => m.motif_id));
        let added = 0;
        for (const m of parseMotifFile(a.content, a.name)) {
          // Never overwrites a motif learned here (a file naming a local id would replace what this
          // machine proved), and a file's motif is always "imported", whatever origin it claims.
          if (known.has(m.motif_id)) continue;
          added++;
          saveMotif(db, { ...m, origin: 'imported' });
        }
        writeSdkFile();
        return { added, total: listMotifs(db).length };
      },
      forgetMotif: (a) => {
        const m = forgetMotif(db, a.motifId);
        writeSdkFile();
        return m;
      },
      learnMotif: (a) => {
        const source = getRunDetail(db, a.runId);
        const step = resolveForkStep(source, a.at);
        const b = blame(source.run.run_id);
        if (b.healthy) throw new EngineError('bad_request', `run ${source.run.run_id} looks healthy: there is no failure to learn from`);
        return learn({ source, step, fixedOutput: a.output as Json, blame: b, experiment: null, origin: 'blame' });
      },
      seenBefore: (a) => {
        const b = blame(a.runId);
        return b.healthy ? [] : near(b.run_id, b);
      },
    },
  };
}
