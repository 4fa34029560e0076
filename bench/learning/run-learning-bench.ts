/**
 * Learning from failures (docs/motifs.md §7):
 * - the guard: fires on family tasks whose proposed call repeats the learned
 *   violation, and false fires — on near-miss tasks (same domain, where the
 *   call is right) and on correct calls of family tasks. Goal: 0 false fires;
 * - the pitfall gate: which family tasks get the warning, and false warnings
 *   on near misses;
 * - the pitfall effect on the simulated city-desk planner (control: its
 *   instructions; treatment: withPitfalls), with Wilson intervals and
 *   Fisher's exact p. The planner's response to a warning is part of the
 *   simulation (city-desk.ts), so this measures the loop's plumbing, not a
 *   real model;
 * - the guard's cost per call, against serialising the same call (baseline).
 *
 * The motif is learned as the engine learns it: from a recorded failing run
 * and the planner output of a passing run of the same task (deriveMotif).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createEngine } from '../../src-main/engine/create-engine';
import { deriveMotif } from '../../src-main/engine/motifs/derive-motif';
import { fisherExactTwoSided, wilsonInterval } from '../../src-main/engine/experiments/statistics';
import { mulberry32, seedFrom } from '../../src-main/demo/seeded-random';
import { CITY_TASKS, intendedMeasure, PLANNER_INSTRUCTIONS, runCityDesk, simulatedPlan } from '../../src-main/demo/city-desk';
import { guardCheck, pitfalls, withPitfalls, type KnownMotif } from '../../sdk/typescript/src/index';

const COUNTRIES = ['Aurelia', 'Borovia', 'Caldera'];
const THRESHOLDS = [1, 2];
/** Family: the task asks for the city-proper population (some phrasings carry no cue word: misses, counted). */
const FAMILY = [
  'Which cities in {C} have a population over {N} million?',
  'List the cities of {C} whose population exceeds {N} million.',
  'Name every city in {C} with a population above {N} million.',
  'In {C}, which cities are populous enough to be over {N} million?',
  'Which cities in {C} have over {N} million inhabitants?',
];
/** Near misses: same domain, where metro_population (the learned "violation") is the right column, or no column at all. */
const NEAR_MISS = [
  'List the cities of {C} whose metropolitan area exceeds {N} million people.',
  'Which cities in {C} have a metro population over {N} million?',
  'Which cities in {C} have more than {N} million people in their metro area?',
  'Which city in {C} has the largest metropolitan area?',
  'How many cities of {C} are in the table?',
];
const SEEDS_PER_TASK = 40;

const fill = (t: string, c: string, n: number) => t.replace('{C}', c).replace('{N}', String(n));
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

async function learnMotif(home: string): Promise<KnownMotif> {
  const engine = createEngine({ home });
  try {
    let failing: string | null = null;
    let passing: string | null = null;
    for (let seed = 1; seed <= 40 && !(failing && passing); seed++) {
      const r = await runCityDesk({ task: 'aurelia-population', seed, home });
      if (r.pass) passing ??= r.runId;
      else failing ??= r.runId;
    }
    if (!failing || !passing) throw new Error('no failing and passing pair recorded');
    const imported = await engine.call('importPaths', { paths: [path.join(home, 'inbox')] });
    if (!imported.ok) throw new Error(imported.error.message);
    const f = await engine.call('getRun', { runId: failing });
    const p = await engine.call('getRun', { runId: passing });
    if (!f.ok || !p.ok) throw new Error('runs not imported');
    const planner = f.value.steps.find((s) => s.name === 'planner')!;
    const fixed = p.value.steps.find((s) => s.name === 'planner')!.output!;
    return deriveMotif({ source: f.value, step: planner, fixedOutput: fixed, blame: engine.analysis.blame(failing), experiment: null, origin: 'blame' });
  } finally {
    await engine.close();
  }
}

export async function benchLearning(): Promise<{ lines: string[] }> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-bench-learning-'));
  const motif = await learnMotif(home);
  const motifs = [motif];
  const opts = { step: 'planner', motifs };
  const lines = [`motif learned: ${motif.name} (task cue "${motif.task_cue}", violation cue "${motif.violation_cue}")`];

  const family = FAMILY.flatMap((t) => COUNTRIES.flatMap((c) => THRESHOLDS.map((n) => fill(t, c, n))));
  const templateOf = (task: string) => FAMILY.find((t) => COUNTRIES.some((c) => THRESHOLDS.some((n) => fill(t, c, n) === task)))!;
  const near = NEAR_MISS.flatMap((t) => COUNTRIES.flatMap((c) => THRESHOLDS.map((n) => fill(t, c, n))));
  const call = (task: string, measure: string) => ({ country: COUNTRIES.find((c) => task.includes(c)), measure, threshold: 1_000_000 });

  let trueFires = 0;
  let falseFires = 0;
  let correctCalls = 0;
  const missed = new Set<string>();
  for (const task of family) {
    if (guardCheck(task, call(task, 'metro_population'), opts).length) trueFires++;
    else missed.add(templateOf(task));
    correctCalls++;
    if (guardCheck(task, call(task, 'population'), opts).length) falseFires++;
  }
  let nearFalseFires = 0;
  let nearWarnings = 0;
  for (const task of near) {
    correctCalls++;
    if (guardCheck(task, call(task, intendedMeasure(task)), opts).length) nearFalseFires++;
    if (pitfalls(task, opts).length) nearWarnings++;
  }
  const warned = family.filter((t) => pitfalls(t, opts).length > 0);
  lines.push(`guard: fires on ${trueFires}/${family.length} family tasks whose call repeats the violation${missed.size ? `; missed phrasings: ${[...missed].map((t) => `"${t}"`).join(', ')}` : ''}`);
  lines.push(`guard false fires: ${falseFires + nearFalseFires}/${correctCalls} correct calls (${nearFalseFires}/${near.length} on near-miss tasks, ${falseFires}/${family.length} on family tasks)  goal 0`);
  lines.push(`pitfalls: warned ${warned.length}/${family.length} family tasks; false warnings on near misses ${nearWarnings}/${near.length}  goal 0`);

  // The pitfall effect on the simulated planner: the same draw in both arms (as a fork trial shares its noise).
  let control = 0;
  let treatment = 0;
  let trials = 0;
  for (const task of warned) {
    const warnedPrompt = withPitfalls(PLANNER_INSTRUCTIONS, task, opts);
    for (let seed = 1; seed <= SEEDS_PER_TASK; seed++) {
      const draw = mulberry32(seedFrom('bench', task, seed))();
      trials++;
      if (simulatedPlan(task, PLANNER_INSTRUCTIONS, draw).measure === intendedMeasure(task)) control++;
      if (simulatedPlan(task, warnedPrompt, draw).measure === intendedMeasure(task)) treatment++;
    }
  }
  const wc = wilsonInterval(control, trials);
  const wt = wilsonInterval(treatment, trials);
  const p = fisherExactTwoSided(treatment, trials - treatment, control, trials - control);
  lines.push(
    `pitfall effect (simulated planner, ${trials} paired draws over ${warned.length} tasks): failure rate ${pct(1 - control / trials)} [${pct(1 - wc[1])}, ${pct(1 - wc[0])}] without → ` +
      `${pct(1 - treatment / trials)} [${pct(1 - wt[1])}, ${pct(1 - wt[0])}] with the pitfall block, Fisher p = ${p.toPrecision(2)}`,
  );

  // Cost of the guard per call, next to serialising the same call (which it does once).
  const sample = call(CITY_TASKS['caldera-population'], 'metro_population');
  const reps = 20_000;
  let t0 = performance.now();
  for (let i = 0; i < reps; i++) JSON.stringify(sample);
  const base = (performance.now() - t0) / reps;
  t0 = performance.now();
  for (let i = 0; i < reps; i++) guardCheck(CITY_TASKS['caldera-population'], sample, opts);
  const guard = (performance.now() - t0) / reps;
  lines.push(`guard cost: ${(guard * 1000).toFixed(1)} µs per call with 1 motif, ${(guard / base).toFixed(0)}× serialising the call (${(base * 1000).toFixed(2)} µs)`);
  fs.rmSync(home, { recursive: true, force: true });
  return { lines };
}
