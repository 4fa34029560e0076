import type { BlameResult } from '../../../src-shared/analysis';
import type { RunSummary } from '../../../src-shared/model';

export type RunHealth = 'running' | 'failed' | 'incomplete' | 'healthy' | 'unknown';

/**
 * One word for a run's state, from what the engine knows so far. With the
 * run's blame at hand, blame's answer wins: it knows what the user asserted
 * ("Mark as failed…") and what the failure detector found.
 */
export function runHealth(run: RunSummary, blame?: Pick<BlameResult, 'healthy'> | null): RunHealth {
  if (run.status === 'running') return 'running';
  if (blame && !blame.healthy) return 'failed';
  if (run.status === 'error' || run.verdict?.pass === false || run.healthy === false) return 'failed';
  if (run.status === 'incomplete') return 'incomplete';
  if (run.status === 'ok') return 'healthy';
  return 'unknown';
}
