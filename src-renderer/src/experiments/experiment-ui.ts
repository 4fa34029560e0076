/**
 * UI state of the experiment views that is not linkable: the fork editor's
 * target, and blame confirmations (a confirmation's BH-adjusted p-values
 * exist only in the answer to confirmBlame, so it is kept for the session).
 * Updates are pure functions, as in state/ui-store.ts.
 */
import { create } from 'zustand';
import type { BlameConfirmation } from '../../../src-shared/experiments';
import type { ApiError } from '../../../src-shared/result';
import type { JsonLayout, OutputFormat } from './edit-draft';
import type { OracleDraft } from './oracle-draft';
import type { TrialSettingsDraft } from './trial-settings';

interface ForkTarget {
  runId: string;
  stepId: string;
}

export type Confirmation =
  | { state: 'running'; startedAt: number; n: number; scope: 'blamed' | 'differing' }
  | { state: 'done'; result: BlameConfirmation; n: number; scope: 'blamed' | 'differing' }
  | { state: 'error'; error: ApiError; n: number; scope: 'blamed' | 'differing' };

/** What the fork editor holds, kept while the user looks at another tab. The approval is never kept. */
export interface ForkDraft {
  kind: 'output' | 'instructions';
  outputText: string;
  format: OutputFormat;
  layout: JsonLayout;
  instructions: string;
  settings: TrialSettingsDraft;
  oracle: OracleDraft;
}

export interface ExperimentUiState {
  fork: ForkTarget | null;
  /** Per `${runId}\n${stepId}`. */
  drafts: Record<string, ForkDraft>;
  /** Per source run id. */
  confirmations: Record<string, Confirmation>;
}

export const initialExperimentUiState: ExperimentUiState = { fork: null, drafts: {}, confirmations: {} };

export function draftKey(runId: string, stepId: string): string {
  return `${runId}\n${stepId}`;
}

export function saveForkDraft(state: ExperimentUiState, runId: string, stepId: string, draft: ForkDraft): ExperimentUiState {
  return { ...state, drafts: { ...state.drafts, [draftKey(runId, stepId)]: draft } };
}

/** Discarding a draft also closes the editor showing it. */
export function discardForkDraft(state: ExperimentUiState, runId: string, stepId: string): ExperimentUiState {
  const { [draftKey(runId, stepId)]: _gone, ...drafts } = state.drafts;
  const closing = state.fork?.runId === runId && state.fork.stepId === stepId;
  return { ...state, drafts, fork: closing ? null : state.fork };
}

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
