/**
 * `tb experiments` (every fork experiment) and `tb experiment ID` (one, with
 * its trials). The printers here are shared with `tb fork`.
 */
import type { Command } from '../command';
import { EXIT_OK } from '../command';
import { numberFlag, UsageError } from '../args';
import { callEngine } from '../unwrap';
import { duration, isoTime, oneLine, safeText, table } from '../format-text';
import type { ArmSummary, ExperimentDetail, ExperimentEstimate, ExperimentSummary, TrialSummary } from '../../../src-shared/experiments';

const pct = (x: number) => `${(100 * x).toFixed(1).replace(/\.0$/, '')}%`;
const num = (x: number) => x.toLocaleString('en-US');

export function formatP(p: number): string {
  if (p >= 0.001) return p.toFixed(3).replace(/0+$/, '').replace(/\.$/, '');
  return p.toExponential(2);
}

function armLine(name: string, a: ArmSummary): string {
  const rate = a.rate === null ? '   —' : pct(a.rate).padStart(6);
  const ci = `95% CI [${pct(a.wilson[0])}, ${pct(a.wilson[1])}]`;
  const cp = a.clopper_pearson ? `  exact [${pct(a.clopper_pearson[0])}, ${pct(a.clopper_pearson[1])}]` : '';
  return `  ${name.padEnd(9)} ${`${a.passed}/${a.trials}`.padStart(7)} pass ${rate}  ${ci}${cp}  tokens ${num(a.tokens)}  time ${duration(a.duration_ms)}`;
}

function editText(e: ExperimentSummary['edit']): string {
  return e.kind === 'output' ? `output → ${oneLine(e.output, 60)}` : `instructions → "${oneLine(e.instructions, 60)}"`;
}

export function printExperiment(s: ExperimentSummary, out: (l: string) => void): void {
  out(`Experiment ${s.experiment_id}${s.label ? ` "${safeText(s.label)}"` : ''}: run ${s.run_id} forked at ${safeText(s.at)} (${safeText(s.fork_step_key)}), ${s.n} per arm — ${s.status}${s.stop_reason ? ` (${safeText(s.stop_reason)})` : ''}`);
  out(`  edit: ${editText(s.edit)}`);
  for (const w of s.warnings ?? []) out(`  WARNING: ${safeText(w)}`);
  out(armLine('treatment', s.treatment));
  out(armLine('control', s.control));
  const effect = s.effect === null ? 'no judged trials in one arm yet' : `${s.effect >= 0 ? '+' : ''}${Math.round(100 * s.effect)} points`;
  out(`  difference: ${effect}; Fisher exact test, two-sided: p = ${formatP(s.p_value)}`);
  out(`  excluded as diverged: ${s.diverged} · crashed: ${s.crashed} · timed out: ${s.timeouts} (crashes and timeouts count as failures)`);
  out(`  the replayed prefix saved ${num(s.saved.calls)} model/tool calls and ${num(s.saved.tokens)} tokens`);
  if (s.small_n) out('  small N: read the result as directional, not conclusive');
}

export function printEstimate(e: ExperimentEstimate, runId: string, out: (l: string) => void): void {
  out(`Fork of run ${runId} at ${safeText(e.fork_step.name)} (${safeText(e.fork_step.key)}, a ${e.fork_step.type} step), ${e.edit_kind} edit, ${e.trials} trials`);
  out(`  each trial replays ${e.replayed_steps} recorded step(s) and re-runs ${e.downstream_steps} downstream step(s) live`);
  out(`  estimated from the recording: ${num(e.total.calls)} model/tool calls, ${num(e.total.tokens)} tokens, $${e.total.cost_usd.toFixed(2)}`);
  out(`  the replayed prefix saves ${num(e.saved.calls)} calls and ${num(e.saved.tokens)} tokens`);
  if (e.approval) {
    // Escaped and shell-quoted by the engine (command-approvals.ts): what is printed is exactly what runs.
    out(`  command (from the trace, exactly as it will run):`);
    for (const l of e.approval.shown.split('\n')) out(`    ${safeText(l)}`);
    if (e.trial_env) out(`  trial environment (names only): ${e.trial_env.join(' ')}`);
    out(
      `  approval: ${e.approval_needed ? `needed — nothing runs until you pass --approve-command ${e.approval.sha.slice(0, 16)}` : 'given earlier for this pipeline and command'}`,
    );
  } else {
    out(`  approval: ${e.approval_needed ? 'needed' : 'given earlier for this pipeline and command'}`);
  }
  for (const w of e.warnings) out(`  warning: ${safeText(w)}`);
}

function printTrials(d: ExperimentDetail, out: (l: string) => void): void {
  out(
    table(
      d.trials.map((t) => [
        t.arm,
        String(t.trial),
        t.edit_applied === false ? `${t.outcome} (edit not applied)` : t.outcome,
        t.run_id,
        duration(t.duration_ms),
        num(t.tokens),
        oneLine(t.detail ?? '', 70),
      ]),
      ['ARM', '#', 'OUTCOME', 'FORKED RUN', 'TIME', 'TOKENS', 'DETAIL'],
    ),
  );
  printCrashes(d.trials, out, d.trials.length);
}

/**
 * A crashed trial's own words: the last lines of its stderr and where the
 * whole log is. Trials that crashed the same way are shown once.
 */
export function printCrashes(trials: TrialSummary[], out: (l: string) => void, max = 1): void {
  const groups = new Map<string, TrialSummary[]>();
  for (const t of trials) {
    if (!t.stderr_tail && !((t.outcome === 'crashed' || t.outcome === 'timeout') && t.log_file)) continue;
    const key = t.stderr_tail ?? '';
    const group = groups.get(key);
    if (group) group.push(t);
    else groups.set(key, [t]);
  }
  let shown = 0;
  let rest = 0;
  for (const [, [t, ...same]] of groups) {
    if (shown >= max) {
      rest += 1 + same.length;
      continue;
    }
    shown++;
    out('');
    out(`${t.arm} #${t.trial} ${t.outcome}${same.length ? ` (and ${same.length} more trial(s) with the same stderr)` : ''}: ${safeText(oneLine(t.detail ?? '', 200))}`);
    if (t.stderr_tail) {
      out('  last lines of its stderr:');
      for (const l of t.stderr_tail.split('\n')) out(`    ${safeText(l)}`);
    }
    if (t.log_file) out(`  full log: ${safeText(t.log_file)}`);
  }
  if (rest > 0) out(`  ${rest} more crashed trial(s): tb experiment ID shows each`);
}

export const experimentsCommand: Command = {
  name: 'experiments',
  readsRuns: true,
  usage: 'tb experiments [--run RUN] [--limit N] [--json]',
  summary: 'list fork experiments, newest first, with each arm\'s success rate',
  flags: { values: ['run', 'limit'] },
  async run(ctx) {
    const limit = numberFlag(ctx.args, 'limit', { min: 1, max: 10_000, integer: true });
    const list = await callEngine(ctx.engine(), 'listExperiments', {
      ...(ctx.args.values.run ? { runId: ctx.args.values.run } : {}),
      ...(limit ? { limit } : {}),
    });
    if (ctx.args.booleans.has('json')) {
      ctx.json(list);
      return EXIT_OK;
    }
    if (list.length === 0) {
      ctx.out('No experiments yet. Start one with `tb fork RUN --at STEP …` (or `tb demo --experiments`).');
      return EXIT_OK;
    }
    ctx.out(
      table(
        list.map((e) => [
          e.experiment_id,
          e.run_id.slice(0, 12),
          oneLine(e.at, 20),
          e.status,
          `${e.treatment.passed}/${e.treatment.trials}`,
          `${e.control.passed}/${e.control.trials}`,
          formatP(e.p_value),
          isoTime(e.created_at),
          oneLine(e.label ?? '', 30),
        ]),
        ['EXPERIMENT', 'RUN', 'AT', 'STATUS', 'TREATMENT', 'CONTROL', 'P', 'STARTED', 'LABEL'],
      ),
    );
    return EXIT_OK;
  },
};

export const experimentCommand: Command = {
  name: 'experiment',
  readsRuns: true,
  usage: 'tb experiment ID [--json]',
  summary: 'one fork experiment: both arms, the test, and every trial with its forked run',
  flags: {},
  async run(ctx) {
    const [id] = ctx.args.positional;
    if (!id) throw new UsageError('needs an experiment id (or a unique prefix)');
    const d = await callEngine(ctx.engine(), 'getExperiment', { experimentId: id });
    if (ctx.args.booleans.has('json')) {
      ctx.json(d);
      return EXIT_OK;
    }
    printExperiment(d, ctx.out);
    ctx.out('');
    printTrials(d, ctx.out);
    return EXIT_OK;
  },
};
