/**
 * Live experiment views. The engine pushes 'experiment-progress' when a trial
 * starts or ends and when an experiment ends; trial ends also push
 * 'data-changed' (the forked run was imported), which the query cache already
 * follows. The starts and the final status arrive only as progress events, so
 * the views refetch what they show on those, at most every REFETCH_MS: a big
 * experiment sends thousands of events, each refetch sends every trial.
 */
import { useEffect, useRef } from 'react';
import type { CallArgs } from '../../../src-shared/api';
import type { ExperimentProgress } from '../../../src-shared/experiments';
import { useApi } from '../api/api-context';
import { useQueryCache } from '../api/use-engine-query';

const REFETCH_MS = 250;

/** Calls `onEvent` for progress events that pass `filter`, at most once per REFETCH_MS (trailing, so the last one is never lost). */
function useExperimentEvents(filter: (p: ExperimentProgress) => boolean, onEvent: () => void, enabled = true): void {
  const api = useApi();
  const latest = useRef({ filter, onEvent });
  latest.current = { filter, onEvent };
  useEffect(() => {
    if (!enabled) return;
    let timer: ReturnType<typeof setTimeout> | null = null;
    let last = 0;
    const fire = () => {
      timer = null;
      last = Date.now();
      latest.current.onEvent();
    };
    const off = api.on('experiment-progress', (p) => {
      if (!p || typeof p.experiment_id !== 'string' || !latest.current.filter(p)) return;
      if (timer) return;
      const wait = Math.max(0, last + REFETCH_MS - Date.now());
      timer = setTimeout(fire, wait);
    });
    return () => {
      off();
      if (timer) clearTimeout(timer);
    };
  }, [api, enabled]);
}

/** Keeps one experiment's detail fresh while it is on screen. */
export function useLiveExperiment(experimentId: string): void {
  const cache = useQueryCache();
  useExperimentEvents(
    (p) => p.experiment_id === experimentId,
    () => cache.refetch('getExperiment', { experimentId }),
  );
}

/** Keeps a list of experiments fresh: any experiment's progress may change a row or add one. */
export function useLiveExperimentList(args: CallArgs<'listExperiments'> | null): void {
  const cache = useQueryCache();
  const key = JSON.stringify(args);
  useExperimentEvents(
    () => true,
    () => cache.refetch('listExperiments', JSON.parse(key) as CallArgs<'listExperiments'>),
    args !== null,
  );
}
