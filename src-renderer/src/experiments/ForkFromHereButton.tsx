import { act, selectStep } from '../state/ui-store';
import { openExperimentsTab } from './experiment-routes';
import { actExperiments, openForkEditor } from './experiment-ui';

/** Opens the fork editor for one step, in the run's Experiments tab. */
export function ForkFromHereButton({ runId, stepId, primary = false }: { runId: string; stepId: string; primary?: boolean }) {
  return (
    <button
      type="button"
      className={`button${primary ? ' primary' : ''}`}
      data-testid="fork-from-here"
      title="Re-run the pipeline from this step with an edited output: treatment against control"
      onClick={() => {
        act(selectStep, stepId);
        act(openExperimentsTab);
        actExperiments(openForkEditor, runId, stepId);
      }}
    >
      Fork from here
    </button>
  );
}
