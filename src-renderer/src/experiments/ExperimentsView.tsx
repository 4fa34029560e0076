import { useMemo } from 'react';
import { useEngineQuery } from '../api/use-engine-query';
import { ErrorNote } from '../common/ErrorNote';
import type { Route } from '../state/route';
import { act } from '../state/ui-store';
import { useShortRunId } from '../runs/use-short-ids';
import { ExperimentList } from './ExperimentList';
import { openExperimentsList } from './experiment-routes';
import { useLiveExperimentList } from './use-experiment-events';
import './experiments.css';

/** Every fork experiment, newest first, filterable by source run (the filter is in the URL). */
export function ExperimentsView({ route }: { route: Extract<Route, { view: 'experiments' }> }) {
  const allArgs = { limit: 10_000 };
  const all = useEngineQuery('listExperiments', allArgs);
  const filteredArgs = route.runId ? { runId: route.runId, limit: 10_000 } : null;
  const filtered = useEngineQuery('listExperiments', filteredArgs);
  useLiveExperimentList(allArgs);
  useLiveExperimentList(filteredArgs);

  const runs = useMemo(() => {
    const byRun = new Map<string, { pipeline: string; count: number }>();
    for (const e of all.data ?? []) {
      const r = byRun.get(e.run_id) ?? { pipeline: e.pipeline, count: 0 };
      r.count += 1;
      byRun.set(e.run_id, r);
    }
    return [...byRun.entries()].sort((a, b) => a[1].pipeline.localeCompare(b[1].pipeline) || a[0].localeCompare(b[0]));
  }, [all.data]);

  const shown = route.runId ? filtered : all;
  const shortRunId = useShortRunId();
  return (
    <div className="runs-view" data-testid="experiments-view">
      <div className="toolbar">
        <h1 className="view-title">Experiments</h1>
        <label className="field">
          <span>Source run</span>
          <select value={route.runId ?? ''} onChange={(e) => act(openExperimentsList, e.target.value || null)} aria-label="Filter experiments by source run">
            <option value="">all runs ({all.data?.length ?? 0} experiments)</option>
            {route.runId && !runs.some(([id]) => id === route.runId) && <option value={route.runId}>{shortRunId(route.runId)}</option>}
            {runs.map(([id, r]) => (
              <option key={id} value={id}>
                {r.pipeline} · {shortRunId(id)} ({r.count})
              </option>
            ))}
          </select>
        </label>
        <span className="muted small">Start one from a run: select a step, then “Fork from here”.</span>
      </div>
      <div className="scroll pad">
        {shown.error && <ErrorNote error={shown.error} />}
        {!shown.data ? (
          <div className="muted">Loading experiments…</div>
        ) : shown.data.length === 0 ? (
          <div className="empty">No fork experiments{route.runId ? ' for this run' : ''} yet.</div>
        ) : (
          <div className="xp-list-card">
            <ExperimentList experiments={shown.data} showRun />
          </div>
        )}
      </div>
    </div>
  );
}
