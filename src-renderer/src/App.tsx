import { useEffect, useMemo, useState } from 'react';
import type { ApiClient } from '../../src-shared/client';
import { ApiContext } from './api/api-context';
import { QueryCache } from './api/query-cache';
import { QueryCacheContext, useEngineQuery } from './api/use-engine-query';
import { DiffView } from './diff/DiffView';
import { openExperimentsList } from './experiments/experiment-routes';
import { ExperimentsView } from './experiments/ExperimentsView';
import { RunsView } from './runs/RunsView';
import { DEFAULT_ROUTE } from './state/route';
import { act, navigate, openDiff, useUi } from './state/ui-store';
import { useUrlSync } from './state/use-url-sync';
import { RunWorkbench } from './workbench/RunWorkbench';

export function App({ api }: { api: ApiClient }) {
  const cache = useMemo(() => new QueryCache(api), [api]);
  const [lastChange, setLastChange] = useState<number | null>(null);
  useEffect(
    () =>
      api.on('data-changed', (payload) => {
        cache.invalidate(Array.isArray(payload?.runIds) ? payload.runIds : []);
        setLastChange(Date.now());
      }),
    [api, cache],
  );
  useUrlSync();
  return (
    <ApiContext.Provider value={api}>
      <QueryCacheContext.Provider value={cache}>
        <Shell lastChange={lastChange} />
      </QueryCacheContext.Provider>
    </ApiContext.Provider>
  );
}

function Shell({ lastChange }: { lastChange: number | null }) {
  const route = useUi((s) => s.route);
  const info = useEngineQuery('getInfo', {});
  return (
    <div className="app">
      <nav className="topbar">
        <span className="brand">Traceback</span>
        <button type="button" className={`nav-link${route.view === 'runs' ? ' active' : ''}`} onClick={() => act(navigate, DEFAULT_ROUTE)}>
          Runs
        </button>
        <button type="button" className={`nav-link${route.view === 'diff' ? ' active' : ''}`} onClick={() => act(openDiff, null, null)}>
          Compare
        </button>
        <button
          type="button"
          className={`nav-link${route.view === 'experiments' ? ' active' : ''}`}
          onClick={() => act(openExperimentsList, null)}
        >
          Experiments
        </button>
        <span className="toolbar-spacer" />
        {info.data && (
          <span className="muted small mono" title={`database ${info.data.database}\ninbox ${info.data.inbox}`}>
            {info.data.watching ? '● watching inbox' : '○ not watching'} · {info.data.home} · v{info.data.version}
          </span>
        )}
        {lastChange && <span className="muted small" data-testid="last-change">· updated {new Date(lastChange).toLocaleTimeString()}</span>}
      </nav>
      {info.data && info.data.settings_problems.length > 0 && <SettingsProblems file={info.data.settings_file} problems={info.data.settings_problems} />}
      <div className="app-body">
        {route.view === 'runs' && <RunsView route={route} />}
        {route.view === 'run' && <RunWorkbench key={route.runId} route={route} />}
        {route.view === 'diff' && <DiffView route={route} />}
        {route.view === 'experiments' && <ExperimentsView route={route} />}
      </div>
    </div>
  );
}

/** A typo in settings.json is shown, never silently ignored: each named setting fell back to its default. */
function SettingsProblems({ file, problems }: { file: string; problems: string[] }) {
  return (
    <div className="error-note settings-problems" role="alert" data-testid="settings-problems">
      {file}: {problems.length} setting(s) ignored, their defaults used — {problems.join('; ')}
    </div>
  );
}
