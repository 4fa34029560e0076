import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createEngine, type Engine } from '../engine/create-engine';
import { runLearningDemo, type LearningDemoResult } from './learning-loop';
import { runCityDesk } from './city-desk';

describe('tb demo --learning: fail, confirm, remember, warn the next task, measure the warning', () => {
  let engine: Engine;
  let result: LearningDemoResult;
  const lines: string[] = [];

  beforeAll(async () => {
    engine = createEngine({ home: fs.mkdtempSync(path.join(os.tmpdir(), 'tb-learning-')) });
    result = await runLearningDemo(engine, (l) => lines.push(l), { n: 12, confirmN: 4, parallel: 2 });
  }, 600_000);
  afterAll(() => engine?.close());

  it('the blame confirmation proves the planner and the engine remembers it as an abstract motif', () => {
    expect(result.confirmation.root_cause_step_id).not.toBeNull();
    const root = result.confirmation.candidates.find((c) => c.step_id === result.confirmation.root_cause_step_id)!;
    expect(root.name).toBe('planner');
    expect(result.motif).toMatchObject({ origin: 'blame', step_signature: 'planner', task_cue: 'population', violation_cue: 'metro_population', source_run_id: result.failing_run });
    expect(result.motif!.proof!.treatment_pass_rate).toBe(1);
    // The SDKs' file holds it.
    const file = JSON.parse(fs.readFileSync(path.join(engine.paths.home, 'motifs.json'), 'utf8'));
    expect(file.motifs.map((m: { motif_id: string }) => m.motif_id)).toEqual([result.motif!.motif_id]);
  });

  it('a different task of the family gets the pitfall, quoted from its own text, and the warned planner fails less', () => {
    expect(result.pitfalls_for_family_task).toHaveLength(1);
    expect(result.pitfalls_for_family_task[0].task_quote).toBe('List the cities of Caldera whose population exceeds 1 million.');
    const e = result.pitfall_experiment!;
    expect(e.status).toBe('done');
    expect(e.treatment.passed).toBeGreaterThan(e.control.passed);
    expect(lines.join('\n')).toMatch(/The pitfall block (cut the failure rate|made no detectable difference) \(control \d+\/12 pass, treatment \d+\/12 pass, p = /);
  });

  it('the near miss gets no warning and the guard fires only where the call repeats the violation', () => {
    expect(result.pitfalls_for_near_miss).toEqual([]);
    expect(result.guard).toEqual({ family_task_fires: true, near_miss_fires: false });
  });

  it('a failed run of another task of the family now says "seen before"', async () => {
    let failed: string | null = null;
    for (let seed = 100; seed < 140 && !failed; seed++) {
      const r = await runCityDesk({ task: 'caldera-population', seed, home: engine.paths.home });
      if (!r.pass) failed = r.runId;
    }
    expect(failed).not.toBeNull();
    await engine.call('importPaths', { paths: [path.join(engine.paths.inbox, `${failed}.jsonl`)] });
    const seen = await engine.call('seenBefore', { runId: failed! });
    if (!seen.ok) throw new Error(seen.error.message);
    expect(seen.value.map((s) => s.motif_id)).toEqual([result.motif!.motif_id]);
  });
});
