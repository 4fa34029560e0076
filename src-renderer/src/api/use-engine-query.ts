import { createContext, useCallback, useContext, useMemo, useSyncExternalStore } from 'react';
import type { CallArgs, CallName, CallResult } from '../../../src-shared/api';
import { QueryCache, type QueryState } from './query-cache';

export const QueryCacheContext = createContext<QueryCache | null>(null);

export function useQueryCache(): QueryCache {
  const cache = useContext(QueryCacheContext);
  if (!cache) throw new Error('useQueryCache outside QueryCacheContext');
  return cache;
}

const IDLE: QueryState<never> = { data: undefined, error: null, loading: false };
const noop = () => () => {};

/** Subscribe to one engine call's result; `args === null` means "not now". */
export function useEngineQuery<K extends CallName>(name: K, args: CallArgs<K> | null): QueryState<CallResult<K>> {
  const cache = useQueryCache();
  const key = args === null ? null : JSON.stringify(args);
  // The args object identity changes every render; the serialized key does not.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const stableArgs = useMemo(() => args, [key]);
  const subscribe = useCallback(
    (onChange: () => void) => (stableArgs === null ? noop() : cache.subscribe(name, stableArgs, onChange)),
    [cache, name, stableArgs],
  );
  const getSnapshot = useCallback(
    () => (stableArgs === null ? (IDLE as QueryState<CallResult<K>>) : cache.snapshot(name, stableArgs)),
    [cache, name, stableArgs],
  );
  return useSyncExternalStore(subscribe, getSnapshot, getSnapshot);
}
