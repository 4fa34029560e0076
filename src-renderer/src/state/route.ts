/**
 * The linkable part of the UI: which view, run, step and diff pair are shown,
 * and the runs filters. It lives in the URL hash so that the `?token=` query
 * of `tb serve` is never touched and a copied link restores the view.
 */
import { RUN_FILTERS, type RunFilter } from '../../../src-shared/api';

export const RUN_SORTS = ['newest', 'oldest', 'slowest', 'blame', 'steps'] as const;
export type RunSort = (typeof RUN_SORTS)[number];
/** 'auto' opens the waterfall when the run has real timing, else the graph (decided once the run is loaded). */
const WORKBENCH_TABS = ['auto', 'waterfall', 'graph', 'charts', 'experiments'] as const;
export type WorkbenchTab = (typeof WORKBENCH_TABS)[number];
export type RunsMode = 'list' | 'timeline';

export type Route =
  | { view: 'runs'; filter: RunFilter; search: string; sort: RunSort; mode: RunsMode; pipeline: string | null }
  | { view: 'run'; runId: string; stepId: string | null; tab: WorkbenchTab; /** The experiment whose scoreboard the Experiments tab shows. */ exp?: string }
  | { view: 'diff'; runA: string | null; runB: string | null; key: string | null }
  /** All fork experiments, or those of one source run. */
  | { view: 'experiments'; runId: string | null };

export const DEFAULT_ROUTE: Route = { view: 'runs', filter: 'all', search: '', sort: 'newest', mode: 'list', pipeline: null };

function oneOf<T extends string>(value: string | null, allowed: readonly T[], fallback: T): T {
  return value !== null && (allowed as readonly string[]).includes(value) ? (value as T) : fallback;
}

export function parseRoute(hash: string): Route {
  const body = hash.replace(/^#/, '');
  const q = body.indexOf('?');
  const path = q < 0 ? body : body.slice(0, q);
  const params = new URLSearchParams(q < 0 ? '' : body.slice(q + 1));
  const parts = path.split('/').filter(Boolean).map((p) => {
    try {
      return decodeURIComponent(p);
    } catch {
      return p;
    }
  });
  if (parts[0] === 'run' && parts[1]) {
    const exp = params.get('exp');
    return { view: 'run', runId: parts[1], stepId: params.get('step') || null, tab: oneOf(params.get('tab'), WORKBENCH_TABS, 'auto'), ...(exp ? { exp } : {}) };
  }
  if (parts[0] === 'experiments') return { view: 'experiments', runId: params.get('run') || null };
  if (parts[0] === 'diff') {
    return { view: 'diff', runA: params.get('a') || null, runB: params.get('b') || null, key: params.get('key') || null };
  }
  return {
    view: 'runs',
    filter: oneOf(params.get('filter'), RUN_FILTERS, 'all'),
    search: params.get('q') ?? '',
    sort: oneOf(params.get('sort'), RUN_SORTS, 'newest'),
    mode: oneOf(params.get('mode'), ['list', 'timeline'] as const, 'list'),
    pipeline: params.get('pipeline') || null,
  };
}

export function formatRoute(route: Route): string {
  const params = new URLSearchParams();
  switch (route.view) {
    case 'run':
      if (route.stepId) params.set('step', route.stepId);
      if (route.tab !== 'auto') params.set('tab', route.tab);
      if (route.exp) params.set('exp', route.exp);
      return withParams(`#/run/${encodeURIComponent(route.runId)}`, params);
    case 'diff':
      if (route.runA) params.set('a', route.runA);
      if (route.runB) params.set('b', route.runB);
      if (route.key) params.set('key', route.key);
      return withParams('#/diff', params);
    case 'experiments':
      if (route.runId) params.set('run', route.runId);
      return withParams('#/experiments', params);
    case 'runs':
      if (route.filter !== 'all') params.set('filter', route.filter);
      if (route.search) params.set('q', route.search);
      if (route.sort !== 'newest') params.set('sort', route.sort);
      if (route.mode !== 'list') params.set('mode', route.mode);
      if (route.pipeline) params.set('pipeline', route.pipeline);
      return withParams('#/runs', params);
  }
}

function withParams(path: string, params: URLSearchParams): string {
  const s = params.toString();
  return s ? `${path}?${s}` : path;
}
