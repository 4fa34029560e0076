/**
 * The pre-execution guard (docs/motifs.md §5): a step with
 * `guard: 'warn' | 'block'` has its arguments checked against the known
 * failure motifs before its code runs. It fires only with both verbatim
 * quotes (the task's and the call's, pitfalls.ts) and then records a child
 * step `guard` with the findings; in block mode the step fails with
 * GuardBlockedError and its code does not run.
 *
 * The task is the step's `guardTask` option, else the last task this run
 * passed to `pitfalls`/`withPitfalls`/`setGuardTask`. With no task known the
 * guard cannot quote one, so it never fires (the rule: no quote, no warning).
 */
import { guardCheck, rememberedTask, type GuardFinding } from './pitfalls.js';
import { runStep } from './step.js';
import { traceContext } from './run-state.js';

export type GuardMode = 'warn' | 'block';

export interface GuardOptions {
  /** Check the call against known failure motifs before it runs (docs/motifs.md §5). */
  guard?: GuardMode;
  /** The task text the guard quotes; default: the task last given to pitfalls/withPitfalls/setGuardTask in this run. */
  guardTask?: string | (() => string);
  /** The motif file; default as for pitfalls(). */
  guardMotifFile?: string;
}

export class GuardBlockedError extends Error {
  constructor(
    readonly stepName: string,
    readonly findings: GuardFinding[],
  ) {
    const f = findings[0];
    super(`traceback guard blocked step "${stepName}": ${f.name} (the task says "${f.task_quote}"; the call has "${f.call_quote}"). ${f.recommendation}`);
    this.name = 'GuardBlockedError';
  }
}

/** Wraps a step's code so the guard runs first, inside the step (its record is a child of the step). */
export function guardedInvoke<R>(invoke: () => R, spec: { name: string; args: unknown[] }, opts: GuardOptions): () => R {
  return () => {
    const run = traceContext.getStore()?.run;
    const task = typeof opts.guardTask === 'function' ? opts.guardTask() : (opts.guardTask ?? (run ? rememberedTask(run) : undefined));
    const proposed = spec.args.length === 1 ? spec.args[0] : spec.args;
    const findings = task ? guardCheck(task, proposed, { file: opts.guardMotifFile }) : [];
    if (findings.length) {
      runStep('guard', 'generic', () => ({ mode: opts.guard, fired: true, findings: findings.map((f) => ({ ...f })) }), { input: { step: spec.name } });
      if (opts.guard === 'block') throw new GuardBlockedError(spec.name, findings);
      process.stderr.write(`traceback guard (warn) on step "${spec.name}": ${findings[0].name}\n`);
    }
    return invoke();
  };
}
