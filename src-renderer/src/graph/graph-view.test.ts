import { describe, expect, it } from 'vitest';
import type { Step } from '../../../src-shared/model';
import { step } from '../../../test/support/graph-steps';
import { isFrameworkWrapper } from './graph-constants';
import { shownStandIn, withoutWrappers } from './graph-view';
import { buildStepTree } from './step-tree';

const named = (id: string, parent: string | null, index: number, name: string): Step => ({ ...step(id, parent, index), name });

function langGraphRun(): Step[] {
  return [
    named('root', null, 0, 'support_agent'),
    named('start', 'root', 1, '__start__'),
    named('cw', 'start', 2, 'ChannelWrite<branch:to:agent>'),
    named('agent', 'root', 3, 'agent'),
    named('seq', 'agent', 4, 'RunnableSequence'),
    named('lambda', 'seq', 5, 'RunnableLambda'),
    named('llm', 'seq', 6, 'ChatOpenAI'),
    named('branch', 'agent', 7, 'Branch<agent,tools,__end__>'),
  ];
}

describe('framework wrappers on the graph', () => {
  it("LangGraph's and LangChain's glue steps are recognised by name, the user's own steps are not", () => {
    for (const name of ['__start__', '__end__', 'RunnableSequence', 'RunnableLambda', 'RunnableParallel<a,b>', 'ChannelWrite<...>', 'Branch<agent,tools,__end__>']) {
      expect(isFrameworkWrapper(name), name).toBe(true);
    }
    for (const name of ['agent', 'tools', 'ChatOpenAI', 'retrieve', 'Runnable', 'Branching logic']) expect(isFrameworkWrapper(name), name).toBe(false);
  });

  it('hidden wrappers take their subtree with them only where it is glue; a real step inside one moves up to the nearest shown step', () => {
    const full = buildStepTree(langGraphRun());
    const shown = withoutWrappers(full, (s) => isFrameworkWrapper(s.name), new Set());
    expect(shown.steps.map((s) => s.step_id)).toEqual(['root', 'agent', 'llm']);
    expect(shown.parentOf('llm')).toBe('agent');
    expect(shownStandIn(full, shown, 'lambda')).toBe('agent');
    expect(shownStandIn(full, shown, 'llm')).toBe('llm');
  });

  it('a wrapper the blame points at stays on the graph, and a run without wrappers keeps its tree as is', () => {
    const full = buildStepTree(langGraphRun());
    const shown = withoutWrappers(full, (s) => isFrameworkWrapper(s.name), new Set(['seq']));
    expect(shown.steps.map((s) => s.step_id)).toEqual(['root', 'agent', 'seq', 'llm']);
    const plain = buildStepTree([step('a', null, 0), step('b', 'a', 1)]);
    expect(withoutWrappers(plain, (s) => isFrameworkWrapper(s.name), new Set())).toBe(plain);
  });
});
