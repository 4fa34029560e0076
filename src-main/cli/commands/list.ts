import type { Command } from '../command';
import { EXIT_OK } from '../command';
import { numberFlag, UsageError } from '../args';
import { callEngine } from '../unwrap';
import { duration, isoTime, oneLine, safeLine, table } from '../format-text';
import { RUN_FILTERS, type RunFilter } from '../../../src-shared/api';

export const listCommand: Command = {
  name: 'list',
  readsRuns: true,
  usage: `tb list [--filter ${RUN_FILTERS.join('|')}] [--pipeline P] [--search TEXT] [--limit N] [--include-trials] [--json]`,
  summary: 'list runs, newest first (fork trials only with --include-trials or --filter forked)',
  flags: { values: ['filter', 'pipeline', 'search', 'limit'], booleans: ['include-trials'] },
  async run(ctx) {
    const filter = ctx.args.values.filter;
    if (filter !== undefined && !RUN_FILTERS.includes(filter as RunFilter)) throw new UsageError(`--filter must be one of ${RUN_FILTERS.join(', ')}`);
    const runs = await callEngine(ctx.engine(), 'listRuns', {
      ...(filter ? { filter } : {}),
      ...(ctx.args.values.pipeline ? { pipeline: ctx.args.values.pipeline } : {}),
      ...(ctx.args.values.search ? { search: ctx.args.values.search } : {}),
      ...(ctx.args.values.limit ? { limit: numberFlag(ctx.args, 'limit', { min: 1, integer: true }) } : {}),
      ...(ctx.args.booleans.has('include-trials') ? { includeTrials: true } : {}),
    });
    if (ctx.args.booleans.has('json')) {
      ctx.json(runs);
      return EXIT_OK;
    }
    if (runs.length === 0) {
      ctx.out('No runs. Record one with the SDK, `tb import FILE`, or `tb demo`.');
      return EXIT_OK;
    }
    ctx.out(
      table(
        runs.map((r) => [
          safeLine(r.run_id),
          oneLine(r.pipeline, 30),
          r.status,
          r.verdict ? (r.verdict.pass ? 'pass' : 'FAIL') : '—',
          String(r.steps),
          isoTime(r.started_at),
          duration(r.duration_ms),
        ]),
        ['RUN', 'PIPELINE', 'STATUS', 'VERDICT', 'STEPS', 'STARTED', 'DURATION'],
      ),
    );
    return EXIT_OK;
  },
};
