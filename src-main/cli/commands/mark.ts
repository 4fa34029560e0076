import type { Command } from '../command';
import { EXIT_OK } from '../command';
import { UsageError } from '../args';
import { callEngine } from '../unwrap';
import { printBlame } from './blame';

export const markCommand: Command = {
  name: 'mark',
  readsRuns: true,
  usage: 'tb mark RUN (--failed [--expected TEXT] [--note TEXT] | --clear) [--json]',
  summary: 'store "this run failed" (with the expected answer) on a run, so blame, reports, diff and the gate use it; --clear removes it',
  flags: { values: ['expected', 'note'], booleans: ['failed', 'clear'] },
  async run(ctx) {
    const [runId] = ctx.args.positional;
    if (!runId) throw new UsageError('needs a run id (or a unique prefix)');
    const failed = ctx.args.booleans.has('failed');
    const clear = ctx.args.booleans.has('clear');
    if (failed === clear) throw new UsageError('give either --failed or --clear');
    const { expected, note } = ctx.args.values;
    if (clear && (expected !== undefined || note !== undefined)) throw new UsageError('--clear takes no --expected or --note');
    const b = await callEngine(ctx.engine(), 'markRun', {
      runId,
      failed,
      ...(clear ? { clear: true } : {}),
      ...(expected !== undefined ? { expected } : {}),
      ...(note !== undefined ? { note } : {}),
    });
    if (ctx.args.booleans.has('json')) ctx.json(b);
    else {
      ctx.out(clear ? `Run ${b.run_id}: the mark is removed.` : `Run ${b.run_id} is marked as failed.`);
      ctx.out('');
      printBlame(b, ctx.out);
    }
    return EXIT_OK;
  },
};
