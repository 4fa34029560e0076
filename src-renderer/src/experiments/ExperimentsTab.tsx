import type { RunDetail } from '../../../src-shared/model';
import { withPayload } from '../../../src-shared/run-skeleton';
import { useEngineQuery } from '../api/use-engine-query';
import { ErrorNote } from '../common/ErrorNote';
import { TraceText } from '../common/TraceText';
import type { Route } from '../state/route';
import { act } from '../state/ui-store';
import { hasEntry } from './command-text';
import { ExperimentList } from './ExperimentList';
import { ExperimentScoreboard } from './ExperimentScoreboard';
import { closeExperiment, openExperimentsList } from './experiment-routes';
import { actExperiments, closeForkEditor, openForkEditor, useExperimentUi } from './experiment-ui';
import { ForkEditor } from './ForkEditor';
import { useLiveExperimentList } from './use-experiment-events';
import './experiments.css';

/** The run workbench's Experiments tab: the fork editor, a scoreboard, or this run's experiments. */
export function ExperimentsTab({ detail, route, paged = false }: { detail: RunDetail; route: Extract<Route, { view: 'run' }>; paged?: boolean }) {
  const fork = useExperimentUi((s) => s.fork);
  const run = detail.run;
  const skeletonStep = fork && fork.runId === run.run_id ? detail.steps.find((s) => s.step_id === fork.stepId) : undefined;
  // A run read in parts has no payloads here: the fork step's recorded output and replay key are fetched first.
  const payload = useEngineQuery('getStepPayloads', paged && skeletonStep ? { runId: run.run_id, stepIds: [skeletonStep.step_id] } : null);
  const forkStep = skeletonStep && paged ? (payload.data?.[0] ? withPayload(skeletonStep, payload.data[0]) : undefined) : skeletonStep;

  if (skeletonStep && !forkStep) {
    return payload.error ? <ErrorNote error={payload.error} /> : <div className="muted pad">Reading the step&apos;s recorded output…</div>;
  }
  if (forkStep) {
    return (
      <div
        className="scroll xp-tab"
        onKeyDown={(e) => {
          // Escape closes the editor (its draft is kept); a field that handles Escape itself marks the event.
          if (e.key !== 'Escape' || e.defaultPrevented) return;
          e.preventDefault();
          actExperiments(closeForkEditor);
        }}
      >
        <ForkEditor key={forkStep.step_id} run={run} step={forkStep} steps={detail.steps} />
      </div>
    );
  }
  if (route.exp) {
    return (
      <div className="scroll xp-tab">
        <ExperimentScoreboard experimentId={route.exp} onBack={() => act(closeExperiment)} />
      </div>
    );
  }
  return <RunExperiments detail={detail} selected={route.stepId} />;
}

function RunExperiments({ detail, selected }: { detail: RunDetail; selected: string | null }) {
  const run = detail.run;
  const args = { runId: run.run_id };
  const list = useEngineQuery('listExperiments', args);
  useLiveExperimentList(args);
  const step = selected ? detail.steps.find((s) => s.step_id === selected) : undefined;
  return (
    <div className="scroll xp-tab" data-testid="run-experiments">
      <div className="xp-tab-head">
        <h2 className="xp-title">Experiments of this run</h2>
        <span className="toolbar-spacer" />
        {step && (
          <button type="button" className="button primary" onClick={() => actExperiments(openForkEditor, run.run_id, step.step_id)}>
            Fork from “<TraceText text={step.name} truncateAt={40} />”
          </button>
        )}
        <button type="button" className="button ghost" onClick={() => act(openExperimentsList, null)}>
          All experiments →
        </button>
      </div>
      {!hasEntry(run.entry) && (
        <div className="xp-viewonly" role="note">
          <strong>View-only:</strong> this run has no recorded entry command, so it cannot be forked.
        </div>
      )}
      {list.error && <ErrorNote error={list.error} />}
      {list.data && list.data.length > 0 && (
        <div className="xp-list-card">
          <ExperimentList experiments={list.data} />
        </div>
      )}
      {list.data && list.data.length === 0 && (
        <div className="xp-empty">
          <p>
            <strong>No experiments yet.</strong>
          </p>
          <p className="muted">
            Does a change fix this run? Select a step (in the list, the graph, or the blame panel), choose <strong>Fork from here</strong>, edit what
            it produced, and Traceback re-runs the rest of the pipeline N times with your edit and N times without it, then compares the two.
          </p>
        </div>
      )}
    </div>
  );
}
