/**
 * The two ways to make a step: wrap a function once (`step`) or run a block
 * inline (`runStep`). Both go through executeStep.
 */
import type { StepType } from './trace-format.js';
import { executeStep, type StepOptions } from './execute-step.js';
import { NO_STEP, traceContext, type StepHandle } from './run-state.js';

export interface WrapOptions<A extends unknown[], R> extends StepOptions<R> {
  /** What to record as the input; default: the single argument, or the argument list. */
  input?: (...args: A) => unknown;
}

function looksAsync(fn: (...args: never[]) => unknown): boolean {
  return fn.constructor?.name === 'AsyncFunction' || fn.constructor?.name === 'AsyncGeneratorFunction';
}

/**
 * Wrap `fn` as a step: every call records a step named `name`. A sync
 * function stays sync; an async one returns a promise.
 */
export function step<A extends unknown[], R>(name: string, type: StepType, fn: (...args: A) => R, opts: WrapOptions<A, R> = {}): (...args: A) => R {
  const isAsync = looksAsync(fn);
  const wrapped = function (this: unknown, ...args: A): R {
    return executeStep<R>({
      name,
      type,
      invoke: () => fn.apply(this, args),
      args,
      input: opts.input ? opts.input(...args) : args.length === 1 ? args[0] : args,
      isAsync,
      opts,
    });
  };
  Object.defineProperty(wrapped, 'name', { value: fn.name || name });
  return wrapped;
}

export interface InlineOptions<R> extends StepOptions<R> {
  input?: unknown;
}

/**
 * Run `fn` now as a step. `fn` receives the step handle (usage, model,
 * metadata, scores, instructions). Returns what `fn` returns.
 */
export function runStep<R>(name: string, type: StepType, fn: (step: StepHandle) => R, opts: InlineOptions<R> = {}): R {
  return executeStep<R>({
    name,
    type,
    invoke: () => fn(currentStep()),
    args: opts.input === undefined ? [] : [opts.input],
    input: opts.input,
    isAsync: looksAsync(fn),
    opts,
  });
}

/** The step the calling code runs in; outside any step, a handle whose calls do nothing. */
export function currentStep(): StepHandle {
  return traceContext.getStore()?.step ?? NO_STEP;
}
