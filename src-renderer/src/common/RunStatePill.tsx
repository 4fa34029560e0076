import type { RunState } from '../../../src-shared/run-state';

/** The one pill for a run's state (src-shared/run-state.ts); the reason on hover. */
export function RunStatePill({ state }: { state: RunState }) {
  return (
    <span className={`status-pill status-${state.state} basis-${state.basis}`} title={state.reason} data-testid="run-state" data-state={state.state}>
      {state.basis === 'asserted' ? 'failed (you)' : state.label}
    </span>
  );
}
