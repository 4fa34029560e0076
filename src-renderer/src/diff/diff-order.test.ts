import { describe, expect, it } from 'vitest';
import type { RunSummary } from '../../../src-shared/model';
import { baselineFirst, inputsDiffer, openingKey } from './diff-order';

function run(run_id: string, started_at: number, detection: 'failed' | 'healthy'): RunSummary {
  return { run_id, pipeline: 'p', status: 'ok', steps: 3, started_at, duration_ms: 10, verdict: null, source_format: 'native', forked: false, detection, healthy: detection === 'healthy' };
}

describe('which run a diff takes as its baseline', () => {
  it('a failed run ticked before a healthy one: the healthy run is still the baseline, so the failure reads as a regression', () => {
    const failed = run('failed-run', 2000, 'failed');
    const healthy = run('healthy-run', 3000, 'healthy');
    expect(baselineFirst(failed, healthy)).toEqual(['healthy-run', 'failed-run']);
    expect(baselineFirst(healthy, failed)).toEqual(['healthy-run', 'failed-run']);
  });

  it('two runs in the same state: the older one is the baseline', () => {
    expect(baselineFirst(run('new', 5, 'failed'), run('old', 1, 'failed'))).toEqual(['old', 'new']);
  });
});

describe('where a diff opens', () => {
  const rows = [
    { key: '/a#0', change: 'same' },
    { key: '/b#0', change: 'changed' },
    { key: '/c#0', change: 'changed' },
  ];
  it('at the regressed step, else the first divergence, else the first changed row; a row the user chose wins', () => {
    expect(openingKey({ step: { key: '/c#0' }, first_divergence: { key: '/b#0' }, rows }, null)).toBe('/c#0');
    expect(openingKey({ step: null, first_divergence: { key: '/b#0' }, rows }, null)).toBe('/b#0');
    expect(openingKey({ step: null, first_divergence: null, rows }, null)).toBe('/b#0');
    expect(openingKey({ step: { key: '/c#0' }, first_divergence: null, rows }, '/a#0')).toBe('/a#0');
  });
});

describe('runs given different inputs', () => {
  it('are told apart, whatever the key order; a run with no recorded input cannot be compared', () => {
    expect(inputsDiffer({ q: 'capital of France', k: 3 }, { k: 3, q: 'capital of France' })).toBe(false);
    expect(inputsDiffer({ q: 'capital of France' }, { q: 'capital of Spain' })).toBe(true);
    expect(inputsDiffer(null, { q: 'x' })).toBeNull();
  });
});
