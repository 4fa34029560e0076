import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BlameResult, BlamedStep } from '../../../src-shared/analysis';
import type { RunDetail } from '../../../src-shared/model';
import { confirmBlame } from './confirm-blame';
import { listExperiments } from './summarize-experiment';
import { makeStubHome, recordStubRun, type StubHome } from '../../../test/support/stub-home';

let home: StubHome;
let failing: RunDetail;
let passing: RunDetail;

beforeAll(() => {
  home = makeStubHome();
  passing = recordStubRun(home);
  failing = recordStubRun(home, ['--fault', 'plan']);
});
afterAll(() => home.close());

function finding(run: RunDetail, key: string): BlamedStep {
  const s = run.steps.find((x) => x.replay_key === key)!;
  return { step_id: s.step_id, name: s.name, type: s.type, index: s.index, score: 0.5, confidence: 'low', reason: 'test', evidence: [], rule: 'test' };
}

describe('confirming blame by counterfactual', () => {
  it('transplanting the passing run’s plan fixes the run, the decoy timestamp step changes nothing, and the plan is named the root cause', async () => {
    expect(passing.run.verdict?.pass).toBe(true);
    expect(failing.run.verdict?.pass).toBe(false);
    // A blame that put the decoy first: the experiment, not the score, decides.
    const blame: BlameResult = {
      run_id: failing.run.run_id,
      healthy: false,
      failure: { kind: 'verdict', description: 'wrong cities' },
      blamed: [finding(failing, 'note#0'), finding(failing, 'plan#0')],
      co_blamed: [],
      symptoms: [],
      lineage_path: [],
      step_scores: [],
    };
    const c = await confirmBlame({ db: home.db, paths: home.paths }, { source: failing, n: 5, parallel: 2, approve: true }, () => blame);

    expect(c.reference_run_id).toBe(passing.run.run_id);
    expect(c.candidates.map((k) => k.key)).toEqual(['plan#0', 'note#0']);
    const [plan, note] = c.candidates;
    expect(plan).toMatchObject({ effect: 1, confirmed: true, blame_rank: 1 });
    // Fisher 5/5 vs 0/5 = 2/252; BH over two tests doubles the smaller p.
    expect(plan.p_value).toBeCloseTo(2 / 252, 10);
    expect(plan.p_adjusted).toBeCloseTo(4 / 252, 10);
    expect(note).toMatchObject({ effect: 0, confirmed: false, p_value: 1, p_adjusted: 1 });
    expect(c.root_cause_step_id).toBe(plan.step_id);
    expect(listExperiments(home.db, { groupId: c.group_id })).toHaveLength(2);
  }, 90_000);

  it('a step whose output is the same in the passing run is not tested', async () => {
    const c = await confirmBlame({ db: home.db, paths: home.paths }, { source: failing, reference: failing, candidates: ['search#0'], n: 1 }, () => {
      throw new Error('blame is not consulted when candidates are named');
    });
    expect(c.candidates[0]).toMatchObject({ key: 'search#0', experiment_id: null, confirmed: false });
    expect(c.candidates[0].skipped).toMatch(/same output in both runs/);
    expect(c.root_cause_step_id).toBeNull();
  });
});
