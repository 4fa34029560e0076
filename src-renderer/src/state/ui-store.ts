/**
 * Shared UI state: the route (mirrored to the URL), selection, panels, graph
 * expansion and zoom. Every update is a pure function `(state, …) => state`
 * so that tests call them without React; the zustand store only applies them.
 */
import { create } from 'zustand';
import type { RunFilter } from '../../../src-shared/api';
import type { Evidence } from '../../../src-shared/analysis';
import { DEFAULT_ROUTE, type Route, type RunSort, type RunsMode, type WorkbenchTab } from './route';

interface Viewport {
  x: number;
  y: number;
  zoom: number;
}

export interface UiState {
  route: Route;
  /** Runs ticked in the runs list for comparison, oldest pick first (at most two). */
  comparePick: string[];
  panels: { blame: boolean; step: boolean; importErrors: boolean };
  /** Per step id of the open run: true = user expanded, false = user collapsed. */
  expansion: Record<string, boolean>;
  /** Per step id: how many pages of children the graph shows. */
  childPages: Record<string, number>;
  /** The evidence quote to highlight in the step panel, set by clicking it. */
  focusedEvidence: Evidence | null;
  stepSearch: string;
  viewport: Viewport | null;
  /** The step graph draws all the blame's inferred data-flow edges, not only those of the selected step and the blame path; a view preference kept across runs. */
  dataFlow: boolean;
  /** The step graph shows framework wrapper steps (graph-constants.ts); a view preference kept across runs. */
  showWrappers: boolean;
  /** Find in the open run: the text searched and the roll-up that filters the step list. */
  find: { query: string; filter: FindFilter | null };
}

export type FindFilter = 'errors' | 'warnings' | 'low-score';

export const initialUiState: UiState = {
  route: DEFAULT_ROUTE,
  comparePick: [],
  panels: { blame: true, step: true, importErrors: false },
  expansion: {},
  childPages: {},
  focusedEvidence: null,
  stepSearch: '',
  viewport: null,
  dataFlow: false,
  showWrappers: false,
  find: { query: '', filter: null },
};

/** Per-run state is dropped when another run is opened. */
function leaveRun(state: UiState): UiState {
  return { ...state, expansion: {}, childPages: {}, focusedEvidence: null, stepSearch: '', viewport: null, find: initialUiState.find };
}

export function navigate(state: UiState, route: Route): UiState {
  const sameRun = state.route.view === 'run' && route.view === 'run' && state.route.runId === route.runId;
  const next = sameRun ? state : leaveRun(state);
  return { ...next, route };
}

export function openRun(state: UiState, runId: string, stepId: string | null = null): UiState {
  return navigate(state, { view: 'run', runId, stepId, tab: 'auto' });
}

export function selectStep(state: UiState, stepId: string | null): UiState {
  if (state.route.view !== 'run' || state.route.stepId === stepId) return state;
  const keepEvidence = state.focusedEvidence && state.focusedEvidence.step_id === stepId;
  return { ...state, route: { ...state.route, stepId }, focusedEvidence: keepEvidence ? state.focusedEvidence : null };
}

export function focusEvidence(state: UiState, evidence: Evidence): UiState {
  const selected = selectStep(state, evidence.step_id);
  return { ...selected, focusedEvidence: evidence, panels: { ...selected.panels, step: true } };
}

export function setWorkbenchTab(state: UiState, tab: WorkbenchTab): UiState {
  if (state.route.view !== 'run') return state;
  return { ...state, route: { ...state.route, tab } };
}

export function setExpanded(state: UiState, stepId: string, expanded: boolean): UiState {
  return { ...state, expansion: { ...state.expansion, [stepId]: expanded } };
}

/** Expand or collapse many steps at once (the waterfall's Expand all / Collapse all). */
export function setExpandedMany(state: UiState, stepIds: Iterable<string>, expanded: boolean): UiState {
  const expansion = { ...state.expansion };
  for (const id of stepIds) expansion[id] = expanded;
  return { ...state, expansion };
}

export function showMoreChildren(state: UiState, stepId: string): UiState {
  return { ...state, childPages: { ...state.childPages, [stepId]: (state.childPages[stepId] ?? 1) + 1 } };
}

export function togglePanel(state: UiState, panel: keyof UiState['panels']): UiState {
  return { ...state, panels: { ...state.panels, [panel]: !state.panels[panel] } };
}

export function setDataFlow(state: UiState, dataFlow: boolean): UiState {
  return state.dataFlow === dataFlow ? state : { ...state, dataFlow };
}

export function setShowWrappers(state: UiState, showWrappers: boolean): UiState {
  return state.showWrappers === showWrappers ? state : { ...state, showWrappers };
}

export function setStepSearch(state: UiState, stepSearch: string): UiState {
  return { ...state, stepSearch };
}

export function setFind(state: UiState, patch: Partial<UiState['find']>): UiState {
  return { ...state, find: { ...state.find, ...patch } };
}

type RunsRoute = Extract<Route, { view: 'runs' }>;
function runsRoute(state: UiState): RunsRoute {
  return state.route.view === 'runs' ? state.route : (DEFAULT_ROUTE as RunsRoute);
}

export function setRunsQuery(
  state: UiState,
  patch: Partial<{ filter: RunFilter; search: string; sort: RunSort; mode: RunsMode; pipeline: string | null }>,
): UiState {
  return { ...state, route: { ...runsRoute(state), ...patch } };
}

/** Ticking a third run for comparison drops the oldest pick. */
export function toggleComparePick(state: UiState, runId: string): UiState {
  const picked = state.comparePick.includes(runId)
    ? state.comparePick.filter((id) => id !== runId)
    : [...state.comparePick, runId].slice(-2);
  return { ...state, comparePick: picked };
}

export function openDiff(state: UiState, runA: string | null, runB: string | null): UiState {
  return { ...navigate(state, { view: 'diff', runA, runB, key: null }), comparePick: [] };
}

export function selectDiffRow(state: UiState, key: string | null): UiState {
  if (state.route.view !== 'diff') return state;
  return { ...state, route: { ...state.route, key } };
}

export const useUi = create<UiState>(() => initialUiState);

/** Apply a pure update to the store: `act(selectStep, id)`. */
export function act<A extends unknown[]>(update: (state: UiState, ...args: A) => UiState, ...args: A): void {
  useUi.setState((state) => update(state, ...args), true);
}
