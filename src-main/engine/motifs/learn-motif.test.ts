import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createEngine, type Engine } from '../create-engine';
import { runCityDesk } from '../../demo/city-desk';

describe('the user accepts a blame and says what the step should have produced', () => {
  let engine: Engine;
  let failing: string;
  let passing: string;

  beforeAll(async () => {
    engine = createEngine({ home: fs.mkdtempSync(path.join(os.tmpdir(), 'tb-learn-')) });
    for (let seed = 1; seed < 40 && !(failing && passing); seed++) {
      const r = await runCityDesk({ task: 'aurelia-population', seed, home: engine.paths.home });
      if (r.pass) passing ??= r.runId!;
      else failing ??= r.runId!;
    }
    await engine.call('importPaths', { paths: [engine.paths.inbox] });
  }, 120_000);
  afterAll(() => engine?.close());

  it('the motif is remembered from the run, written to the SDKs\' file, and gone from it when forgotten', async () => {
    const r = await engine.call('learnMotif', { runId: failing, at: 'planner#0', output: { country: 'Aurelia', measure: 'population', threshold: 1000000 } });
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value).toMatchObject({ origin: 'blame', task_cue: 'population', violation_cue: 'metro_population', proof: null, source_run_id: failing });
    const file = JSON.parse(fs.readFileSync(path.join(engine.paths.home, 'motifs.json'), 'utf8'));
    expect(file.motifs).toHaveLength(1);
    // The SDKs take the gate's thresholds from the app's settings through the file.
    expect(file.thresholds).toEqual({ pitfall: 0.7, guard: 0.8 });
    const forgot = await engine.call('forgetMotif', { motifId: r.value.motif_id });
    expect(forgot.ok).toBe(true);
    expect(JSON.parse(fs.readFileSync(path.join(engine.paths.home, 'motifs.json'), 'utf8')).motifs).toEqual([]);
  });

  it('a healthy run has nothing to learn from', async () => {
    const r = await engine.call('learnMotif', { runId: passing, at: 'planner#0', output: {} });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toMatch(/looks healthy/);
  });
});
