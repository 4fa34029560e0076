import { describe, expect, it } from 'vitest';
import { findDuplicateLlmCalls } from './duplicate-llm-calls';
import type { ForeignStep } from './foreign-run';

function llm(id: string, start: number, end: number, fields: Partial<ForeignStep>): ForeignStep {
  return { id, parentId: null, name: 'chat', type: 'llm', start, end, status: 'ok', startMetadata: {}, endMetadata: {}, position: { line: 1, path: id }, ...fields };
}

const question = { messages: [{ role: 'user', content: 'Is 17 prime?' }] };

describe('duplicate model calls', () => {
  it('does not merge self-consistency samples that ran in parallel on the same prompt', () => {
    const a = llm('a', 0, 100, { input: question, output: { role: 'assistant', content: 'Yes.' }, usage: { input_tokens: 5, output_tokens: 2 } });
    const b = llm('b', 1, 99, { input: question, output: { role: 'assistant', content: 'Yes, 17 is prime.' }, usage: { input_tokens: 5, output_tokens: 6 } });
    expect(findDuplicateLlmCalls([a, b]).size).toBe(0);
  });

  it('does not merge the same prompt sent twice one after the other (a retry)', () => {
    const a = llm('a', 0, 100, { input: question, output: { role: 'assistant', content: 'Yes.' }, usage: { input_tokens: 5, output_tokens: 2 } });
    const b = llm('b', 150, 250, { input: question, output: { role: 'assistant', content: 'Yes.' }, usage: { input_tokens: 5, output_tokens: 2 } });
    expect(findDuplicateLlmCalls([a, b]).size).toBe(0);
  });

  it('marks the inner layer of a call recorded by two layers even when only the outputs agree', () => {
    const outer = llm('outer', 0, 100, { output: { role: 'assistant', content: 'Yes.' } });
    const inner = llm('inner', 3, 98, { output: { role: 'assistant', content: 'Yes.' }, usage: { input_tokens: 5, output_tokens: 2 } });
    expect([...findDuplicateLlmCalls([outer, inner])]).toEqual([['inner', 'outer']]);
  });
});
