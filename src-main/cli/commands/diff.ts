import type { Command } from '../command';
import { EXIT_OK } from '../command';
import { UsageError } from '../args';
import { callEngine } from '../unwrap';
import { safeText, table } from '../format-text';

const fmt = (n: number | null | undefined) => (n === null || n === undefined ? '—' : n.toFixed(2));

export const diffCommand: Command = {
  name: 'diff',
  readsRuns: true,
  usage: 'tb diff RUN_A RUN_B [--json]',
  summary: 'align two runs step by step and say which step regressed',
  flags: {},
  async run(ctx) {
    const [runA, runB] = ctx.args.positional;
    if (!runA || !runB) throw new UsageError('needs two run ids');
    const d = await callEngine(ctx.engine(), 'diffRuns', { runA, runB });
    if (ctx.args.booleans.has('json')) {
      ctx.json(d);
      return EXIT_OK;
    }
    const at = d.step ? ` at step "${safeText(d.step.name)}" (${safeText(d.step.key)})` : '';
    ctx.out(`${d.verdict.toUpperCase()}${at}: ${safeText(d.reason)}`);
    if (d.first_divergence) {
      const what = d.first_divergence.kind === 'content' ? 'First difference' : 'First structural divergence';
      ctx.out(`${what} at ${safeText(d.first_divergence.key)}: ${safeText(d.first_divergence.description)}`);
    }
    ctx.out('');
    ctx.out(
      table(
        d.rows.map((r) => [safeText(r.key), r.a ? safeText(r.a.name) : '—', fmt(r.a?.score), fmt(r.b?.score), r.delta === null ? '' : (r.delta > 0 ? '+' : '') + r.delta.toFixed(2), r.change]),
        ['KEY', 'STEP', 'A', 'B', 'DELTA', 'CHANGE'],
      ),
    );
    return EXIT_OK;
  },
};
