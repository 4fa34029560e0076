import { useEffect, useMemo, useState } from 'react';
import type { RunFilter } from '../../../src-shared/api';
import { useEngineQuery } from '../api/use-engine-query';
import { RUN_SORTS, type Route, type RunSort } from '../state/route';
import { act, openDiff, setRunsQuery, useUi } from '../state/ui-store';
import { ImportErrorsBanner } from './ImportErrorsBanner';
import { ImportProgressBanner } from './ImportProgressBanner';
import { EmptyRuns } from './EmptyRuns';
import { RunList } from './RunList';
import { RunTimeline } from './RunTimeline';
import { sortRuns } from './sort-runs';
import { baselineFirst } from '../diff/diff-order';
import type { RunSummary } from '../../../src-shared/model';
import { ErrorNote } from '../common/ErrorNote';

const FILTER_LABELS: [RunFilter, string][] = [
  ['all', 'All'],
  ['failed', 'Failed'],
  ['blamed', 'Blamed'],
  ['healthy', 'Healthy'],
  ['running', 'Running'],
  ['forked', 'Forked'],
  ['imported', 'Imported (foreign)'],
];

const SORT_LABELS: Record<RunSort, string> = {
  newest: 'Newest first',
  oldest: 'Oldest first',
  slowest: 'Slowest first',
  blame: 'Highest blame first',
  steps: 'Most steps first',
};

/** The runs list caps what one query returns; beyond this the search narrows it. */
const RUNS_LIMIT = 20_000;

export function RunsView({ route }: { route: Extract<Route, { view: 'runs' }> }) {
  const comparePick = useUi((s) => s.comparePick);
  const args = { filter: route.filter, search: route.search || undefined, pipeline: route.pipeline ?? undefined, limit: RUNS_LIMIT };
  const runs = useEngineQuery('listRuns', args);
  const sorted = useMemo(() => sortRuns(runs.data ?? [], route.sort), [runs.data, route.sort]);

  return (
    <div className="runs-view">
      <div className="toolbar">
        <div className="chip-group" role="group" aria-label="Filter runs">
          {FILTER_LABELS.map(([filter, label]) => (
            <button
              key={filter}
              type="button"
              className={`chip${route.filter === filter ? ' chip-on' : ''}`}
              aria-pressed={route.filter === filter}
              onClick={() => act(setRunsQuery, { filter })}
            >
              {label}
            </button>
          ))}
        </div>
        <SearchBox value={route.search} onChange={(search) => act(setRunsQuery, { search })} />
        <label className="field">
          <span>Sort</span>
          <select value={route.sort} onChange={(e) => act(setRunsQuery, { sort: e.target.value as RunSort })}>
            {RUN_SORTS.map((s) => (
              <option key={s} value={s}>
                {SORT_LABELS[s]}
              </option>
            ))}
          </select>
        </label>
        {route.pipeline && (
          <button type="button" className="chip chip-on" title="Show all pipelines" onClick={() => act(setRunsQuery, { pipeline: null })}>
            pipeline: {route.pipeline} ✕
          </button>
        )}
        <div className="segmented" role="group" aria-label="Runs layout">
          <button type="button" aria-pressed={route.mode === 'list'} onClick={() => act(setRunsQuery, { mode: 'list' })}>
            List
          </button>
          <button type="button" aria-pressed={route.mode === 'timeline'} onClick={() => act(setRunsQuery, { mode: 'timeline' })}>
            Timeline
          </button>
        </div>
        <div className="toolbar-spacer" />
        <span className="muted" data-testid="run-count">
          {runs.data ? `${sorted.length.toLocaleString('en-US')} run${sorted.length === 1 ? '' : 's'}` : runs.loading ? 'loading…' : ''}
        </span>
        <button
          type="button"
          className="button primary"
          disabled={comparePick.length !== 2}
          title={comparePick.length === 2 ? 'Compare the two ticked runs' : 'Tick two runs to compare them'}
          onClick={() => act(openDiff, ...comparePair(comparePick, runs.data ?? []))}
        >
          Compare {comparePick.length}/2
        </button>
      </div>
      <ImportProgressBanner />
      <ImportErrorsBanner />
      {runs.error && <ErrorNote error={runs.error} />}
      {runs.data && sorted.length === 0 && (
        route.filter === 'all' && !route.search && !route.pipeline ? <EmptyRuns /> : <div className="empty">No run matches these filters.</div>
      )}
      {sorted.length > 0 && (route.mode === 'list' ? <RunList runs={sorted} /> : <RunTimeline runs={sorted} />)}
    </div>
  );
}

/** Typing updates the URL after a short pause, not on every key. */
function SearchBox({ value, onChange }: { value: string; onChange: (v: string) => void }) {
  const [text, setText] = useState(value);
  useEffect(() => setText(value), [value]);
  useEffect(() => {
    if (text === value) return;
    const t = setTimeout(() => onChange(text), 200);
    return () => clearTimeout(t);
  }, [text, value, onChange]);
  return (
    <input
      type="search"
      className="search"
      placeholder="Search runs (id, pipeline, text)…"
      aria-label="Search runs"
      value={text}
      onChange={(e) => setText(e.target.value)}
    />
  );
}

/** The ticked pair in diff order (healthy, else older, as the baseline); tick order when a run is not in the list. */
function comparePair(pick: string[], runs: RunSummary[]): [string, string] {
  const [x, y] = pick.map((id) => runs.find((r) => r.run_id === id));
  return x && y ? baselineFirst(x, y) : [pick[0], pick[1]];
}
