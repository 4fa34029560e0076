import { useEffect } from 'react';
import { formatRoute, parseRoute, type Route } from './route';
import { act, navigate, useUi } from './ui-store';

/** A new history entry only when the view or the shown run/pair changes; selections replace the entry. */
function isNewPlace(a: Route, b: Route): boolean {
  if (a.view !== b.view) return true;
  if (a.view === 'run' && b.view === 'run') return a.runId !== b.runId || (a.exp ?? null) !== (b.exp ?? null);
  if (a.view === 'diff' && b.view === 'diff') return a.runA !== b.runA || a.runB !== b.runB;
  return false;
}

/** Keeps the store's route and the URL hash in step, both ways. The `?token=` query is never touched. */
export function useUrlSync(): void {
  useEffect(() => {
    act(navigate, parseRoute(window.location.hash));
    const onHash = () => {
      const route = parseRoute(window.location.hash);
      if (formatRoute(route) !== formatRoute(useUi.getState().route)) act(navigate, route);
    };
    window.addEventListener('hashchange', onHash);
    const unsubscribe = useUi.subscribe((state, prev) => {
      if (state.route === prev.route) return;
      const hash = formatRoute(state.route);
      if (hash === window.location.hash) return;
      if (isNewPlace(prev.route, state.route)) window.history.pushState(null, '', hash);
      else window.history.replaceState(null, '', hash);
    });
    return () => {
      window.removeEventListener('hashchange', onHash);
      unsubscribe();
    };
  }, []);
}
