/** How experiment numbers read on screen: rates, intervals, p-values and one plain sentence. */
import type { ArmSummary, ExperimentStatus, ExperimentSummary, TrialOutcome } from '../../../src-shared/experiments';

export function formatPercent(rate: number | null): string {
  if (rate === null || !Number.isFinite(rate)) return '—';
  return `${Math.round(rate * 100)}%`;
}

export function formatInterval([lo, hi]: [number, number]): string {
  return `${Math.round(lo * 100)}–${Math.round(hi * 100)}%`;
}

/** Two significant digits, as papers report p; below 0.0001 in scientific notation. */
export function formatP(p: number | null | undefined): string {
  if (p === null || p === undefined || !Number.isFinite(p)) return '—';
  if (p >= 0.9995) return '1';
  if (p < 0.0001) return p.toExponential(1).replace('e-', '×10⁻').replace(/⁻(\d+)/, (_, d: string) => `⁻${superscript(d)}`);
  return Number(p.toPrecision(2)).toString();
}

function superscript(digits: string): string {
  const map = '⁰¹²³⁴⁵⁶⁷⁸⁹';
  return [...digits].map((d) => map[Number(d)]).join('');
}

/** "2/2" — passes over judged trials. */
export function formatSplit(arm: Pick<ArmSummary, 'passed' | 'trials'>): string {
  return `${arm.passed}/${arm.trials}`;
}

export function formatEffect(effect: number | null): string {
  if (effect === null || !Number.isFinite(effect)) return '—';
  const points = Math.round(effect * 100);
  return `${points > 0 ? '+' : points < 0 ? '−' : '±'}${Math.abs(points)} pts`;
}

export function formatTokens(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(1)}M`;
  if (n >= 10_000) return `${Math.round(n / 1000)}k`;
  return n.toLocaleString('en-US');
}

export function formatCost(usd: number): string {
  if (!usd) return '$0';
  if (usd < 0.01) return `$${usd.toFixed(4)}`;
  return `$${usd.toFixed(2)}`;
}

/** Branch label on the step graph and list rows: "treatment 8/8 · control 0/8". */
export function armsLine(e: Pick<ExperimentSummary, 'treatment' | 'control'>): string {
  return `treatment ${formatSplit(e.treatment)} · control ${formatSplit(e.control)}`;
}

export const STATUS_LABEL: Record<ExperimentStatus, string> = {
  running: 'running',
  done: 'done',
  cancelled: 'cancelled',
  interrupted: 'interrupted',
  error: 'runner error',
};

/** Which pill colour a status or outcome takes (existing status-* classes). */
export function statusTone(status: ExperimentStatus): 'running' | 'healthy' | 'failed' | 'incomplete' {
  if (status === 'running') return 'running';
  if (status === 'done') return 'healthy';
  if (status === 'error') return 'failed';
  return 'incomplete';
}

export function outcomeTone(o: TrialOutcome): 'good' | 'bad' | 'warn' | 'running' | 'neutral' {
  switch (o) {
    case 'pass':
      return 'good';
    case 'fail':
    case 'crashed':
    case 'timeout':
      return 'bad';
    case 'diverged':
      return 'warn';
    case 'running':
      return 'running';
    default:
      return 'neutral';
  }
}

/**
 * The finding in one sentence a person can check against the numbers beside
 * it. It never claims more than the test supports: without p < 0.05 it says
 * the difference may be chance.
 */
export function findingSentence(e: ExperimentSummary): string {
  const t = e.treatment;
  const c = e.control;
  if (t.trials === 0 || c.trials === 0) {
    return e.status === 'running' ? 'Waiting for judged trials in both arms.' : 'No comparison: an arm has no judged trial.';
  }
  const rates = `${formatPercent(t.rate)} with the edit against ${formatPercent(c.rate)} without it`;
  // An edit nobody consumed tested nothing: say that, not "no difference".
  if (t.edit_not_applied > 0 && t.edit_not_applied >= t.trials) return `The edit was never applied (the pipeline did not consume it), so this says nothing about it: ${rates}.`;
  if (e.effect === null || e.effect === 0) return `The edit made no difference: ${rates}.`;
  const direction = e.effect > 0 ? 'raised' : 'lowered';
  if (e.p_value < 0.05) return `The edit ${direction} the success rate: ${rates} (p = ${formatP(e.p_value)}).`;
  return `The edit ${direction} the success rate in these trials, ${rates}, but with p = ${formatP(e.p_value)} the difference could be chance.`;
}
