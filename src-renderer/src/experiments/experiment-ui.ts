/**
 * UI state of the experiment views that is not linkable: the fork editor's
 * target, and blame confirmations (a confirmation's BH-adjusted p-values
 * exist only in the answer to confirmBlame, so it is kept for the session).
 * Updates are pure functions, as in state/ui-store.ts.
 */
import { create } from 'zustand';
import type { BlameConfirmation } from '../../../src-shared/experiments';
import type { ApiError } from '../../../src-shared/result';

export interface ForkTarget {
  runId: string;
  stepId: string;
}

export type Confirmation =
  | { state: 'running'; startedAt: number; n: number; scope: 'blamed' | 'differing' }
  | { state: 'done'; result: BlameConfirmation; n: number; scope: 'blamed' | 'differing' }
  | { state: 'error'; error: ApiError; n: number; scope: 'blamed' | 'differing' };

export interface ExperimentUiState {
  fork: ForkTarget | null;
  /** Per source run id. */
  confirmations: Record<string, Confirmation>;
}

export const initialExperimentUiState: ExperimentUiState = { fork: null, confirmations: {} };

export function openForkEditor(state: ExperimentUiState, runId: string, stepId: string): ExperimentUiState {
  return { ...state, fork: { runId, stepId } };
}

export function closeForkEditor(state: ExperimentUiState): ExperimentUiState {
  return state.fork === null ? state : { ...state, fork: null };
}

export function setConfirmation(state: ExperimentUiState, runId: string, c: Confirmation): ExperimentUiState {
  return { ...state, confirmations: { ...state.confirmations, [runId]: c } };
}

export const useExperimentUi = create<ExperimentUiState>(() => initialExperimentUiState);

export function actExperiments<A extends unknown[]>(update: (state: ExperimentUiState, ...args: A) => ExperimentUiState, ...args: A): void {
  useExperimentUi.setState((state) => update(state, ...args), true);
}
