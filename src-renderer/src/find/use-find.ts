import { useDeferredValue, useMemo } from 'react';
import type { Step } from '../../../src-shared/model';
import { WEAK_SCORE } from '../graph/step-look';
import { useUi, type FindFilter } from '../state/ui-store';
import type { RunModel } from '../workbench/use-run-model';
import { findInRun, repeatedNames, rollup, type FindHit, type Rollup } from './find-in-run';
import { useEngineQuery } from '../api/use-engine-query';

export interface FindState {
  query: string;
  filter: FindFilter | null;
  /** Null when nothing is searched (or the engine has not answered yet). */
  hits: FindHit[] | null;
  /** The engine is searching a run read in parts. */
  searching: boolean;
  /** More steps matched than were listed. */
  truncated: boolean;
  searchError: string | null;
  rollup: Rollup | null;
  /** The steps the list shows instead of the tree (hits, narrowed by the roll-up filter), or null for the tree. */
  listed: string[] | null;
  repeated: Set<string>;
  hitOf: Map<string, FindHit>;
}

/*
 * The step list and the find box both read this; the last result is kept so
 * that a 100,000-step run is scanned once per query, not once per reader.
 */
let last: { steps: unknown; query: string; hits: FindHit[] } | null = null;
function cachedFind(steps: Step[], query: string): FindHit[] {
  if (last && last.steps === steps && last.query === query) return last.hits;
  const hits = findInRun(steps, query);
  last = { steps, query, hits };
  return hits;
}

export function useFind(model: RunModel): FindState {
  const find = useUi((s) => s.find);
  // Typing stays responsive on big runs: the scan follows the text a frame later.
  const query = useDeferredValue(find.query.trim());
  const { tree, blameIndex } = model;
  // A run read in parts holds no payloads here: the engine searches them.
  const remote = useEngineQuery('findSteps', model.paged && query && model.detail ? { runId: model.detail.run.run_id, query } : null);
  const local = useMemo(() => (tree && query && !model.paged ? cachedFind(tree.steps, query) : null), [tree, query, model.paged]);
  const remoteHits = remote.data?.hits;
  const remoteFailed = remote.error !== null;
  const hits = useMemo(() => (model.paged ? (query ? (remoteHits ?? (remoteFailed ? [] : null)) : null) : local), [model.paged, query, remoteHits, remoteFailed, local]);
  const roll = useMemo(() => (tree ? rollup(tree, model.holding, (id) => blameIndex.health.get(id)?.score ?? null, WEAK_SCORE) : null), [tree, model.holding, blameIndex]);
  const repeated = useMemo(() => repeatedNames(tree?.steps ?? []), [tree]);
  const hitOf = useMemo(() => new Map((hits ?? []).map((h) => [h.stepId, h])), [hits]);
  const listed = useMemo(() => {
    if (!hits && !find.filter) return null;
    let ids = hits ? hits.map((h) => h.stepId) : tree ? tree.steps.map((s) => s.step_id) : [];
    if (find.filter && roll) {
      const keep = new Set(roll[find.filter]);
      ids = ids.filter((id) => keep.has(id));
    }
    return ids;
  }, [hits, find.filter, roll, tree]);
  return {
    query,
    filter: find.filter,
    hits,
    searching: remote.loading,
    truncated: remote.data?.truncated ?? false,
    searchError: remote.error?.message ?? null,
    rollup: roll,
    listed,
    repeated,
    hitOf,
  };
}
