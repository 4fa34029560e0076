import { describe, expect, it } from 'vitest';
import type { Step } from '../../../src-shared/model';
import { step } from '../../../test/support/graph-steps';
import { buildStepTree, holdsFailure } from '../graph/step-tree';
import { findInRun, repeatedNames, rollup, stepPath } from './find-in-run';

function run(): Step[] {
  return [
    { ...step('root', null, 0), name: 'agent' },
    { ...step('it0', 'root', 1), name: 'iteration' },
    { ...step('search0', 'it0', 2), name: 'web_search', output: { results: [{ text: 'Paris is the capital\nof France.' }] } },
    { ...step('it1', 'root', 3), name: 'iteration' },
    {
      ...step('search1', 'it1', 4),
      name: 'web_search',
      status: 'error',
      error: { type: 'UpstreamTimeout', message: 'search backend did not answer in 5 s' },
    },
    { ...step('answer', 'root', 5), name: 'answer', input: { q: 'capital of France?' }, output: 'Lyon. Final answer: Lyon' },
  ];
}

describe('find in a run', () => {
  it('text copied from a step panel (with its line breaks) finds the step whose output holds it', () => {
    const hits = findInRun(run(), 'capital  of\n France');
    expect(hits.map((h) => [h.stepId, h.fields])).toEqual([
      ['search0', ['output']],
      ['answer', ['input']],
    ]);
  });

  it('searches names and errors too, case-insensitively, and counts every occurrence', () => {
    expect(findInRun(run(), 'upstreamtimeout').map((h) => h.stepId)).toEqual(['search1']);
    const names = findInRun(run(), 'WEB_search');
    expect(names.map((h) => h.stepId)).toEqual(['search0', 'search1']);
    expect(findInRun(run(), 'lyon')).toEqual([{ stepId: 'answer', fields: ['output'], count: 2 }]);
  });

  it('a search with no match, or no text, finds nothing', () => {
    expect(findInRun(run(), 'Berlin')).toEqual([]);
    expect(findInRun(run(), '   ')).toEqual([]);
  });

  it('the roll-up counts failed steps as errors and an ok iteration holding a timeout as a warning', () => {
    const tree = buildStepTree(run());
    const scores: Record<string, number> = { answer: 0.1, search0: 0.9 };
    const r = rollup(tree, holdsFailure(tree), (id) => scores[id] ?? null, 0.5);
    expect(r.errors).toEqual(['search1']);
    expect(r.warnings).toEqual(['root', 'it1']);
    expect(r['low-score']).toEqual(['answer']);
  });

  it('rows of repeated names carry their path from the root', () => {
    const steps = run();
    const tree = buildStepTree(steps);
    expect([...repeatedNames(steps)].sort()).toEqual(['iteration', 'web_search']);
    expect(stepPath(tree, 'search1')).toBe('agent › iteration › web_search');
    expect(stepPath(tree, 'search1', 2)).toBe('… › iteration › web_search');
  });
});
