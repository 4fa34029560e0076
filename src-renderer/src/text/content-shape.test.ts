import { describe, expect, it } from 'vitest';
import type { Json } from '../../../src-shared/trace-format';
import { contentShape } from './content-shape';

describe('step content read as people read it', () => {
  it("the importers' normalized chat (OTLP, LangChain) is a conversation with roles, and a tool call keeps its parsed arguments", () => {
    const input = { messages: [{ role: 'user', content: 'When will my order A-1042 arrive?' }, { role: 'system', content: 'You are a support agent.' }] };
    expect(contentShape(input)).toMatchObject({ kind: 'chat', turns: [{ role: 'user', text: 'When will my order A-1042 arrive?' }, { role: 'system' }], rest: null });
    const output = { role: 'assistant', content: '', tool_calls: [{ name: 'lookup_order', arguments: { order_id: 'A-1042' } }] };
    expect(contentShape(output)).toMatchObject({ kind: 'chat', turns: [{ role: 'assistant', toolCalls: [{ name: 'lookup_order', args: { order_id: 'A-1042' } }] }] });
  });

  it('an OpenAI request keeps its parameters as data beside the conversation; a completion reads as its message', () => {
    const req = { model: 'gpt-4o', temperature: 0, messages: [{ role: 'user', content: 'hi' }] };
    expect(contentShape(req)).toMatchObject({ kind: 'chat', rest: { model: 'gpt-4o', temperature: 0 } });
    const res = {
      id: 'c1',
      choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [{ id: 't1', type: 'function', function: { name: 'search', arguments: '{"q":"Paris"}' } }] } }],
    };
    expect(contentShape(res)).toMatchObject({ kind: 'chat', turns: [{ role: 'assistant', toolCalls: [{ id: 't1', name: 'search', args: { q: 'Paris' } }] }], rest: { id: 'c1' } });
  });

  it('Anthropic content blocks: text, tool_use and tool_result become text, a call and a result tied to its call', () => {
    const msgs: Json = [
      { role: 'assistant', content: [{ type: 'text', text: 'Let me check.' }, { type: 'tool_use', id: 'tu1', name: 'weather', input: { city: 'Oslo' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu1', content: [{ type: 'text', text: '503 Service Unavailable' }] }] },
    ];
    const shape = contentShape(msgs);
    expect(shape).toMatchObject({
      kind: 'chat',
      turns: [
        { role: 'assistant', text: 'Let me check.', toolCalls: [{ id: 'tu1', name: 'weather', args: { city: 'Oslo' } }] },
        { role: 'user', text: '503 Service Unavailable', toolCallId: 'tu1' },
      ],
    });
  });

  it('LangChain serialized messages and message dicts map their classes to roles', () => {
    const serialized = [
      { lc: 1, type: 'constructor', id: ['langchain_core', 'messages', 'SystemMessage'], kwargs: { content: 'Be brief.' } },
      { lc: 1, type: 'constructor', id: ['langchain_core', 'messages', 'HumanMessage'], kwargs: { content: 'Capital of France?' } },
    ];
    expect(contentShape(serialized)).toMatchObject({ kind: 'chat', turns: [{ role: 'system' }, { role: 'user', text: 'Capital of France?' }] });
    expect(contentShape([{ type: 'ai', data: { content: 'Paris.' } }])).toMatchObject({ kind: 'chat', turns: [{ role: 'assistant', text: 'Paris.' }] });
    expect(contentShape({ generations: [[{ text: 'Lyon.' }]] })).toMatchObject({ kind: 'chat', turns: [{ role: 'assistant', text: 'Lyon.' }] });
  });

  it('retrieved documents become cards with their relevance; a bare list of strings or numbers stays data', () => {
    const docs = [
      { page_content: 'Paris is the capital of France.', metadata: { source: 'wiki/France' }, score: 0.91 },
      { page_content: 'Lyon is a city in France.', metadata: { source: 'wiki/Lyon' }, score: 0.42 },
    ];
    expect(contentShape(docs)).toMatchObject({ kind: 'documents', docs: [{ score: 0.91, source: 'wiki/France' }, { score: 0.42 }] });
    expect(contentShape({ query: 'capital', documents: [{ 'document.content': 'Paris', 'document.score': 0.8, 'document.id': 'd1' }] })).toMatchObject({
      kind: 'documents',
      docs: [{ text: 'Paris', score: 0.8, id: 'd1' }],
      rest: { query: 'capital' },
    });
    expect(contentShape(['a', 'b'])).toEqual({ kind: 'data' });
    expect(contentShape({ order_id: 'A-1042', status: 'packed' })).toEqual({ kind: 'data' });
    expect(contentShape('plain answer')).toEqual({ kind: 'text', text: 'plain answer' });
  });

  it("the SDK's recorded model output {text, tool_calls} reads as the assistant calling a tool; demo retrieval hits are cards titled by their source", () => {
    expect(contentShape({ text: '', tool_calls: [{ id: 'call_2', name: 'calculator', input: { expression: '15 * 12 * 10' } }] })).toMatchObject({
      kind: 'chat',
      turns: [{ role: 'assistant', toolCalls: [{ id: 'call_2', name: 'calculator', args: { expression: '15 * 12 * 10' } }] }],
    });
    expect(contentShape([{ id: 'annual-billing', title: 'Annual billing', text: 'Two months are free.', score: 11.6 }])).toMatchObject({
      kind: 'documents',
      docs: [{ id: 'annual-billing', source: 'Annual billing', score: 11.6 }],
    });
  });

  it('a role field alone does not make a record a message (a user row in a table is data)', () => {
    expect(contentShape([{ role: 'admin', email: 'a@b.c' }])).toEqual({ kind: 'data' });
  });
});
