import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../../src-shared/client';
import { isAffectedBy, QueryCache } from './query-cache';

function fakeApi() {
  const calls: string[] = [];
  let version = 0;
  const listeners: (() => void)[] = [];
  const api: ApiClient = {
    async invoke(name, args) {
      calls.push(`${name}:${JSON.stringify(args)}`);
      return { ok: true, value: { version: ++version } as never };
    },
    on() {
      return () => {};
    },
  };
  return { api, calls, listeners };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

describe('query cache', () => {
  it('a data-changed event for one run refetches that run but not another', () => {
    expect(isAffectedBy('getRun', { runId: 'a' }, ['a'])).toBe(true);
    expect(isAffectedBy('getRun', { runId: 'b' }, ['a'])).toBe(false);
    expect(isAffectedBy('diffRuns', { runA: 'x', runB: 'a' }, ['a'])).toBe(true);
    expect(isAffectedBy('listRuns', {}, ['a'])).toBe(true);
    expect(isAffectedBy('getRun', { runId: 'b' }, [])).toBe(true);
  });

  it('answers already held for a call are there to read, whatever their arguments, and a call never answered gives none', async () => {
    const { api } = fakeApi();
    const cache = new QueryCache(api);
    cache.subscribe('listRuns', {}, () => {});
    cache.subscribe('listRuns', { filter: 'failed' } as never, () => {});
    cache.subscribe('getRun', { runId: 'a' }, () => {});
    await settle();
    expect(cache.answers('listRuns')).toHaveLength(2);
    expect(cache.answers('getRun')).toEqual([{ version: 3 }]);
    expect(cache.answers('diffRuns')).toEqual([]);
  });

  it('an answer fetched ahead is not asked for again when it is then watched', async () => {
    const { api, calls } = fakeApi();
    const cache = new QueryCache(api);
    cache.prefetch('getRunSkeleton', { runId: 'big' });
    cache.prefetch('getRunSkeleton', { runId: 'big' });
    cache.subscribe('getRunSkeleton', { runId: 'big' }, () => {});
    await settle();
    cache.prefetch('getRunSkeleton', { runId: 'big' });
    expect(calls).toEqual(['getRunSkeleton:{"runId":"big"}']);
    expect(cache.snapshot('getRunSkeleton', { runId: 'big' }).data).toEqual({ version: 1 });
  });

  it('a watched list is refetched when runs land, keeping the old value on screen meanwhile', async () => {
    const { api, calls } = fakeApi();
    const cache = new QueryCache(api);
    const seen: unknown[] = [];
    cache.subscribe('listRuns', {}, () => seen.push(cache.snapshot('listRuns', {})));
    await settle();
    expect(cache.snapshot('listRuns', {}).data).toEqual({ version: 1 });
    cache.invalidate(['new-run']);
    expect(cache.snapshot('listRuns', {})).toMatchObject({ loading: true, data: { version: 1 } });
    await settle();
    expect(cache.snapshot('listRuns', {}).data).toEqual({ version: 2 });
    expect(calls).toEqual(['listRuns:{}', 'listRuns:{}']);
    expect(seen.length).toBeGreaterThanOrEqual(4);
  });

  it('two subscribers of the same query share one request', async () => {
    const { api, calls } = fakeApi();
    const cache = new QueryCache(api);
    cache.subscribe('getRun', { runId: 'a' }, () => {});
    cache.subscribe('getRun', { runId: 'a' }, () => {});
    await settle();
    expect(calls).toHaveLength(1);
  });
});
