import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pipeline } from '../index.js';
import { onlyRun, stepByKey, tempHome } from '../test-support/read-runs.js';
import { startStubServer, type StubServer } from '../test-support/stub-llm-server.js';
import { wrapOpenAICompatible } from './openai-compatible.js';

let stub: StubServer;
beforeAll(async () => {
  stub = await startStubServer();
});
afterAll(() => stub.close());

class HttpStatusError extends Error {
  override name = 'HttpStatusError';
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

/** A minimal OpenAI-shaped client over fetch (the openai package is not a dependency). */
function fakeOpenAIClient(baseURL: string) {
  return {
    chat: {
      completions: {
        async create(params: { stream?: boolean } & Record<string, unknown>): Promise<any> {
          const res = await fetch(`${baseURL}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(params) });
          if (!res.ok) throw new HttpStatusError(res.status, `HTTP ${res.status}: ${await res.text()}`);
          if (!params.stream) return res.json();
          const text = await res.text();
          const chunks = text
            .split('\n\n')
            .map((block) => block.replace(/^data: /, '').trim())
            .filter((d) => d && d !== '[DONE]')
            .map((d) => JSON.parse(d));
          return {
            async *[Symbol.asyncIterator]() {
              for (const c of chunks) yield c;
            },
          };
        },
      },
    },
  };
}

const request = { model: 'local-llama', messages: [{ role: 'user', content: 'add 2 and 3' }] };

describe('the OpenAI-compatible wrapper', () => {
  it('a chat completion with a tool call is recorded with model, messages, tool calls, usage and finish_reason', async () => {
    stub.queue({
      kind: 'json',
      body: {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        model: 'local-llama-q4',
        choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'add', arguments: '{"a":2,"b":3}' } }] }, finish_reason: 'tool_calls' }],
        usage: { prompt_tokens: 11, completion_tokens: 6, total_tokens: 17 },
      },
    });
    const home = tempHome();
    const client = wrapOpenAICompatible(fakeOpenAIClient(stub.url));
    const completion = await pipeline('oai', () => client.chat.completions.create(request), { home });
    expect(completion.choices[0].finish_reason).toBe('tool_calls');
    const { start, end } = stepByKey(onlyRun(home), 'chat.completions.create#0');
    expect(start).toMatchObject({ step_type: 'llm', input: request });
    expect(end).toMatchObject({
      model: 'local-llama',
      output: { text: '', tool_calls: [{ id: 'call_1', name: 'add', input: { a: 2, b: 3 } }] },
      usage: { input_tokens: 11, output_tokens: 6, total_tokens: 17 },
      metadata: { finish_reason: 'tool_calls', response_model: 'local-llama-q4' },
    });
  });

  it('a streamed completion is passed through chunk by chunk and recorded whole, usage included', async () => {
    const chunk = (delta: object, finish_reason: string | null = null, usage?: object) => ({
      data: { id: 'chatcmpl-2', object: 'chat.completion.chunk', model: 'local-llama', choices: [{ index: 0, delta, finish_reason }], ...(usage ? { usage } : {}) },
    });
    stub.queue({
      kind: 'sse',
      done: true,
      events: [chunk({ role: 'assistant', content: '' }), chunk({ content: '2 + 3 ' }), chunk({ content: '= 5' }), chunk({}, 'stop', { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 })],
    });
    const home = tempHome();
    const client = wrapOpenAICompatible(fakeOpenAIClient(stub.url));
    let text = '';
    await pipeline('oai-stream', async () => {
      const stream = await client.chat.completions.create({ ...request, stream: true, stream_options: { include_usage: true } });
      for await (const c of stream) text += c.choices[0]?.delta?.content ?? '';
    }, { home });
    expect(text).toBe('2 + 3 = 5');
    expect(stepByKey(onlyRun(home), 'chat.completions.create#0').end).toMatchObject({
      status: 'ok',
      output: '2 + 3 = 5',
      usage: { input_tokens: 9, output_tokens: 4, total_tokens: 13 },
      metadata: { finish_reason: 'stop', stream: true },
    });
  });

  it('a server error is recorded with its status and re-thrown as the same object', async () => {
    stub.queue({ kind: 'json', status: 503, body: { error: 'model loading' } });
    const home = tempHome();
    const client = wrapOpenAICompatible(fakeOpenAIClient(stub.url));
    const caught = await pipeline('oai-err', () => client.chat.completions.create(request), { home }).catch((e: unknown) => e);
    expect(caught).toBeInstanceOf(HttpStatusError);
    expect(stepByKey(onlyRun(home), 'chat.completions.create#0').end).toMatchObject({ status: 'error', error: { type: 'HttpStatusError', status: 503 } });
  });

  it('a stream abandoned halfway is recorded with what arrived, marked incomplete', async () => {
    const chunk = (content: string) => ({ data: { id: 'c', model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: null }] } });
    stub.queue({ kind: 'sse', done: true, events: [chunk('one '), chunk('two '), chunk('three')] });
    const home = tempHome();
    const client = wrapOpenAICompatible(fakeOpenAIClient(stub.url));
    await pipeline('oai-abandon', async () => {
      const stream = await client.chat.completions.create({ ...request, stream: true });
      for await (const c of stream) if (c.choices[0].delta.content === 'two ') break;
    }, { home });
    expect(stepByKey(onlyRun(home), 'chat.completions.create#0').end).toMatchObject({ output: 'one two ', metadata: { stream_incomplete: true } });
  });
});
