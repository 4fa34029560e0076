import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createEngine, type Engine } from '../create-engine';
import { runCityDesk } from '../../demo/city-desk';
import type { Explanation } from '../../../src-shared/explain';
import { saveExplanation } from './explanation-store';

describe('Verify: the agent\'s proposed edit runs as a fork experiment', () => {
  let engine: Engine;
  let runId: string;
  let plannerId: string;

  beforeAll(async () => {
    engine = createEngine({ home: fs.mkdtempSync(path.join(os.tmpdir(), 'tb-verify-')) });
    for (let seed = 1; seed < 40; seed++) {
      const r = await runCityDesk({ task: 'aurelia-population', seed, home: engine.paths.home });
      if (!r.pass) {
        runId = r.runId!;
        break;
      }
    }
    await engine.call('importPaths', { paths: [path.join(engine.paths.inbox, `${runId}.jsonl`)] });
    const run = await engine.call('getRun', { runId });
    if (!run.ok) throw new Error(run.error.message);
    plannerId = run.value.steps.find((s) => s.name === 'planner')!.step_id;
    // What an accepted answer looks like (the agent's call itself is tested against the stub API in explain-run.test.ts).
    const stored: Explanation = {
      run_id: runId,
      model: 'claude-test',
      created_at: 1,
      estimate: { model: 'claude-test', input_tokens: 1000, max_output_tokens: 2048, cost_usd: 0.03, budget_usd: 0.25, within_budget: true, full_text_steps: [plannerId], redactions: 0 },
      usage: { input_tokens: 1000, output_tokens: 200 },
      candidates: [
        {
          step_id: plannerId,
          step_name: 'planner',
          category: 'wrong_tool_or_arguments',
          confidence: 0.9,
          hypothesis: 'The planner filtered on metro_population although the task asks for population.',
          evidence: [{ step_id: plannerId, field: 'output', quote: 'metro_population', grounded: true, match: 'exact', overlap: 1 }],
          proposed_edit: { kind: 'output', value: { country: 'Aurelia', measure: 'population', threshold: 1000000 } },
          rejected_because: [],
        },
      ],
      rejected: [],
      blame_top_step_id: plannerId,
      disagrees_with_blame: false,
      note: null,
    };
    saveExplanation(engine.db, stored);
  }, 120_000);
  afterAll(() => engine?.close());

  it('a confirmed output edit is re-ranked by its measured effect and remembered as an agent motif', async () => {
    const r = await engine.call('verifyExplanation', { runId, n: 4, approve: true, parallel: 2 });
    if (!r.ok) throw new Error(r.error.message);
    const v = r.value.verification![0];
    expect(v).toMatchObject({ step_id: plannerId, effect: 1, confirmed: true, skipped: null });
    expect(v.p_value).toBeLessThan(0.05);
    const motifs = await engine.call('listMotifs', {});
    if (!motifs.ok) throw new Error(motifs.error.message);
    expect(motifs.value).toHaveLength(1);
    expect(motifs.value[0]).toMatchObject({ motif_id: v.motif_id, origin: 'agent', violation_cue: 'metro_population', source_run_id: runId });
    // Stored: tb explain --show prints it.
    const shown = await engine.call('getExplanation', { runId });
    expect(shown.ok && shown.value?.verification?.[0].experiment_id).toBe(v.experiment_id);
  }, 300_000);

  it('without a stored explanation, verify says to run tb explain first', async () => {
    const other = await runCityDesk({ task: 'caldera-metro', seed: 1, home: engine.paths.home });
    await engine.call('importPaths', { paths: [path.join(engine.paths.inbox, `${other.runId}.jsonl`)] });
    const r = await engine.call('verifyExplanation', { runId: other.runId!, n: 2 });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toMatch(/has no explanation yet: run tb explain/);
  }, 60_000);
});
