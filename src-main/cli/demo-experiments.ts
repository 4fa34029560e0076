/**
 * `tb demo --experiments`: two fork experiments on a failing research-team
 * run, and a closing line that says what each one showed, computed from its
 * arms and its test (never a conclusion written in advance).
 */
import path from 'node:path';
import type { Engine } from '../engine/create-engine';
import { correctedPlan, runResearchTeam } from '../demo/research-team';
import type { ExperimentSummary } from '../../src-shared/experiments';
import type { Json } from '../../src-shared/trace-format';
import { formatP, printExperiment } from './commands/experiments';
import { callEngine, CliFailure } from './unwrap';

/** The two-sided level at which a difference between arms is called one (the level confirm-blame uses too). */
const SIGNIFICANCE = 0.05;

/** What an experiment showed, in words a reader can check against its two arms and p. */
function whatItDid(s: ExperimentSummary): string {
  const counts = `${s.treatment.passed}/${s.treatment.trials} vs ${s.control.passed}/${s.control.trials}, p = ${formatP(s.p_value)}`;
  if (s.effect === null) return `could not be judged (${counts}: an arm has no judged trial)`;
  if (s.p_value >= SIGNIFICANCE) return `made no detectable difference (${counts})`;
  return s.effect > 0 ? `fixed it (${counts})` : `made it worse (${counts})`;
}

export interface DemoExperimentsResult {
  runId: string;
  /** A cosmetic change at a late step (the writer): no effect expected. */
  decoy: ExperimentSummary;
  /** The corrected plan at the planted root cause (the planner): treatment passes, control fails. */
  fix: ExperimentSummary;
}

/**
 * `tb demo --experiments`: records a failing research-team run (the planner
 * measures cities by the wrong column) and runs two fork experiments on it —
 * a decoy at the writer and the real fix at the planner — and prints both.
 * The command the trials run is the bundled demo script this process just
 * recorded, not one read from a foreign trace, so it is approved here.
 */
export async function runDemoExperiments(engine: Engine, log: (line: string) => void, opts: { n?: number; parallel?: number } = {}): Promise<DemoExperimentsResult> {
  const n = opts.n ?? 8;
  const recorded = await runResearchTeam({ home: engine.paths.home, variant: 'planted' });
  if (!recorded.runId) throw new CliFailure(`the research-team demo did not record a run${recorded.error ? `: ${recorded.error}` : ''}`, 1);
  const runId = recorded.runId;
  await callEngine(engine, 'importPaths', { paths: [path.join(engine.paths.inbox, `${runId}.jsonl`)] });
  log(`Recorded a failing research-team run ${runId}: ${recorded.pass ? 'it passed (unexpected)' : 'its answer names the wrong cities'}.`);
  const common = { runId, n, approve: true, wait: true, ...(opts.parallel ? { parallel: opts.parallel } : {}) };

  log(`\n1/2 Decoy: fork at the writer with new instructions (a bulleted list), ${n} trials per arm…`);
  const decoy = await callEngine(engine, 'startExperiment', {
    ...common,
    at: 'writer#0',
    edit: { kind: 'instructions', instructions: 'Write the answer as a bulleted list that names every city in the findings.' },
    label: 'decoy: writer formats a bulleted list',
  });
  printExperiment(decoy, log);

  log(`\n2/2 Fix: fork at the planner with the corrected plan (measure by population), ${n} trials per arm…`);
  const fix = await callEngine(engine, 'startExperiment', {
    ...common,
    at: 'planner#0',
    edit: { kind: 'output', output: correctedPlan() as unknown as Json },
    label: 'fix: planner measures by population',
  });
  printExperiment(fix, log);
  log(`\nThe writer change ${whatItDid(decoy)}; the planner fix ${whatItDid(fix)}.`);
  return { runId, decoy, fix };
}
