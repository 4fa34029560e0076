/**
 * "city-desk": the pipeline of `tb demo --learning` (docs/motifs.md §6).
 *
 *   planner (llm, simulated) → query_table (tool) → writer (llm, simulated)
 *   → verdict from a code oracle against the exact ground truth of corpus/cities.ts
 *
 * The simulated planner reads its instructions (the prompt) and the task. It
 * is ambiguous about one thing: asked about a city's "population", it picks
 * the metro_population column PLANNER_CONFUSION of the time (the bigger,
 * "more complete" number), which makes the answer wrong. A KNOWN PITFALLS
 * block in its instructions that warns against "metro_population" (what
 * `withPitfalls` from the SDK writes) brings that down to HEEDED_CONFUSION:
 * this is how the simulation models a model that mostly follows a warning,
 * not a measured property of any real model. Asked about the "metropolitan
 * area", it picks metro_population, which is then right.
 *
 * Each planner call draws from a PRNG seeded by (--seed, fork trial, replay
 * key), so fork trials differ and the two arms of one trial share their noise.
 *
 * Standalone (the entry a fork experiment re-runs):
 *   npx tsx src-main/demo/city-desk.ts --task aurelia-population [--seed 1] [--home DIR]
 */
import { parseArgs } from 'node:util';
import { currentRun, currentStep, pipeline, step } from '../../sdk/typescript/src/index';
import { CITIES, type CityRow } from './corpus/cities';
import { demoEntry, isMainModule } from './script-main';
import { mulberry32, seedFrom } from './seeded-random';

/** This file, as a fork experiment starts it again (script-main.ts). */
const SCRIPT = 'src-main/demo/city-desk.ts';

/** Share of unwarned planner calls that take metro_population for "population" (a property of this simulation). */
const PLANNER_CONFUSION = 0.6;
/** The same share once a KNOWN PITFALLS block warns against it. */
const HEEDED_CONFUSION = 0.05;

export const CITY_TASKS = {
  /** The task the demo learns from. */
  'aurelia-population': 'Which cities in Aurelia have a population over 1 million?',
  /** A different task of the same family: other country, other wording. */
  'caldera-population': 'List the cities of Caldera whose population exceeds 1 million.',
  /** A near miss: same domain, asks for the metropolitan area, where metro_population is right. */
  'caldera-metro': 'List the cities of Caldera whose metropolitan area exceeds 1 million people.',
} as const;
export type CityTask = keyof typeof CITY_TASKS;

export const PLANNER_INSTRUCTIONS =
  'You plan a lookup in the table `cities` (columns: city, country, population = people in the city proper, metro_population = people in the whole metropolitan area). Reply with one filter: country, column, threshold.';

type Measure = 'population' | 'metro_population';
interface Plan {
  country: string;
  measure: Measure;
  threshold: number;
}

const COUNTRIES = [...new Set(CITIES.map((c) => c.country))];

function thresholdOf(task: string): number {
  const m = /(?:over|exceeds|above)\s+([\d.]+)\s*million/i.exec(task);
  return m ? Number(m[1]) * 1_000_000 : 1_000_000;
}

/** The measure the task means: what the oracle judges by. */
export function intendedMeasure(task: string): Measure {
  return /\bmetro(?:politan)?\b/i.test(task) ? 'metro_population' : 'population';
}

/** The simulated planner (see the file comment for how it behaves and why). */
export function simulatedPlan(task: string, instructions: string, draw: number): Plan {
  const country = COUNTRIES.find((c) => task.includes(c)) ?? COUNTRIES[0];
  const warned = /KNOWN PITFALLS[\s\S]*"metro_population"/.test(instructions);
  let measure: Measure = intendedMeasure(task);
  if (measure === 'population' && draw < (warned ? HEEDED_CONFUSION : PLANNER_CONFUSION)) measure = 'metro_population';
  return { country, measure, threshold: thresholdOf(task) };
}

function correctCities(task: string): string[] {
  const country = COUNTRIES.find((c) => task.includes(c)) ?? COUNTRIES[0];
  const measure = intendedMeasure(task);
  return CITIES.filter((c) => c.country === country && c[measure] > thresholdOf(task)).map((c) => c.city);
}

export interface CityDeskResult {
  runId: string | null;
  pass: boolean;
  error?: string;
}

export async function runCityDesk(opts: { task: CityTask; seed?: number; home?: string }): Promise<CityDeskResult> {
  const task = CITY_TASKS[opts.task];
  const seed = opts.seed ?? 1;
  const planner = step('planner', 'llm', async (req: { task: string }) => {
    const instructions = currentStep().instructions(PLANNER_INSTRUCTIONS);
    currentStep().setMetadata({ instructions }).setModel('sim-planner-1');
    const rng = mulberry32(seedFrom(seed, currentRun().fork?.trial ?? 0, currentStep().replayKey ?? ''));
    return simulatedPlan(req.task, instructions, rng());
  });
  const queryTable = step('query_table', 'tool', (plan: Plan): CityRow[] => CITIES.filter((c) => c.country === plan.country && c[plan.measure] > plan.threshold));
  const writer = step('writer', 'llm', async (rows: CityRow[]) => {
    currentStep().setModel('sim-writer-1');
    return rows.length ? `The cities are ${rows.map((r) => r.city).join(', ')}.` : 'No city matches.';
  });
  let runId: string | null = null;
  try {
    const answer = await pipeline(
      'city-desk',
      async (run) => {
        runId = run.runId;
        const plan = await planner({ task });
        const answer = await writer(queryTable(plan));
        const expected = correctCities(task);
        const named = CITIES.filter((c) => answer.includes(c.city)).map((c) => c.city);
        const extra = named.filter((c) => !expected.includes(c));
        const pass = extra.length === 0 && expected.every((c) => named.includes(c));
        run.verdict(pass, { detail: pass ? `names exactly ${expected.join(', ')}` : `wrongly includes ${extra.join(', ')}`, expected });
        return answer;
      },
      { home: opts.home, input: { task }, tags: { demo: 'learning', task: opts.task }, entry: demoEntry(SCRIPT, ['--task', opts.task, '--seed', String(seed)]) },
    );
    const expected = correctCities(task);
    return { runId, pass: expected.every((c) => answer.includes(c)) && !CITIES.some((c) => !expected.includes(c.city) && answer.includes(c.city)) };
  } catch (err) {
    return { runId, pass: false, error: (err as Error).message };
  }
}

if (isMainModule(SCRIPT)) {
  const { values } = parseArgs({ options: { task: { type: 'string', default: 'aurelia-population' }, seed: { type: 'string', default: '1' }, home: { type: 'string' } } });
  if (!(values.task! in CITY_TASKS)) {
    process.stderr.write(`unknown task "${values.task}" (known: ${Object.keys(CITY_TASKS).join(', ')})\n`);
    process.exit(2);
  }
  const result = await runCityDesk({ task: values.task as CityTask, seed: Number(values.seed), home: values.home });
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exitCode = result.pass ? 0 : 1;
}
