import { describe, expect, it } from 'vitest';
import { DEFAULT_ROUTE, formatRoute, parseRoute, type Route } from './route';

describe('links to a view', () => {
  const cases: Route[] = [
    DEFAULT_ROUTE,
    { view: 'runs', filter: 'failed', search: 'paris', sort: 'blame', mode: 'timeline', pipeline: 'qa bot' },
    { view: 'run', runId: 'r/1 ?#', stepId: 's#2', tab: 'charts' },
    { view: 'run', runId: 'abc', stepId: null, tab: 'graph' },
    { view: 'diff', runA: 'a', runB: 'b', key: 'root#0/retrieve#0' },
  ];
  for (const route of cases) {
    it(`a copied link restores ${route.view} ${JSON.stringify(route)}`, () => {
      expect(parseRoute(formatRoute(route))).toEqual(route);
    });
  }

  it('an unknown filter or tab in a hand-edited link falls back to the default', () => {
    expect(parseRoute('#/runs?filter=evil&sort=nope')).toMatchObject({ filter: 'all', sort: 'newest' });
    expect(parseRoute('#/run/x?tab=<script>')).toMatchObject({ tab: 'auto' });
  });

  it('an empty or broken hash shows the runs list', () => {
    expect(parseRoute('')).toEqual(DEFAULT_ROUTE);
    expect(parseRoute('#/run/')).toEqual(DEFAULT_ROUTE);
    expect(parseRoute('#/run/%E0%A4%A')).toMatchObject({ view: 'run', runId: '%E0%A4%A' });
  });
});
