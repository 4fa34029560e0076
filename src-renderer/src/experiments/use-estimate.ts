import { useEffect, useState } from 'react';
import type { ExperimentEstimate } from '../../../src-shared/experiments';
import type { ForkEdit } from '../../../src-shared/replay-plan';
import type { ApiError } from '../../../src-shared/result';
import { useApi } from '../api/api-context';

/** Typing pauses shorter than this do not ask the engine again. */
const DEBOUNCE_MS = 300;

export interface EstimateState {
  estimate: ExperimentEstimate | null;
  error: ApiError | null;
  loading: boolean;
}

/**
 * The engine's estimate for the edit being typed. Not cached: every keystroke
 * makes a new edit, and an estimate is cheap. A stale answer (the user kept
 * typing) is dropped.
 */
export function useEstimate(runId: string, at: string, edit: ForkEdit | null, n: number | null, enabled: boolean): EstimateState {
  const api = useApi();
  const [state, setState] = useState<EstimateState>({ estimate: null, error: null, loading: false });
  const key = enabled && edit && n !== null ? JSON.stringify({ runId, at, edit, n }) : null;
  useEffect(() => {
    if (key === null) {
      setState((s) => ({ ...s, loading: false }));
      return;
    }
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    const timer = setTimeout(async () => {
      const args = JSON.parse(key) as { runId: string; at: string; edit: ForkEdit; n: number };
      const result = await api.invoke('estimateExperiment', args);
      if (!live) return;
      setState(result.ok ? { estimate: result.value, error: null, loading: false } : { estimate: null, error: result.error, loading: false });
    }, DEBOUNCE_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [api, key]);
  return state;
}
