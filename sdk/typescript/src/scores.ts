/** User judgements: scores on a step or run, and the run's pass/fail verdict. */
import { emitVerdict, type VerdictOptions } from './pipeline.js';
import { emitScore, traceContext } from './run-state.js';

/** Score the current step (or the run, outside any step). Ignored outside a pipeline. */
export function score(name: string, value: number, explanation?: string): void {
  const ctx = traceContext.getStore();
  if (!ctx) return;
  emitScore(ctx.run, ctx.step?.stepId, name, value, explanation);
}

/** Score the current run as a whole, even from inside a step. */
export function scoreRun(name: string, value: number, explanation?: string): void {
  const ctx = traceContext.getStore();
  if (ctx) emitScore(ctx.run, undefined, name, value, explanation);
}

/** The oracle's pass/fail for the current run (the last verdict recorded wins). */
export function verdict(pass: boolean, opts: VerdictOptions = {}): void {
  const ctx = traceContext.getStore();
  if (ctx) emitVerdict(ctx.run, pass, opts);
}
