import { useCallback, useMemo } from 'react';
import { useEngineQuery } from '../api/use-engine-query';
import { shortIdIn, shortestUniquePrefixes } from '../text/short-id';

/** Every run the store lists, fork trials included: a short id must not be shared with a trial either. */
const ALL_RUNS = { includeTrials: true, limit: 100_000 } as const;

/** (id) → the id's shortest unique prefix among all stored runs (≥ 8 characters). */
export function useShortRunId(): (id: string) => string {
  const runs = useEngineQuery('listRuns', ALL_RUNS);
  const prefixes = useMemo(() => shortestUniquePrefixes((runs.data ?? []).map((r) => r.run_id)), [runs.data]);
  return useCallback((id: string) => shortIdIn(prefixes, id), [prefixes]);
}
