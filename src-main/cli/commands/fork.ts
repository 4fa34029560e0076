/**
 * `tb fork RUN --at STEP …`: a fork experiment from the terminal. Replays the
 * run up to STEP, re-runs the rest N times with the edit and N times without,
 * and prints both arms. Exit 0 whenever the experiment ran, whatever it
 * found; 2 for bad usage or input, including a command not yet approved.
 */
import fs from 'node:fs';
import type { Command, CommandContext } from '../command';
import { EXIT_CHECK_FAILED, EXIT_OK } from '../command';
import { numberFlag, UsageError } from '../args';
import { callEngine } from '../unwrap';
import { oneLine, safeText } from '../format-text';
import type { Engine } from '../../engine/create-engine';
import type { ExperimentProgress, OracleSpec } from '../../../src-shared/experiments';
import type { ForkEdit } from '../../../src-shared/replay-plan';
import type { Json } from '../../../src-shared/trace-format';
import type { BlameConfirmation } from '../../../src-shared/experiments';
import { formatP, printCrashes, printEstimate, printExperiment } from './experiments';

const EDIT_FLAGS = ['output-file', 'output', 'instructions-file'] as const;
const ORACLE_FLAGS = ['oracle-cmd', 'expect-equals', 'expect-contains', 'expect-regex', 'expect-json-path'] as const;

/** A value the user typed: JSON when it parses, otherwise the text itself. */
function jsonOrText(text: string): Json {
  try {
    return JSON.parse(text) as Json;
  } catch {
    return text;
  }
}

function readFileFlag(flag: string, file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`--${flag}: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

function editFromFlags(values: Record<string, string>): ForkEdit {
  const given = EDIT_FLAGS.filter((f) => values[f] !== undefined);
  if (given.length !== 1) throw new UsageError(`give exactly one edit: --output JSON, --output-file F (JSON) or --instructions-file F${given.length ? ` (got ${given.map((g) => `--${g}`).join(', ')})` : ''}`);
  const flag = given[0];
  if (flag === 'instructions-file') return { kind: 'instructions', instructions: readFileFlag(flag, values[flag]) };
  const text = flag === 'output' ? values.output : readFileFlag(flag, values[flag]);
  try {
    return { kind: 'output', output: JSON.parse(text) as Json };
  } catch (err) {
    const where = flag === 'output' ? '--output' : `--output-file ${values[flag]}`;
    throw new UsageError(`${where} is not valid JSON (${(err as Error).message}); a text output must be a JSON string, e.g. --output '"the new answer"'`);
  }
}

function oracleFromFlags(values: Record<string, string>): OracleSpec | undefined {
  const given = ORACLE_FLAGS.filter((f) => values[f] !== undefined);
  if (given.length > 1) throw new UsageError(`give at most one oracle (got ${given.map((g) => `--${g}`).join(', ')})`);
  switch (given[0]) {
    case undefined:
      return undefined;
    case 'oracle-cmd':
      return { kind: 'command', command: values['oracle-cmd'] };
    case 'expect-equals':
      return { kind: 'equals', value: jsonOrText(values['expect-equals']) };
    case 'expect-contains':
      return { kind: 'contains', text: values['expect-contains'] };
    case 'expect-regex':
      return { kind: 'regex', pattern: values['expect-regex'] };
    case 'expect-json-path': {
      const raw = values['expect-json-path'];
      const eq = raw.indexOf('=');
      if (eq <= 0) throw new UsageError(`--expect-json-path needs PATH=VALUE (e.g. answer.cities[0]="Avalon"), got "${raw}"`);
      return { kind: 'json-path', path: raw.slice(0, eq), value: jsonOrText(raw.slice(eq + 1)) };
    }
  }
}

/** Trial progress on stderr: one redrawn bar on a terminal, one line per finished trial otherwise. */
export function progressPrinter(stream: NodeJS.WriteStream): { onEvent(p: ExperimentProgress): void; end(): void } {
  const tty = stream.isTTY === true;
  let drawn = false;
  return {
    onEvent(p) {
      if (tty) {
        const width = 24;
        const filled = p.total ? Math.round((width * p.done) / p.total) : 0;
        const bar = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
        stream.write(`\r${bar} ${p.done}/${p.total}  treatment ${p.treatment.passed}/${p.treatment.trials} pass  control ${p.control.passed}/${p.control.trials} pass  ${p.running} running `);
        drawn = true;
      } else if (p.trial && p.trial.outcome !== 'running' && p.trial.outcome !== 'pending') {
        stream.write(`trial ${p.done}/${p.total}: ${p.trial.arm} #${p.trial.trial} ${p.trial.outcome}${p.trial.detail ? ` — ${oneLine(p.trial.detail, 90)}` : ''}\n`);
      }
    },
    end() {
      if (drawn) stream.write('\n');
    },
  };
}

/** Runs `call` with progress on stderr (unless --json) and Ctrl-C cancelling the experiment being run. */
async function withProgress<T>(ctx: CommandContext, engine: Engine, call: () => Promise<T>): Promise<T> {
  const json = ctx.args.booleans.has('json');
  const printer = progressPrinter(process.stderr);
  let current: string | null = null;
  const unsubscribe = engine.events.subscribe((event, payload) => {
    if (event !== 'experiment-progress') return;
    const p = payload as ExperimentProgress;
    current = p.experiment_id;
    if (!json) printer.onEvent(p);
  });
  let interrupted = false;
  const onSigint = () => {
    if (interrupted || !current) process.exit(130);
    interrupted = true;
    ctx.err(`\ncancelling experiment ${current} (Ctrl-C again to quit at once)…`);
    void engine.call('cancelExperiment', { experimentId: current });
  };
  process.on('SIGINT', onSigint);
  try {
    return await call();
  } finally {
    process.off('SIGINT', onSigint);
    unsubscribe();
    printer.end();
  }
}

function printConfirmation(c: BlameConfirmation, out: (l: string) => void): void {
  out(`Blame confirmation for run ${c.run_id}: outputs transplanted from passing run ${c.reference_run_id}`);
  c.candidates.forEach((k, i) => {
    const head = `${i + 1}. ${safeText(k.name)} (${safeText(k.key)})`;
    if (k.skipped) out(`${head}: not tested — ${safeText(k.skipped)}`);
    else {
      const effect = k.effect === null ? '—' : `${k.effect >= 0 ? '+' : ''}${Math.round(100 * k.effect)} points`;
      out(`${head}: effect ${effect}, p = ${formatP(k.p_value ?? 1)}, BH-adjusted ${formatP(k.p_adjusted ?? 1)}${k.confirmed ? '  CONFIRMED' : ''}  [${k.experiment_id}]`);
    }
  });
  for (const w of c.warnings ?? []) out(`warning: ${safeText(w)}`);
  const root = c.candidates.find((k) => k.step_id === c.root_cause_step_id);
  out(root ? `Root cause: ${safeText(root.name)} — the earliest step whose passing output alone fixes the run.` : 'No candidate was confirmed: none of them, alone, changes the outcome measurably.');
}

export const forkCommand: Command = {
  name: 'fork',
  readsRuns: true,
  usage:
    'tb fork RUN --at STEP (--output-file F | --output JSON | --instructions-file F) -n N [--parallel P] [--timeout S] ' +
    '[--oracle-cmd CMD | --expect-equals X | --expect-contains X | --expect-regex R | --expect-json-path P=V] [--approve] [--label L] ' +
    '[--max-trials M] [--token-ceiling T] [--clopper-pearson] [--estimate] [--approve-command SHA] [--env NAME]… [--json]\n' +
    '       tb fork RUN --confirm-blame [--reference RUN] [--candidates S1,S2] [--all-differing] -n N [--parallel P] [--timeout S] [--approve-command SHA] [--env NAME]… [--json]\n' +
    '  A command from a trace runs only once approved: the refusal (and --estimate) prints it escaped, with its approval hash;\n' +
    '  pass that hash as --approve-command. --approve alone only confirms a command approved before.',
  summary: 'fork experiment: replay a run up to a step, re-run the rest N times with an edit and N without, compare',
  flags: {
    values: ['at', 'n', 'parallel', 'timeout', 'label', 'max-trials', 'token-ceiling', 'reference', 'candidates', 'approve-command', ...EDIT_FLAGS, ...ORACLE_FLAGS],
    booleans: ['approve', 'clopper-pearson', 'estimate', 'confirm-blame', 'all-differing'],
    repeatable: ['env'],
  },
  async run(ctx) {
    const [runId, extra] = ctx.args.positional;
    if (!runId) throw new UsageError('needs a run id (or a unique prefix)');
    if (extra) throw new UsageError(`unexpected argument "${extra}"`);
    const v = ctx.args.values;
    const json = ctx.args.booleans.has('json');
    const n = numberFlag(ctx.args, 'n', { min: 1, max: 500, integer: true });
    const parallel = numberFlag(ctx.args, 'parallel', { min: 1, max: 64, integer: true });
    const timeoutS = numberFlag(ctx.args, 'timeout', { min: 0.1, max: 86_400 });
    // --approve alone never approves a command that was not approved before (issue 12): only the hash printed
    // with the command does, so an approval always names exactly what was shown.
    const approvedCommand = v['approve-command'];
    if (approvedCommand !== undefined && !/^[0-9a-fA-F]{16,64}$/.test(approvedCommand)) {
      throw new UsageError(`--approve-command takes the approval hash printed with the command (16 to 64 hex digits), got "${safeText(approvedCommand.slice(0, 80))}"`);
    }
    const env = ctx.args.lists.env ?? [];
    const approval = { ...(approvedCommand ? { approvedCommand } : {}), ...(env.length ? { env } : {}) };
    const engine = ctx.engine();

    if (ctx.args.booleans.has('confirm-blame')) {
      if (v.at || EDIT_FLAGS.some((f) => v[f] !== undefined)) throw new UsageError('--confirm-blame picks its own steps and edits: leave out --at and the edit flags');
      if (n === undefined) throw new UsageError('give -n N, the number of trials per arm for each candidate step');
      const candidates = v.candidates?.split(',').map((s) => s.trim()).filter(Boolean);
      const c = await withProgress(ctx, engine, () =>
        callEngine(engine, 'confirmBlame', {
          runId,
          n,
          ...(v.reference ? { referenceRunId: v.reference } : {}),
          ...(candidates?.length ? { candidates } : {}),
          ...(ctx.args.booleans.has('all-differing') ? { scope: 'differing' as const } : {}),
          ...(parallel ? { parallel } : {}),
          ...(timeoutS ? { timeoutS } : {}),
          ...approval,
        }),
      );
      if (json) ctx.json(c);
      else printConfirmation(c, ctx.out);
      return EXIT_OK;
    }

    if (!v.at) throw new UsageError('give the step to fork at: --at STEP (a replay key like planner#0, a step id, or a unique step name)');
    const edit = editFromFlags(v);
    if (ctx.args.booleans.has('estimate')) {
      const e = await callEngine(engine, 'estimateExperiment', { runId, at: v.at, edit, n: n ?? 1, ...(env.length ? { env } : {}) });
      if (json) ctx.json(e);
      else printEstimate(e, runId, ctx.out);
      return EXIT_OK;
    }
    if (n === undefined) throw new UsageError('give -n N, the number of trials per arm');
    const oracle = oracleFromFlags(v);
    const maxTrials = numberFlag(ctx.args, 'max-trials', { min: 2, max: 100_000, integer: true });
    const tokenCeiling = numberFlag(ctx.args, 'token-ceiling', { min: 1 });
    const s = await withProgress(ctx, engine, () =>
      callEngine(engine, 'startExperiment', {
        runId,
        at: v.at,
        edit,
        n,
        wait: true,
        ...(parallel ? { parallel } : {}),
        ...(timeoutS ? { timeoutS } : {}),
        ...(oracle ? { oracle } : {}),
        ...(maxTrials ? { maxTrials } : {}),
        ...(tokenCeiling ? { tokenCeiling } : {}),
        ...(v.label !== undefined ? { label: v.label } : {}),
        ...approval,
        ...(ctx.args.booleans.has('clopper-pearson') ? { clopperPearson: true } : {}),
      }),
    );
    if (json) ctx.json(s);
    else {
      printExperiment(s, ctx.out);
      if (s.crashed + s.timeouts > 0) {
        const d = await callEngine(engine, 'getExperiment', { experimentId: s.experiment_id });
        printCrashes(d.trials, ctx.out);
      }
      ctx.out(`  every trial is its own run: tb experiment ${s.experiment_id}`);
    }
    // Cancelled, interrupted or a failed runner: the experiment did not run to its end.
    return s.status === 'done' ? EXIT_OK : EXIT_CHECK_FAILED;
  },
};
