import { useCallback, useMemo, useState } from 'react';
import { AUTO_BLAME_MAX_STEPS, type BlameResult } from '../../../src-shared/analysis';
import type { RunDetail, RunSummary } from '../../../src-shared/model';
import { useEngineQuery, useQueryCache } from '../api/use-engine-query';
import { buildStepTree, defaultExpanded, holdsFailure, isExpanded, type StepTree } from '../graph/step-tree';
import { indexBlame, type BlameIndex } from '../graph/step-look';
import { act, openRun, useUi } from '../state/ui-store';
import { CHILD_PAGE } from '../graph/graph-constants';
import type { ApiError } from '../../../src-shared/result';
import { PAGED_ABOVE } from './paged-run';
import { detailFromSkeleton, parentPositions } from '../../../src-shared/run-skeleton';

/** Above this many steps a run opens as an outline (see defaultExpanded). */
const OPEN_BUDGET = 150;

export interface RunModel {
  detail: RunDetail | undefined;
  /** The run was read as a skeleton (over PAGED_ABOVE steps): step payloads come one step at a time. */
  paged: boolean;
  detailError: ApiError | null;
  blame: BlameResult | undefined;
  blameError: ApiError | null;
  blameLoading: boolean;
  /**
   * The run's step count when it is too large to blame unasked (AUTO_BLAME_MAX_STEPS) and has no stored blame the
   * runs list showed: its blame waits for `askBlame` (a blame holds the whole run in the engine's memory).
   */
  blameDeferred: number | null;
  askBlame: () => void;
  tree: StepTree | null;
  /** Steps holding a failed step below them (the list and waterfall mark them). */
  holding: Set<string>;
  blameIndex: BlameIndex;
  pinned: Set<string>;
  expanded: (id: string) => boolean;
}

/**
 * Opens a run from the runs list: a run the list shows as read in parts has its skeleton asked for in the
 * click itself, not once the workbench has mounted and subscribed (30–80 ms later, measured under load).
 */
export function useOpenListedRun(): (run: RunSummary) => void {
  const cache = useQueryCache();
  return useCallback(
    (run: RunSummary) => {
      if (run.steps > PAGED_ABOVE) cache.prefetch('getRunSkeleton', { runId: run.run_id });
      act(openRun, run.run_id);
    },
    [cache],
  );
}

export function useRunModel(runId: string, selected: string | null): RunModel {
  // Whole, unless the engine says the run is over PAGED_ABOVE steps: then its skeleton, and payloads on demand.
  // A run the runs list already showed as that big asks for its skeleton at once, without getRun's refusal
  // first: one round trip less (30–50 ms measured on a 100,000-step open). A skeleton is right for any size.
  const cache = useQueryCache();
  const listedBig = useMemo(() => cache.answers('listRuns').some((runs) => runs.some((r) => r.run_id === runId && r.steps > PAGED_ABOVE)), [cache, runId]);
  const whole = useEngineQuery('getRun', listedBig ? null : { runId, maxSteps: PAGED_ABOVE });
  const paged = listedBig || whole.error?.code === 'unsupported';
  const skeleton = useEngineQuery('getRunSkeleton', paged ? { runId } : null);
  const pagedDetail = useMemo(() => (paged && skeleton.data ? detailFromSkeleton(skeleton.data) : undefined), [paged, skeleton.data]);
  const detail = { data: paged ? pagedDetail : whole.data, error: paged ? skeleton.error : whole.error };
  // Blame is asked once the steps are here: the engine answers calls in order, and a first blame of a big
  // run (seconds) would otherwise hold back the skeleton the views paint from. A run read in parts gets its
  // passing steps' scores as ids only (~18 MB less JSON at 100,000 steps).
  const stepsSettled = paged ? skeleton.data !== undefined || skeleton.error !== null : whole.data !== undefined || whole.error !== null;
  // A run too large to blame unasked waits for the user's word (the Blame button, or marking it failed). Not
  // decided by the runs list's blame score: the list shows a stored blame even when it is of an older state of the
  // run or of other settings, and asking for it then would blame the whole run.
  const [askedFor, setAskedFor] = useState<string | null>(null);
  const steps = detail.data?.run.steps;
  const blameDeferred = steps !== undefined && steps > AUTO_BLAME_MAX_STEPS && askedFor !== runId ? steps : null;
  const askBlame = useCallback(() => setAskedFor(runId), [runId]);
  // Asked once the steps are here and their count known (a run whose skeleton could not be read is not blamed blind).
  const blame = useEngineQuery('blameRun', stepsSettled && steps !== undefined && blameDeferred === null ? (paged ? { runId, stepScores: 'notable' } : { runId }) : null);
  const overrides = useUi((s) => s.expansion);
  // A skeleton's parent positions spare the tree 100,000 lookups by id.
  const parents = useMemo(() => (paged && skeleton.data ? parentPositions(skeleton.data.steps) : undefined), [paged, skeleton.data]);
  const tree = useMemo(() => (detail.data ? buildStepTree(detail.data.steps, parents) : null), [detail.data, parents]);
  const holding = useMemo(() => (tree ? holdsFailure(tree) : new Set<string>()), [tree]);
  const blameIndex = useMemo(() => indexBlame(blame.data), [blame.data]);
  const pinned = useMemo(() => {
    const p = new Set<string>([...blameIndex.blamed, ...blameIndex.lineage]);
    if (selected) p.add(selected);
    return p;
  }, [blameIndex, selected]);
  const defaults = useMemo(() => (tree ? defaultExpanded(tree, OPEN_BUDGET, pinned, CHILD_PAGE) : new Set<string>()), [tree, pinned]);
  const expanded = useCallback((id: string) => isExpanded(id, defaults, overrides), [defaults, overrides]);
  return {
    detail: detail.data,
    paged,
    detailError: detail.error,
    blame: blame.data,
    blameError: blame.error,
    blameLoading: blame.loading,
    blameDeferred,
    askBlame,
    tree,
    holding,
    blameIndex,
    pinned,
    expanded,
  };
}
