/**
 * "research-team": a multi-agent pipeline for fork experiments.
 *
 *   planner (llm) → researcher (agent: query_table tool → summarize_findings llm)
 *   → writer (llm) → critic (llm) → verdict from a code oracle against the
 *   exact ground truth of corpus/cities.ts
 *
 * Planted root cause (variant "planted", the default): `planner#0`. Its
 * instructions tell it to measure cities by metro_population, so the plan
 * filters on the wrong column; the researcher, writer and critic all do
 * their jobs faithfully and the wrong answer surfaces only at the end
 * (Dunmore and Lenhal are listed; their city proper is under 1 million).
 * Variant "fixed" uses the corrected instructions and passes.
 *
 * Fork experiments this pipeline is built for (seeded per trial, offline):
 * - fork at planner#0 with the corrected plan (or corrected instructions):
 *   the treatment passes unless the summary overlooks a city (3% per city),
 *   the control keeps the wrong plan and fails;
 * - fork at writer#0 with a cosmetic edit (same cities, other formatting):
 *   both arms fail, the edit has no effect.
 *
 * Each simulated model call draws from a PRNG seeded by (--seed, the fork
 * trial number, the step's replay key), so trials differ and the two arms of
 * one trial share their noise.
 *
 * With --model claude and ANTHROPIC_API_KEY set, the same steps call Claude
 * through the SDK's Anthropic wrapper (untested here: no network).
 *
 * Standalone: npx tsx src-main/demo/research-team.ts [--variant planted|fixed] [--seed 7] [--home DIR]
 */
import { parseArgs } from 'node:util';
import type { EntryCommand } from '../../src-shared/trace-format';
import { currentRun, currentStep, pipeline, step, type RunHandle } from '../../sdk/typescript/src/index';
import type { ReplayPlan } from '../../src-shared/replay-plan';
import { CITIES, citiesOver, type CityRow } from './corpus/cities';
import { demoEntry, isMainModule } from './script-main';
import { mulberry32, seedFrom, type Rng } from './seeded-random';
import { simulatedTeamModel, type Completion, type ResearchPlan, type TeamModel } from './team-model';

/** This file, as a fork experiment starts it again (script-main.ts). */
const SCRIPT = 'src-main/demo/research-team.ts';

export const RESEARCH_QUESTION = 'Which cities in Aurelia have a population over 1 million?';

const TABLE_DESCRIPTION = 'The table `cities` has the columns city, country, population (people living in the city proper) and metro_population (people in the whole metropolitan area).';

/** The planted bug: the last sentence sends the planner to the wrong column. */
export const PLANTED_PLANNER_INSTRUCTIONS = `You plan research over a city table. ${TABLE_DESCRIPTION} Turn the question into one filter: the country, the column to compare and the threshold. Measure a city's size by metro_population.`;
export const FIXED_PLANNER_INSTRUCTIONS = `You plan research over a city table. ${TABLE_DESCRIPTION} Turn the question into one filter: the country, the column to compare and the threshold. Measure a city's size by population (the city proper), as the question asks.`;
export const WRITER_INSTRUCTIONS = 'Write a one-sentence answer that names every city in the findings.';

/** The plan a fork at planner#0 should inject to test the fix (the output edit). */
export function correctedPlan(): ResearchPlan {
  return { country: 'Aurelia', measure: 'population', op: '>', threshold: 1_000_000 };
}

export const RESEARCH_VARIANTS = ['planted', 'fixed'] as const;
export type ResearchVariant = (typeof RESEARCH_VARIANTS)[number];

/** The oracle: the known city names the answer mentions, compared with the ground truth. */
export function judgeAnswer(answer: string, question = RESEARCH_QUESTION): { pass: boolean; named: string[]; expected: string[]; detail: string } {
  const country = CITIES.find((c) => question.includes(c.country))?.country ?? 'Aurelia';
  const expected = citiesOver(country, 1_000_000);
  const named = CITIES.filter((c) => answer.includes(c.city)).map((c) => c.city);
  const extra = named.filter((c) => !expected.includes(c));
  const missing = expected.filter((c) => !named.includes(c));
  const pass = extra.length === 0 && missing.length === 0;
  const detail = pass
    ? `the answer names exactly ${expected.join(', ')}`
    : [extra.length ? `wrongly includes ${extra.join(', ')}` : '', missing.length ? `misses ${missing.join(', ')}` : ''].filter(Boolean).join('; ');
  return { pass, named, expected, detail };
}

export interface ResearchRunOptions {
  home?: string;
  seed?: number;
  variant?: ResearchVariant;
  question?: string;
  entry?: EntryCommand | null;
  /** Run as a fork trial under this plan (tests); by default the SDK reads $TRACEBACK_REPLAY_PLAN. */
  replayPlan?: ReplayPlan | null;
  model?: TeamModel;
  /** Command-line flag that selects `model` (recorded in the entry so a fork re-run uses the same model). */
  modelFlag?: string;
}

export interface ResearchRunResult {
  runId: string | null;
  answer: string | null;
  pass: boolean;
  error?: string;
}

export async function runResearchTeam(opts: ResearchRunOptions = {}): Promise<ResearchRunResult> {
  const seed = opts.seed ?? 7;
  const variant = opts.variant ?? 'planted';
  const question = opts.question ?? RESEARCH_QUESTION;
  const model = opts.model ?? simulatedTeamModel;

  /** Per-step noise from (seed, fork trial, replay key): arms of one trial share it. */
  const rngForStep = (): Rng => {
    const trial = currentRun().fork?.trial ?? 0;
    return mulberry32(seedFrom(seed, trial, currentStep().replayKey ?? ''));
  };
  const record = <T>(c: Completion<T>): T => {
    currentStep()
      .setModel(model.name)
      .setUsage({ ...c.usage, total_tokens: c.usage.input_tokens + c.usage.output_tokens });
    return c.value;
  };

  const planner = step('planner', 'llm', async (req: { question: string }) => {
    const defaults = variant === 'fixed' ? FIXED_PLANNER_INSTRUCTIONS : PLANTED_PLANNER_INSTRUCTIONS;
    const instructions = currentStep().instructions(defaults);
    currentStep().setMetadata({ instructions });
    return record(await model.plan(req.question, instructions, rngForStep()));
  });

  const queryTable = step('query_table', 'tool', (plan: ResearchPlan): CityRow[] =>
    CITIES.filter((c) => c.country === plan.country && c[plan.measure] > plan.threshold),
  );

  const summarize = step('summarize_findings', 'llm', async (req: { plan: ResearchPlan; rows: CityRow[] }) =>
    record(await model.summarize(req.rows, req.plan, rngForStep())),
  );

  const researcher = step('researcher', 'agent', async (plan: ResearchPlan) => {
    const rows = queryTable(plan);
    return { cities: await summarize({ plan, rows }) };
  });

  const writer = step('writer', 'llm', async (req: { question: string; findings: { cities: string[] } }) => {
    const instructions = currentStep().instructions(WRITER_INSTRUCTIONS);
    return record(await model.write(req.question, req.findings.cities, instructions, rngForStep()));
  });

  const critic = step('critic', 'llm', async (req: { answer: string; findings: { cities: string[] } }) => {
    const review = record(await model.critique(req.answer, req.findings.cities, rngForStep()));
    currentStep().score('critic_approval', review.approved ? 1 : 0, review.comments);
    return review;
  });

  const body = async (run: RunHandle): Promise<string> => {
    const plan = await planner({ question });
    const findings = await researcher(plan);
    const answer = await writer({ question, findings });
    await critic({ answer, findings });
    const judged = judgeAnswer(answer, question);
    run.verdict(judged.pass, { detail: judged.detail, expected: judged.expected });
    return answer;
  };

  let runId: string | null = null;
  try {
    const answer = await pipeline(
      'research-team',
      async (run) => {
        runId = run.runId;
        return body(run);
      },
      {
        home: opts.home,
        input: { question },
        tags: { demo: 'research-team', variant },
        entry:
          opts.entry === undefined
            ? demoEntry(SCRIPT, ['--variant', variant, '--seed', String(seed), ...(opts.modelFlag ? ['--model', opts.modelFlag] : [])])
            : opts.entry,
        replayPlan: opts.replayPlan,
      },
    );
    return { runId, answer, pass: judgeAnswer(answer, question).pass };
  } catch (err) {
    return { runId, answer: null, pass: false, error: (err as Error).message };
  }
}

if (isMainModule(SCRIPT)) {
  const { values } = parseArgs({
    options: {
      variant: { type: 'string', default: 'planted' },
      seed: { type: 'string', default: '7' },
      home: { type: 'string' },
      model: { type: 'string', default: 'sim' },
    },
  });
  if (!RESEARCH_VARIANTS.includes(values.variant as ResearchVariant)) {
    process.stderr.write(`unknown variant "${values.variant}" (known: ${RESEARCH_VARIANTS.join(', ')})\n`);
    process.exit(2);
  }
  let model: TeamModel | undefined;
  if (values.model === 'claude') {
    const { claudeTeamModel } = await import('./team-model-claude');
    model = await claudeTeamModel();
  }
  const result = await runResearchTeam({ variant: values.variant as ResearchVariant, seed: Number(values.seed), home: values.home, model, modelFlag: model ? values.model : undefined });
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exitCode = result.pass ? 0 : 1;
}
