import { useMemo, useRef } from 'react';
import { RunCharts } from '../charts/RunCharts';
import { PipelineCharts } from '../charts/PipelineCharts';
import { ErrorNote } from '../common/ErrorNote';
import { TraceText } from '../common/TraceText';
import { StepGraph } from '../graph/StepGraph';
import { Waterfall } from '../waterfall/Waterfall';
import { hasRealTiming } from '../waterfall/time-axis';
import { FindInRun } from '../find/FindInRun';
import { useFind } from '../find/use-find';
import { useEngineQuery } from '../api/use-engine-query';
import { runState } from '../../../src-shared/run-state';
import { RunStatePill } from '../common/RunStatePill';
import { RunId } from '../common/RunId';
import { useShortRunId } from '../runs/use-short-ids';
import { importCounts, RunImportProblems, useRunImportProblems } from './RunImportProblems';
import { baselineFirst } from '../diff/diff-order';
import { Splitter } from '../common/Splitter';
import { useStoredSize } from '../common/use-stored-size';
import type { Route, WorkbenchTab } from '../state/route';
import { act, navigate, openDiff, setWorkbenchTab, togglePanel, useUi } from '../state/ui-store';
import { DEFAULT_ROUTE } from '../state/route';
import { formatDuration, formatTime } from '../text/format';
import { BlamePanel } from './BlamePanel';
import { ExportMenu } from './ExportMenu';
import { MarkFailedMenu } from './MarkFailedMenu';
import { StepList } from './StepList';
import { StepPanel } from './StepPanel';
import { useRunModel } from './use-run-model';
import { withPayload } from '../../../src-shared/run-skeleton';
import { ContentView } from '../common/ContentView';
import { ExperimentsTab } from '../experiments/ExperimentsTab';
import { ForkProvenanceBanner } from '../experiments/ForkProvenanceBanner';
import { Section } from '../common/Section';

const TABS: [WorkbenchTab, string][] = [
  ['waterfall', 'Waterfall'],
  ['graph', 'Step graph'],
  ['charts', 'Charts'],
  ['experiments', 'Experiments'],
];

export function RunWorkbench({ route }: { route: Extract<Route, { view: 'run' }> }) {
  const model = useRunModel(route.runId, route.stepId);
  const importProblems = useRunImportProblems(route.runId);
  const [leftWidth, setLeftWidth] = useStoredSize('steps-width', 300, 220, 640);
  const [rightWidth, setRightWidth] = useStoredSize('side-width', 400, 320, 900);
  const [blameShare, setBlameShare] = useStoredSize('blame-share', 48, 12, 88);
  const rightRef = useRef<HTMLElement>(null);
  const panels = useUi((s) => s.panels);
  const { detail, detailError, tree, blameIndex } = model;
  const selected = route.stepId && tree?.byId.has(route.stepId) ? route.stepId : null;
  // A big run ships without payloads: the selected step's comes on its own.
  const payload = useEngineQuery('getStepPayloads', model.paged && selected ? { runId: route.runId, stepIds: [selected] } : null);
  const selectedStep = selected ? withPayload(tree!.byId.get(selected)!, payload.data?.[0]) : null;
  const find = useFind(model);
  // A run with real timing opens on its waterfall; one stamped with a single instant, on its graph.
  const timed = useMemo(() => hasRealTiming(detail?.steps ?? []), [detail]);
  const tab: WorkbenchTab = route.tab === 'auto' ? (timed ? 'waterfall' : 'graph') : route.tab;

  const totals = useMemo(() => {
    let tokens = 0;
    let cost = 0;
    for (const s of detail?.steps ?? []) {
      tokens += s.usage?.total_tokens ?? (s.usage?.input_tokens ?? 0) + (s.usage?.output_tokens ?? 0);
      cost += s.usage?.cost_usd ?? 0;
    }
    return { tokens, cost };
  }, [detail]);

  if (detailError) {
    return (
      <div className="pad">
        <ErrorNote error={detailError} />
        <button type="button" className="button" onClick={() => act(navigate, DEFAULT_ROUTE)}>
          Back to runs
        </button>
      </div>
    );
  }
  if (!detail || !tree) return <div className="pad muted" data-testid="run-loading">Loading run…</div>;
  const run = detail.run;
  const judged = runState({ ...run, import_problems: importCounts(importProblems) }, model.blame);
  // While blame is being worked out the pill says so, rather than "not checked".
  const state = judged.basis === 'pending' && model.blameLoading ? { ...judged, label: 'checking…' } : judged;

  return (
    <div className="workbench" data-testid="run-workbench" data-run-id={run.run_id}>
      <header className="run-header">
        <button type="button" className="button ghost" onClick={() => act(navigate, DEFAULT_ROUTE)} title="Back to runs">
          ← Runs
        </button>
        <RunStatePill state={state} />
        <h1 className="run-title">
          <TraceText text={run.pipeline} truncateAt={120} /> <RunId id={run.run_id} copy className="muted run-id" />
        </h1>
        <span className="run-facts mono muted">
          {formatTime(run.started_at)} · {formatDuration(run.duration_ms)} · {run.steps.toLocaleString('en-US')} steps
          {totals.tokens > 0 && ` · ${totals.tokens.toLocaleString('en-US')} tokens`}
          {totals.cost > 0 && ` · $${totals.cost.toFixed(4)}`}
        </span>
        <span className="toolbar-spacer" />
        <MarkFailedMenu runId={run.run_id} blame={model.blame} onMarked={model.askBlame} />
        <CompareWith runId={run.run_id} pipeline={run.pipeline} />
        <ExportMenu runId={run.run_id} />
      </header>
      {(run.verdict || run.error) && (
        <div className={`run-subheader ${state.state === 'failed' ? 'is-failed' : ''}`}>
          {run.verdict && (
            <span className={run.verdict.pass ? 'verdict-pass' : 'verdict-fail'} data-testid="run-verdict">
              verdict: {run.verdict.pass ? 'pass' : 'fail'}
              {run.verdict.detail && (
                <span className="verdict-detail">
                  {' '}
                  · <TraceText text={run.verdict.detail} truncateAt={400} />
                </span>
              )}
            </span>
          )}
          {run.error && (
            <span className="run-error" role="alert">
              <strong>
                <TraceText text={run.error.type} truncateAt={200} />:
              </strong>{' '}
              <TraceText text={run.error.message} truncateAt={600} />
            </span>
          )}
        </div>
      )}
      <ForkProvenanceBanner run={run} />
      <RunImportProblems problems={importProblems} />
      <div
        className={`workbench-body${route.tab === 'experiments' && route.exp ? ' is-wide' : ''}`}
        style={{
          // An experiment's scoreboard takes the full width; the step list and panels come back with the run's other tabs.
          gridTemplateColumns:
            route.tab === 'experiments' && route.exp ? 'minmax(0, 1fr)' : `${leftWidth}px 5px minmax(0, 1fr)${panels.blame || panels.step ? ` 5px ${rightWidth}px` : ''}`,
        }}
      >
        <aside className="pane pane-left">
          <FindInRun model={model} selected={selected} find={find} />
          <StepList model={model} selected={selected} find={find} />
        </aside>
        <Splitter orientation="vertical" value={leftWidth} min={220} max={640} onResize={setLeftWidth} label="Resize the step list" />
        <main className="pane pane-center">
          <div className="tabs" role="tablist">
            {TABS.map(([t, label]) => (
              <button key={t} type="button" role="tab" aria-selected={tab === t} className="tab" onClick={() => act(setWorkbenchTab, t)}>
                {label}
              </button>
            ))}
            <span className="toolbar-spacer" />
            <button type="button" className="mini-button" aria-pressed={panels.blame} onClick={() => act(togglePanel, 'blame')}>
              Blame panel
            </button>
            <button type="button" className="mini-button" aria-pressed={panels.step} onClick={() => act(togglePanel, 'step')}>
              Step panel
            </button>
          </div>
          <div className="tab-body">
            {tab === 'waterfall' && <Waterfall key={run.run_id} model={model} selected={selected} />}
            {tab === 'graph' && <StepGraph model={model} selected={selected} />}
            {tab === 'charts' && (
              <div className="scroll pad">
                <RunCharts steps={detail.steps} blame={model.blame} />
                <PipelineCharts pipeline={run.pipeline} currentRun={run.run_id} />
              </div>
            )}
            {tab === 'experiments' && <ExperimentsTab detail={detail} route={route} paged={model.paged} />}
          </div>
        </main>
        {(panels.blame || panels.step) && (
          <Splitter orientation="vertical" value={rightWidth} min={320} max={900} onResize={setRightWidth} label="Resize the side panel" sign={-1} />
        )}
        {(panels.blame || panels.step) && (
          <aside className="pane pane-right" ref={rightRef}>
            {panels.blame && (
              <div className={`right-block blame-block${panels.step ? '' : ' alone'}`} style={panels.step ? { flex: `0 0 ${blameShare}%`, maxHeight: 'none' } : undefined}>
                <div className="pane-head">
                  <span className="pane-title">Blame</span>
                  {blameIndex.blamed.size > 0 && <span className="muted small">lineage path drawn dashed on the graph</span>}
                </div>
                <BlamePanel model={model} />
              </div>
            )}
            {panels.blame && panels.step && (
              <Splitter
                orientation="horizontal"
                value={blameShare}
                min={12}
                max={88}
                onResize={setBlameShare}
                label="Resize the blame and step panels"
                scale={100 / Math.max(200, rightRef.current?.clientHeight ?? 600)}
              />
            )}
            {panels.step && (
              <div className="right-block step-block">
                {selectedStep ? (
                  <StepPanel run={run} step={selectedStep} health={blameIndex.health.get(selectedStep.step_id)} blame={model.blame} />
                ) : (
                  <RunOverview input={run.input} output={run.output} />
                )}
              </div>
            )}
          </aside>
        )}
      </div>
    </div>
  );
}

function RunOverview({ input, output }: { input: unknown; output: unknown }) {
  return (
    <div className="step-panel">
      <div className="pane-head">
        <span className="pane-title">Run</span>
        <span className="muted small">select a step to see its input, output and error</span>
      </div>
      <Section title="Run output">
        {output === null || output === undefined ? <span className="muted">none recorded</span> : <ContentView value={output as never} needles={[]} />}
      </Section>
      <Section title="Run input">
        {input === null || input === undefined ? <span className="muted">none recorded</span> : <ContentView value={input as never} needles={[]} />}
      </Section>
    </div>
  );
}

function CompareWith({ runId, pipeline }: { runId: string; pipeline: string }) {
  const runs = useEngineQuery('listRuns', { pipeline, limit: 2000 });
  const shortRunId = useShortRunId();
  const others = (runs.data ?? []).filter((r) => r.run_id !== runId).sort((a, b) => b.started_at - a.started_at);
  return (
    <label className="field">
      <span>Compare with</span>
      <select
        value=""
        aria-label="Compare with another run"
        onChange={(e) => {
          const other = others.find((r) => r.run_id === e.target.value);
          const self = (runs.data ?? []).find((r) => r.run_id === runId);
          if (other) act(openDiff, ...(self ? baselineFirst(self, other) : ([other.run_id, runId] as const)));
        }}
        disabled={others.length === 0}
      >
        <option value="">{others.length ? 'choose a run…' : 'no other run of this pipeline'}</option>
        {others.map((r) => (
          <option key={r.run_id} value={r.run_id}>
            {shortRunId(r.run_id)} · {formatTime(r.started_at)} · {runState(r).label}
          </option>
        ))}
      </select>
    </label>
  );
}
