import Anthropic from '@anthropic-ai/sdk';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildReplayPlan } from '../../../../src-main/engine/experiments/build-replay-plan';
import { pipeline, runStep } from '../index.js';
import { foldRun } from '../test-support/fold-run.js';
import { onlyRun, stepByKey, tempHome } from '../test-support/read-runs.js';
import { startStubServer, type StubServer } from '../test-support/stub-llm-server.js';
import { wrapAnthropic } from './anthropic.js';

let stub: StubServer;
beforeAll(async () => {
  stub = await startStubServer();
});
afterAll(() => stub.close());

const client = () => wrapAnthropic(new Anthropic({ apiKey: 'test-key', baseURL: stub.url, maxRetries: 0 }));

const message = (content: unknown[], stop_reason: string) => ({
  id: 'msg_01',
  type: 'message',
  role: 'assistant',
  model: 'claude-test-20250101',
  content,
  stop_reason,
  stop_sequence: null,
  usage: { input_tokens: 42, output_tokens: 7, cache_read_input_tokens: 5 },
});

const request = {
  model: 'claude-test',
  max_tokens: 100,
  system: 'be brief',
  messages: [{ role: 'user' as const, content: 'weather in Lisbon?' }],
};

describe('the Anthropic wrapper', () => {
  it('a messages.create call becomes an llm step with model, messages, text and tool calls, usage and stop reason', async () => {
    stub.queue({
      kind: 'json',
      body: message([{ type: 'text', text: 'Let me check.' }, { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Lisbon' } }], 'tool_use'),
    });
    const home = tempHome();
    const reply = await pipeline('claude', () => client().messages.create(request), { home });
    expect(reply.content[0]).toEqual({ type: 'text', text: 'Let me check.' });
    expect(stub.requests.at(-1)?.path).toBe('/v1/messages');

    const { start, end } = stepByKey(onlyRun(home), 'anthropic.messages.create#0');
    expect(start.step_type).toBe('llm');
    expect(start.input).toMatchObject({ model: 'claude-test', system: 'be brief', messages: [{ role: 'user', content: 'weather in Lisbon?' }] });
    expect(end).toMatchObject({
      status: 'ok',
      model: 'claude-test',
      output: { text: 'Let me check.', tool_calls: [{ id: 'toolu_1', name: 'get_weather', input: { city: 'Lisbon' } }] },
      usage: { input_tokens: 42, output_tokens: 7, total_tokens: 49 },
      metadata: { finish_reason: 'tool_use', response_id: 'msg_01', response_model: 'claude-test-20250101', cache_read_input_tokens: 5 },
    });
  });

  it('a streamed reply reaches the caller event by event, and the step records the assembled text when the stream ends', async () => {
    stub.queue({
      kind: 'sse',
      events: [
        { event: 'message_start', data: { type: 'message_start', message: { ...message([], null as never), usage: { input_tokens: 30, output_tokens: 1 } } } },
        { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } },
        { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Sunny, ' } } },
        { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: '24°C.' } } },
        { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
        { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 9 } } },
        { event: 'message_stop', data: { type: 'message_stop' } },
      ],
    });
    const home = tempHome();
    let streamedText = '';
    await pipeline('claude-stream', async () => {
      const stream = await client().messages.create({ ...request, stream: true });
      for await (const event of stream) {
        if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') streamedText += event.delta.text;
      }
    }, { home });
    expect(streamedText).toBe('Sunny, 24°C.');
    expect(stepByKey(onlyRun(home), 'anthropic.messages.create#0').end).toMatchObject({
      status: 'ok',
      output: 'Sunny, 24°C.',
      usage: { input_tokens: 30, output_tokens: 9, total_tokens: 39 },
      metadata: { finish_reason: 'end_turn', stream: true },
    });
  });

  it('an API error is recorded with its HTTP status and the caller gets the SDK error object itself', async () => {
    stub.queue({ kind: 'json', status: 529, body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } });
    const home = tempHome();
    const c = client();
    let caught: unknown;
    await pipeline('claude-error', async () => {
      try {
        await c.messages.create(request);
      } catch (err) {
        caught = err;
      }
    }, { home });
    expect(caught).toBeInstanceOf(Anthropic.APIError);
    const { end } = stepByKey(onlyRun(home), 'anthropic.messages.create#0');
    expect(end).toMatchObject({ status: 'error', error: { status: 529 } });
    expect(end?.error?.message).toContain('Overloaded');
    expect(end?.error?.type).toBe((caught as Error).name);
  });

  it('in a forked run a recorded call is replayed without an HTTP request, as a message or as a stream', async () => {
    // The Anthropic client dispatches on the SSE `event:` name, so each event carries it.
    const sseOf = (text: string) => ({
      kind: 'sse' as const,
      events: [
        { type: 'message_start', message: { ...message([], null as never), usage: { input_tokens: 3, output_tokens: 1 } } },
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } },
        { type: 'content_block_stop', index: 0 },
        { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 4 } },
        { type: 'message_stop' },
      ].map((data) => ({ event: data.type, data })),
    });
    for (const stream of [false, true]) {
      /** Calls Claude, then a step after it: the fork point, so the call is in the replayed prefix. */
      const body = async () => {
        let text = '';
        if (stream) {
          const events = await client().messages.create({ ...request, stream: true });
          for await (const e of events as AsyncIterable<any>) if (e.type === 'content_block_delta') text += e.delta.text;
        } else {
          const m = await client().messages.create(request);
          text = (m.content[0] as { text: string }).text;
        }
        return runStep('after', 'generic', () => text);
      };
      stub.queue(stream ? sseOf('recorded answer') : { kind: 'json', body: message([{ type: 'text', text: 'recorded answer' }], 'end_turn') });
      const home0 = tempHome();
      await pipeline('claude-fork', body, { home: home0 });

      const home = tempHome();
      const plan = buildReplayPlan(foldRun(onlyRun(home0)), {
        experimentId: 'e', arm: 'treatment', trial: 0, forkStepKey: 'after#0', edit: { kind: 'instructions', instructions: '' }, inbox: join(home, 'inbox'),
      });
      const before = stub.requests.length;
      const out = await pipeline('claude-fork', body, { home, replayPlan: plan });
      expect(stub.requests.length).toBe(before);
      expect(out).toBe('recorded answer');
      expect(stepByKey(onlyRun(home), 'anthropic.messages.create#0').end?.replayed).toBe(true);
    }
  });
});
