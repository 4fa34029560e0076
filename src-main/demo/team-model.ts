/**
 * The research team's model: a seeded stochastic simulation by default, so
 * experiments run offline and trials differ only by their seed.
 *
 * How the simulation behaves (what makes the fork experiments come out the
 * way docs/replay.md describes):
 * - planner: follows its instructions literally; the measure column it picks
 *   is whatever the instructions name (the planted bug lives there);
 * - researcher summary: overlooks each matching city with probability
 *   OVERLOOK_RATE, the only noise that can change correctness;
 * - writer: picks one of several phrasings (cosmetic noise only);
 * - critic: checks the answer against the researcher's findings, not against
 *   the data, so it approves a faithfully written wrong answer.
 */
import type { CityRow } from './corpus/cities';
import { COUNTRIES } from './corpus/cities';
import { pick, type Rng } from './seeded-random';
import { afterGeneration } from './simulated-latency';

const OVERLOOK_RATE = 0.03;

export interface ResearchPlan {
  country: string;
  measure: 'population' | 'metro_population';
  op: '>';
  threshold: number;
}

export interface Usage {
  input_tokens: number;
  output_tokens: number;
}

export interface Completion<T> {
  value: T;
  usage: Usage;
}

export interface TeamModel {
  readonly name: string;
  plan(question: string, instructions: string, rng: Rng): Promise<Completion<ResearchPlan>>;
  summarize(rows: CityRow[], plan: ResearchPlan, rng: Rng): Promise<Completion<string[]>>;
  write(question: string, cities: string[], instructions: string, rng: Rng): Promise<Completion<string>>;
  critique(answer: string, cities: string[], rng: Rng): Promise<Completion<{ approved: boolean; comments: string }>>;
}

const tokens = (v: unknown) => Math.ceil(JSON.stringify(v).length / 4);
const usage = (input: unknown, output: unknown): Usage => ({ input_tokens: tokens(input), output_tokens: tokens(output) });

const timed = <T>(c: Completion<T>): Promise<Completion<T>> => afterGeneration(c, c.usage.output_tokens);

function parseThreshold(question: string): number {
  const m = /over\s+([\d.,]+)\s*(million|m\b|thousand|k\b)?/i.exec(question);
  if (!m) return 1_000_000;
  const n = Number(m[1].replace(/,/g, ''));
  const unit = (m[2] ?? '').toLowerCase();
  return unit.startsWith('m') ? n * 1_000_000 : unit.startsWith('t') || unit === 'k' ? n * 1_000 : n;
}

function joinNames(names: string[]): string {
  if (names.length <= 1) return names.join('');
  return `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

export const simulatedTeamModel: TeamModel = {
  name: 'sim-team-1',
  async plan(question, instructions) {
    const country = COUNTRIES.find((c) => question.includes(c)) ?? COUNTRIES[0];
    // The instruction that names the measure wins; the table description mentions both columns.
    const named = /size by (metro_population|population)\b/i.exec(instructions)?.[1];
    const measure = named === 'metro_population' ? 'metro_population' : 'population';
    const value: ResearchPlan = { country, measure, op: '>', threshold: parseThreshold(question) };
    return timed({ value, usage: usage({ question, instructions }, value) });
  },
  async summarize(rows, plan, rng) {
    const value = rows.filter(() => rng() >= OVERLOOK_RATE).map((r) => r.city);
    return timed({ value, usage: usage({ rows, plan }, value) });
  },
  async write(question, cities, instructions, rng) {
    const country = COUNTRIES.find((c) => question.includes(c)) ?? 'the country';
    const bullets = /bullet/i.test(instructions);
    let value: string;
    if (cities.length === 0) value = `No city in ${country} matches: none has a population over the threshold.`;
    else if (bullets) value = `Cities in ${country} over the threshold:\n${cities.map((c) => `- ${c}`).join('\n')}`;
    else {
      value = pick(rng, [
        `The cities in ${country} with a population over the threshold are ${joinNames(cities)}.`,
        `${joinNames(cities)}: these are the cities in ${country} above the threshold.`,
        `In ${country}, ${cities.length} cities qualify: ${joinNames(cities)}.`,
      ]);
    }
    return timed({ value, usage: usage({ question, cities, instructions }, value) });
  },
  async critique(answer, cities) {
    const missing = cities.filter((c) => !answer.includes(c));
    const value = missing.length
      ? { approved: false, comments: `The answer leaves out ${joinNames(missing)}.` }
      : { approved: true, comments: 'The answer lists every city in the findings.' };
    return timed({ value, usage: usage({ answer, cities }, value) });
  },
};
