import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GuardBlockedError, guardCheck, pipeline, pitfalls, step, withPitfalls, type KnownMotif } from './index.js';
import { onlyRun, stepStarts, tempHome } from './test-support/read-runs.js';

/** A motif as `tb motifs export` writes it (learned when a planner filtered on the wrong column). */
const MOTIF: KnownMotif = {
  motif_id: 'motif-planner-measure',
  name: 'planner set measure to "metro_population" instead of "population"',
  requirement: `When the task says "population", planner's measure must be "population".`,
  violation: 'planner set measure to "metro_population".',
  recommendation: 'Use "population" for measure when the task asks about "population"; "metro_population" made the run fail.',
  task_cue: 'population',
  violation_cue: 'metro_population',
  step_signature: 'planner',
};

function motifHome(): { home: string; file: string } {
  const home = tempHome();
  const file = join(home, 'motifs.json');
  writeFileSync(file, JSON.stringify({ format: 'traceback-motifs', version: 1, exported_at: 1, motifs: [{ ...MOTIF, step_type: 'llm', origin: 'blame' }] }));
  return { home, file };
}

describe('known pitfalls before the prompt', () => {
  it('a task of the same family gets the pitfall, with the sentence of the task that makes it apply', () => {
    const { file } = motifHome();
    const task = 'We track growth. List the cities of Caldera whose population exceeds 1 million.';
    const found = pitfalls(task, { step: 'planner', file });
    expect(found).toHaveLength(1);
    expect(found[0].task_quote).toBe('List the cities of Caldera whose population exceeds 1 million.');
    expect(task).toContain(found[0].task_quote);
    const prompt = withPitfalls('Plan the lookup.', task, { step: 'planner', file });
    expect(prompt).toMatch(/^KNOWN PITFALLS/);
    expect(prompt).toContain('Why it applies: the task says "List the cities of Caldera whose population exceeds 1 million."');
    expect(prompt.endsWith('\n\nPlan the lookup.')).toBe(true);
  });

  it('an unrelated task, a near miss and another step stay clean: no quote, no warning', () => {
    const { file } = motifHome();
    expect(withPitfalls('Plan.', 'Translate this email into French.', { file })).toBe('Plan.');
    expect(pitfalls('List the cities of Caldera whose metropolitan area exceeds 1 million people.', { file })).toEqual([]);
    // The task itself asks for the value the motif warns against.
    expect(pitfalls('Which cities in Caldera have a metro population over 1 million?', { file })).toEqual([]);
    expect(pitfalls('List the cities of Caldera whose population exceeds 1 million.', { step: 'writer', file })).toEqual([]);
  });

  it('"populous" meets "population" (a light stem); a missing motif file means no motifs', () => {
    expect(pitfalls('Which cities of Caldera are populous?', { motifs: [MOTIF] })).toHaveLength(1);
    expect(pitfalls('Which cities of Caldera have a population over 1 million?', { file: join(tempHome(), 'none.json') })).toEqual([]);
  });

  it('the threshold comes from the app\'s settings through the file, and an option overrides it', () => {
    const two = { ...MOTIF, task_cue: 'largest population' };
    const file = join(tempHome(), 'motifs.json');
    const task = 'Which cities of Caldera have a population over 1 million?';
    writeFileSync(file, JSON.stringify({ format: 'traceback-motifs', version: 1, exported_at: 1, motifs: [two] }));
    // One of two cue words: 0.5 is below the default 0.70.
    expect(pitfalls(task, { file })).toEqual([]);
    writeFileSync(file, JSON.stringify({ format: 'traceback-motifs', version: 1, exported_at: 2, thresholds: { pitfall: 0.5, guard: 0.8 }, motifs: [two] }));
    expect(pitfalls(task, { file })).toHaveLength(1);
    expect(pitfalls(task, { file, threshold: 0.9 })).toEqual([]);
  });

  it('a file that is not a motif file is an error naming it', () => {
    const file = join(tempHome(), 'motifs.json');
    writeFileSync(file, '{"motifs": 3}');
    expect(() => pitfalls('x', { file })).toThrow(`${file}: not a Traceback motif file`);
  });
});

describe('the guard before execution', () => {
  const TASK = 'List the cities of Caldera whose population exceeds 1 million.';

  it('fires only with both quotes: the task\'s and the violating value in the call', () => {
    expect(guardCheck(TASK, { measure: 'metro_population' }, { motifs: [MOTIF] })[0]).toMatchObject({ call_quote: 'metro_population', task_quote: TASK });
    expect(guardCheck(TASK, { measure: 'population' }, { motifs: [MOTIF] })).toEqual([]);
    expect(guardCheck('List the cities of Caldera whose metropolitan area exceeds 1 million people.', { measure: 'metro_population' }, { motifs: [MOTIF] })).toEqual([]);
    // Inside a longer name it is not the value.
    expect(guardCheck(TASK, { measure: 'metro_population_2020' }, { motifs: [MOTIF] })).toEqual([]);
  });

  it('block mode records a guard step and stops the tool with an error the pipeline can catch', async () => {
    const { home, file } = motifHome();
    let ran = false;
    const query = step('query_table', 'tool', (plan: { measure: string }) => {
      ran = true;
      return plan.measure;
    }, { guard: 'block', guardTask: TASK, guardMotifFile: file });
    const caught = await pipeline('city-desk', async () => {
      try {
        query({ measure: 'metro_population' });
        return 'not blocked';
      } catch (err) {
        return err instanceof GuardBlockedError ? err.message : 'other error';
      }
    }, { home });
    expect(ran).toBe(false);
    expect(caught).toMatch(/^traceback guard blocked step "query_table": planner set measure/);
    const starts = stepStarts(onlyRun(home));
    expect(starts.map((s) => s.replay_key)).toEqual(['query_table#0', 'query_table#0/guard#0']);
  });

  it('warn mode records the guard step and lets the call run; the task can come from withPitfalls earlier in the run', async () => {
    const { home, file } = motifHome();
    const query = step('query_table', 'tool', (plan: { measure: string }) => plan.measure, { guard: 'warn', guardMotifFile: file });
    const out = await pipeline('city-desk', async () => {
      withPitfalls('Plan.', TASK, { file });
      return query({ measure: 'metro_population' });
    }, { home });
    expect(out).toBe('metro_population');
    expect(stepStarts(onlyRun(home)).map((s) => s.name)).toEqual(['query_table', 'guard']);
  });

  it('a correct call leaves no guard step', async () => {
    const { home, file } = motifHome();
    const query = step('query_table', 'tool', (plan: { measure: string }) => plan.measure, { guard: 'block', guardTask: TASK, guardMotifFile: file });
    await pipeline('city-desk', async () => query({ measure: 'population' }), { home });
    expect(stepStarts(onlyRun(home)).map((s) => s.name)).toEqual(['query_table']);
  });
});

describe('the cases both SDKs are tested on', () => {
  it('pitfalls and the guard give the answers the Python SDK gives', () => {
    const shared = JSON.parse(readFileSync(new URL('../../../test/fixtures/pitfalls/cases.json', import.meta.url), 'utf8')) as {
      motif: KnownMotif;
      cases: { task: string; quote: string | null; call: unknown; fires: boolean }[];
    };
    for (const c of shared.cases) {
      expect(pitfalls(c.task, { motifs: [shared.motif] }).map((p) => p.task_quote), c.task).toEqual(c.quote ? [c.quote] : []);
      expect(guardCheck(c.task, c.call, { motifs: [shared.motif] }).length > 0, c.task).toBe(c.fires);
    }
  });
});
