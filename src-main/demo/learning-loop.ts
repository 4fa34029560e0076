/**
 * `tb demo --learning`: the learning loop end to end, offline (docs/motifs.md §6).
 *
 * 1. The city-desk pipeline fails on a task; blame and a blame confirmation
 *    (fork experiments transplanting a passing run's outputs) prove the cause,
 *    and the engine stores it as a failure motif.
 * 2. A different task of the same family gets the motif as a KNOWN PITFALLS
 *    block (the SDK's withPitfalls), and a fork experiment measures it:
 *    control = the planner's instructions as they are, treatment = with the block.
 * 3. A near-miss task (same domain, asks for the metropolitan area) gets no
 *    warning, and the guard stays quiet on its correct call.
 * Every line it prints about an outcome is computed from the experiments.
 */
import path from 'node:path';
import type { Engine } from '../engine/create-engine';
import type { CallName, CallResult } from '../../src-shared/api';
import type { BlameConfirmation, ExperimentSummary } from '../../src-shared/experiments';
import type { FailureMotif } from '../../src-shared/motifs';
import { guardCheck, pitfalls, withPitfalls, type Pitfall } from '../../sdk/typescript/src/index';
import { CITY_TASKS, PLANNER_INSTRUCTIONS, runCityDesk, type CityTask } from './city-desk';

/** The two-sided level at which a difference between arms is called one. */
const SIGNIFICANCE = 0.05;
/** Seeds tried to record one failing and one passing run of the first task (the planner fails 60% of the time). */
const MAX_SEEDS = 40;

export interface LearningDemoResult {
  failing_run: string;
  passing_run: string;
  confirmation: BlameConfirmation;
  motif: FailureMotif | null;
  pitfalls_for_family_task: Pitfall[];
  pitfall_experiment: ExperimentSummary | null;
  pitfalls_for_near_miss: Pitfall[];
  guard: { family_task_fires: boolean; near_miss_fires: boolean };
}

async function call<K extends CallName>(engine: Engine, name: K, args: unknown): Promise<CallResult<K>> {
  const r = await engine.call(name, args);
  if (!r.ok) throw new Error(`${name}: ${r.error.message}`);
  return r.value;
}

async function recordPair(engine: Engine, task: CityTask): Promise<{ failing: string; passing: string }> {
  let failing: string | null = null;
  let passing: string | null = null;
  for (let seed = 1; seed <= MAX_SEEDS && !(failing && passing); seed++) {
    const r = await runCityDesk({ task, seed, home: engine.paths.home });
    if (!r.runId) throw new Error(`the city-desk demo did not record a run${r.error ? `: ${r.error}` : ''}`);
    if (r.pass && !passing) passing = r.runId;
    if (!r.pass && !failing) failing = r.runId;
  }
  if (!failing || !passing) throw new Error(`no failing and passing pair of ${task} runs in ${MAX_SEEDS} seeds`);
  await call(engine, 'importPaths', { paths: [path.join(engine.paths.inbox, `${failing}.jsonl`), path.join(engine.paths.inbox, `${passing}.jsonl`)] });
  return { failing, passing };
}

function describeExperiment(s: ExperimentSummary): string {
  const counts = `control ${s.control.passed}/${s.control.trials} pass, treatment ${s.treatment.passed}/${s.treatment.trials} pass, p = ${s.p_value.toPrecision(2)}`;
  if (s.effect === null) return `could not be judged (${counts})`;
  if (s.p_value >= SIGNIFICANCE) return `made no detectable difference (${counts})`;
  return s.effect > 0 ? `cut the failure rate (${counts})` : `made it worse (${counts})`;
}

export async function runLearningDemo(engine: Engine, log: (line: string) => void, opts: { n?: number; confirmN?: number; parallel?: number } = {}): Promise<LearningDemoResult> {
  const n = opts.n ?? 20;
  const confirmN = opts.confirmN ?? 6;
  const motifFile = path.join(engine.paths.home, 'motifs.json');
  const parallel = opts.parallel ? { parallel: opts.parallel } : {};

  log(`1/3 Learn. Task: "${CITY_TASKS['aurelia-population']}"`);
  const pair = await recordPair(engine, 'aurelia-population');
  const blame = await call(engine, 'blameRun', { runId: pair.failing });
  log(`  run ${pair.failing} failed; blame names ${blame.blamed[0]?.name ?? 'no step'}. Confirming by transplanting run ${pair.passing}'s outputs (${confirmN} trials per arm)…`);
  const confirmation = await call(engine, 'confirmBlame', { runId: pair.failing, referenceRunId: pair.passing, scope: 'differing', n: confirmN, approve: true, ...parallel });
  for (const c of confirmation.candidates) {
    log(`  ${c.name}: ${c.skipped ?? `effect ${c.effect?.toFixed(2) ?? 'n/a'}, adjusted p = ${c.p_adjusted?.toPrecision(2) ?? 'n/a'}${c.confirmed ? ' (confirmed)' : ''}`}`);
  }
  const root = confirmation.candidates.find((c) => c.step_id === confirmation.root_cause_step_id);
  // A transplant at any step downstream of the cause also fixes the run: the earliest confirmed step is the cause.
  if (root) log(`  Root cause: ${root.name}, the earliest step whose passing output alone fixes the run.`);
  const motifs = await call(engine, 'listMotifs', {});
  const motif = motifs.find((m) => m.source_run_id === pair.failing) ?? null;
  log(motif ? `  Remembered as motif ${motif.motif_id}: ${motif.name}` : '  No cause was confirmed, so nothing was remembered.');

  const family = CITY_TASKS['caldera-population'];
  log(`\n2/3 Use it. A different task of the same family: "${family}"`);
  const found = pitfalls(family, { step: 'planner', file: motifFile });
  for (const p of found) log(`  pitfall ${p.motif_id}: the task says "${p.task_quote}"`);
  if (found.length === 0) log('  no pitfall applies');
  let experiment: ExperimentSummary | null = null;
  if (found.length) {
    const recorded = await runCityDesk({ task: 'caldera-population', seed: 1, home: engine.paths.home });
    if (!recorded.runId) throw new Error('the city-desk demo did not record a run');
    await call(engine, 'importPaths', { paths: [path.join(engine.paths.inbox, `${recorded.runId}.jsonl`)] });
    log(`  Fork experiment on run ${recorded.runId} at the planner: control = its instructions, treatment = with the KNOWN PITFALLS block (${n} trials per arm)…`);
    experiment = await call(engine, 'startExperiment', {
      runId: recorded.runId,
      at: 'planner#0',
      edit: { kind: 'instructions', instructions: withPitfalls(PLANNER_INSTRUCTIONS, family, { step: 'planner', file: motifFile }) },
      n,
      approve: true,
      wait: true,
      label: 'learning demo: planner with known pitfalls',
      ...parallel,
    });
    log(`  The pitfall block ${describeExperiment(experiment)}.`);
  }

  const nearMiss = CITY_TASKS['caldera-metro'];
  log(`\n3/3 Stay quiet. A near miss: "${nearMiss}"`);
  const quiet = pitfalls(nearMiss, { step: 'planner', file: motifFile });
  log(quiet.length ? `  ${quiet.length} pitfall(s) applied (a false warning)` : '  no pitfall applies: no warning added');
  const familyFires = guardCheck(family, { country: 'Caldera', measure: 'metro_population', threshold: 1_000_000 }, { step: 'planner', file: motifFile }).length > 0;
  const nearFires = guardCheck(nearMiss, { country: 'Caldera', measure: 'metro_population', threshold: 1_000_000 }, { step: 'planner', file: motifFile }).length > 0;
  log(`  guard on a plan with "metro_population": ${familyFires ? 'fires' : 'quiet'} for the family task, ${nearFires ? 'fires (a false fire)' : 'quiet'} for the near miss`);
  return {
    failing_run: pair.failing,
    passing_run: pair.passing,
    confirmation,
    motif,
    pitfalls_for_family_task: found,
    pitfall_experiment: experiment,
    pitfalls_for_near_miss: quiet,
    guard: { family_task_fires: familyFires, near_miss_fires: nearFires },
  };
}
