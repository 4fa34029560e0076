/**
 * Where the experiment views live in the route (state/route.ts): a scoreboard
 * is the Experiments tab of its source run with `exp` set, so a link to it
 * restores the run, the tab and the experiment; the list of all experiments
 * is its own view. Pure updates over UiState, applied with `act`.
 */
import { navigate, type UiState } from '../state/ui-store';

export function openExperiment(state: UiState, runId: string, experimentId: string): UiState {
  const stepId = state.route.view === 'run' && state.route.runId === runId ? state.route.stepId : null;
  return navigate(state, { view: 'run', runId, stepId, tab: 'experiments', exp: experimentId });
}

/** Back from a scoreboard to the list of the run's experiments, staying in the tab. */
export function closeExperiment(state: UiState): UiState {
  if (state.route.view !== 'run' || !state.route.exp) return state;
  const { exp: _drop, ...rest } = state.route;
  return { ...state, route: { ...rest, tab: 'experiments' } };
}

export function openExperimentsTab(state: UiState): UiState {
  if (state.route.view !== 'run') return state;
  return { ...state, route: { ...state.route, tab: 'experiments' } };
}

export function openExperimentsList(state: UiState, runId: string | null): UiState {
  return navigate(state, { view: 'experiments', runId });
}

/** A forked run opens like any run, at the step the experiment forked. */
export function openForkedRun(state: UiState, runId: string, stepId: string | null = null): UiState {
  return navigate(state, { view: 'run', runId, stepId, tab: 'graph' });
}
