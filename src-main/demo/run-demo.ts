/**
 * `tb demo`: records the demo pipelines' runs into `<home>/inbox` in-process.
 * Each run's entry command re-runs the same variant as a standalone script,
 * so fork experiments work on demo runs too.
 */
import { join } from 'node:path';
import { runResearchTeam } from './research-team';
import { runSupportBot } from './support-bot';

export interface DemoOptions {
  home: string;
  /** How many runs to write (default: one per variant, 9; at least 6 so every failure kind is there). */
  runs?: number;
  log?: (line: string) => void;
}

interface DemoRun {
  label: string;
  run: (home: string, seed: number) => Promise<{ runId: string | null; pass: boolean; error?: string }>;
}

const support = (variant: string): DemoRun => ({ label: `support-bot ${variant}`, run: (home, seed) => runSupportBot(variant, { home, seed }) });
const research = (variant: 'planted' | 'fixed'): DemoRun => ({
  label: `research-team ${variant}`,
  run: (home, seed) => runResearchTeam({ home, seed: seed + 6, variant }),
});

/** Ordered so that the first six already hold two healthy runs and three kinds of failure. */
const DEMO_RUNS: DemoRun[] = [
  support('healthy-lookup'),
  support('irrelevant-retrieval'),
  support('healthy-calc'),
  support('tool-exception'),
  support('refusal'),
  research('planted'),
  support('healthy-retry'),
  support('healthy-sync'),
  research('fixed'),
];

export async function runDemo(opts: DemoOptions): Promise<{ runIds: string[]; inbox: string }> {
  const total = Math.max(6, opts.runs ?? DEMO_RUNS.length);
  const runIds: string[] = [];
  for (let i = 0; i < total; i++) {
    const demo = DEMO_RUNS[i % DEMO_RUNS.length];
    const seed = 1 + Math.floor(i / DEMO_RUNS.length);
    const result = await demo.run(opts.home, seed);
    if (result.runId) runIds.push(result.runId);
    opts.log?.(`${result.pass ? 'pass' : 'FAIL'}  ${demo.label}${result.error ? ` (${result.error})` : ''}  ${result.runId ?? ''}`);
  }
  return { runIds, inbox: join(opts.home, 'inbox') };
}
