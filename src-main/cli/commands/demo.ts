import type { Command } from '../command';
import { EXIT_OK } from '../command';
import { numberFlag } from '../args';
import type { Engine } from '../../engine/create-engine';
import { callEngine } from '../unwrap';
import { runDemo } from '../../demo/run-demo';
import { runDemoExperiments } from '../demo-experiments';
import { runLearningDemo } from '../../demo/learning-loop';

/** Records the demo pipeline's runs into the inbox and imports them. */
async function recordDemo(engine: Engine, runs: number | undefined, log: (line: string) => void): Promise<string[]> {
  const { runIds, inbox } = await runDemo({ home: engine.paths.home, runs, log });
  await callEngine(engine, 'importPaths', { paths: [inbox] });
  return runIds;
}

export async function seedDemoIfEmpty(engine: Engine, log: (line: string) => void): Promise<void> {
  const runs = await callEngine(engine, 'listRuns', { limit: 1 });
  if (runs.length > 0) return;
  log('No runs yet: recording the demo pipeline so there is something to look at…');
  await recordDemo(engine, undefined, log);
}

export const demoCommand: Command = {
  name: 'demo',
  usage: 'tb demo [--runs N] [--experiments] [--json] | tb demo --learning [--trials N] [--json]',
  summary: 'record the bundled demo pipeline (healthy and failing runs; simulated model, no network) and import it',
  flags: { values: ['runs', 'trials'], booleans: ['experiments', 'learning'] },
  async run(ctx) {
    const engine = ctx.engine();
    const log = ctx.args.booleans.has('json') ? () => {} : (l: string) => ctx.out(l);
    if (ctx.args.booleans.has('learning')) {
      // The loop of docs/motifs.md: fail, confirm, remember, warn the next task, measure the warning.
      const learning = await runLearningDemo(engine, log, { n: numberFlag(ctx.args, 'trials', { min: 2, max: 500, integer: true }) });
      if (ctx.args.booleans.has('json')) ctx.json(learning);
      return EXIT_OK;
    }
    const runIds = await recordDemo(engine, numberFlag(ctx.args, 'runs', { min: 1, max: 1000, integer: true }), log);
    const runs = (await callEngine(engine, 'listRuns', {})).filter((r) => runIds.includes(r.run_id));
    const json = ctx.args.booleans.has('json');
    if (!json) {
      ctx.out(`Recorded ${runs.length} demo runs into ${engine.paths.inbox}:`);
      for (const r of runs) ctx.out(`  ${r.run_id}  ${r.pipeline}  ${r.status}${r.verdict ? (r.verdict.pass ? '  pass' : '  FAIL') : ''}`);
    }
    // The demo's own pipelines are trusted: `tb demo --experiments` is the user's approval to run them.
    const experiments = ctx.args.booleans.has('experiments') ? await runDemoExperiments(engine, log) : null;
    if (json) ctx.json({ runs, ...(experiments ? { experiments } : {}) });
    else ctx.out('\nNext: `tb list`, `tb blame RUN`, or `npm run serve` to open the UI.');
    return EXIT_OK;
  },
};
