import type { Command } from '../command';
import { EXIT_CHECK_FAILED, EXIT_OK } from '../command';
import { numberFlag, UsageError } from '../args';
import { callEngine } from '../unwrap';
import { safeText } from '../format-text';
import { gateDecision } from '../../engine/blame/index';

export const gateCommand: Command = {
  name: 'gate',
  readsRuns: true,
  usage: 'tb gate --fail-on-blame X (RUN | --pipeline P --latest) [--json]',
  summary: 'CI gate: exit 1 when the run failed or its blame score exceeds X',
  flags: { values: ['fail-on-blame', 'pipeline'], booleans: ['latest'] },
  async run(ctx) {
    const threshold = numberFlag(ctx.args, 'fail-on-blame', { min: 0, max: 1 });
    if (threshold === undefined) throw new UsageError('needs --fail-on-blame X (a number from 0 to 1)');
    const engine = ctx.engine();
    let runId = ctx.args.positional[0];
    const pipeline = ctx.args.values.pipeline;
    if (runId && pipeline) throw new UsageError('give either RUN or --pipeline P --latest, not both');
    if (!runId) {
      if (!pipeline || !ctx.args.booleans.has('latest')) throw new UsageError('needs a RUN, or --pipeline P --latest');
      const latest = await callEngine(engine, 'listRuns', { pipeline, limit: 1 });
      if (latest.length === 0) throw new UsageError(`no runs of pipeline "${pipeline}"`);
      runId = latest[0].run_id;
    }
    const detail = await callEngine(engine, 'getRun', { runId });
    const blame = await callEngine(engine, 'blameRun', { runId });
    const decision = gateDecision(blame, detail.run, threshold);
    if (ctx.args.booleans.has('json')) {
      ctx.json({ run_id: detail.run.run_id, pass: !decision.fail, threshold, blame_score: blame.blamed[0]?.score ?? 0, reason: decision.reason, blamed: blame.blamed });
    } else {
      ctx.out(`${decision.fail ? 'GATE FAILED' : 'gate passed'}: ${safeText(decision.reason)}`);
    }
    return decision.fail ? EXIT_CHECK_FAILED : EXIT_OK;
  },
};
