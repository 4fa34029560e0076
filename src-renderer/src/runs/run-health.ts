import type { RunSummary } from '../../../src-shared/model';

export type RunHealth = 'running' | 'failed' | 'incomplete' | 'healthy' | 'unknown';

/** One word for a run's state, from what the engine knows so far. */
export function runHealth(run: RunSummary): RunHealth {
  if (run.status === 'running') return 'running';
  if (run.status === 'error' || run.verdict?.pass === false || run.healthy === false) return 'failed';
  if (run.status === 'incomplete') return 'incomplete';
  if (run.status === 'ok') return 'healthy';
  return 'unknown';
}
