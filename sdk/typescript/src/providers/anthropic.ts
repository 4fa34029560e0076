/**
 * wrapAnthropic(client): every `client.messages.create(...)` call becomes an
 * `llm` step recording the model, the request (input), the reply text and
 * tool calls (output), token usage, the stop reason (metadata.finish_reason)
 * and errors (with the HTTP status). `stream: true` works: the caller gets
 * the same event stream, and the step ends when the stream is consumed.
 *
 * Structural types only: the SDK does not depend on @anthropic-ai/sdk.
 * In a forked run a replayed call returns a Message (or an event stream)
 * rebuilt from the recording; the wrapper returns a plain Promise, so
 * APIPromise extras such as `.withResponse()` are not available through it.
 */
import type { Json, TokenUsage } from '../trace-format.js';
import type { ReplayStepEntry } from '../replay-plan.js';
import type { EndStep } from '../execute-step.js';
import { llmOutput, parseArguments, recordedCreate, splitRecorded, withCreate, type RecordedToolCall } from './llm-output.js';

interface AnthropicUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}

interface AnthropicBlock {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
}

interface AnthropicMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: AnthropicBlock[];
  stop_reason: string | null;
  stop_sequence: string | null;
  usage: AnthropicUsage;
}

interface AnthropicLikeClient {
  messages: { create: (params: any, options?: any) => any };
}

export interface WrapAnthropicOptions {
  /** Step name for each call (default "anthropic.messages.create"). */
  name?: string;
  /** Extra metadata on every step (e.g. `{ side_effect: false, agent: 'planner' }`). */
  metadata?: Record<string, unknown>;
}

function usageOf(u: AnthropicUsage | undefined): TokenUsage | undefined {
  if (!u) return undefined;
  const out: TokenUsage = {};
  if (typeof u.input_tokens === 'number') out.input_tokens = u.input_tokens;
  if (typeof u.output_tokens === 'number') out.output_tokens = u.output_tokens;
  if (out.input_tokens !== undefined || out.output_tokens !== undefined) out.total_tokens = (out.input_tokens ?? 0) + (out.output_tokens ?? 0);
  return out;
}

function cacheMetadata(u: AnthropicUsage | undefined): Record<string, number> {
  const m: Record<string, number> = {};
  if (typeof u?.cache_creation_input_tokens === 'number') m.cache_creation_input_tokens = u.cache_creation_input_tokens;
  if (typeof u?.cache_read_input_tokens === 'number') m.cache_read_input_tokens = u.cache_read_input_tokens;
  return m;
}

function outputOfBlocks(blocks: AnthropicBlock[]) {
  const text = blocks.filter((b) => b.type === 'text').map((b) => b.text ?? '').join('');
  const calls: RecordedToolCall[] = blocks
    .filter((b) => b.type === 'tool_use' || b.type === 'server_tool_use')
    .map((b) => ({ id: b.id ?? '', name: b.name ?? '', input: (b.input ?? {}) as Json }));
  return llmOutput(text, calls);
}

function replayedMessage(recorded: Json | undefined, entry: ReplayStepEntry | undefined, model: string): AnthropicMessage {
  const { text, toolCalls } = splitRecorded(recorded);
  const content: AnthropicBlock[] = [];
  if (text || !toolCalls.length) content.push({ type: 'text', text });
  for (const c of toolCalls) content.push({ type: 'tool_use', id: c.id, name: c.name, input: c.input });
  return {
    id: 'msg_replayed',
    type: 'message',
    role: 'assistant',
    model: entry?.model ?? model,
    content,
    // The plan does not carry metadata.finish_reason; tool calls imply tool_use, anything else a normal end.
    stop_reason: toolCalls.length ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: entry?.usage?.input_tokens ?? 0, output_tokens: entry?.usage?.output_tokens ?? 0 },
  };
}

/** The event sequence the Messages API streams for `message`. */
function eventsOf(message: AnthropicMessage): unknown[] {
  const events: unknown[] = [
    { type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: { ...message.usage, output_tokens: 0 } } },
  ];
  message.content.forEach((block, index) => {
    if (block.type === 'text') {
      events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text ?? '' } });
    } else {
      events.push({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
      events.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input ?? {}) } });
    }
    events.push({ type: 'content_block_stop', index });
  });
  events.push({ type: 'message_delta', delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: message.usage.output_tokens } });
  events.push({ type: 'message_stop' });
  return events;
}

/** Rebuilds the message from stream events as they pass. */
class StreamAccumulator {
  id = '';
  model = '';
  stopReason: string | null = null;
  usage: AnthropicUsage = {};
  private readonly blocks: (AnthropicBlock & { json?: string })[] = [];

  add(event: any): void {
    switch (event?.type) {
      case 'message_start':
        this.id = event.message?.id ?? '';
        this.model = event.message?.model ?? '';
        this.usage = { ...event.message?.usage };
        break;
      case 'content_block_start':
        this.blocks[event.index] = { ...event.content_block, json: '' };
        break;
      case 'content_block_delta': {
        const block = this.blocks[event.index];
        if (!block) break;
        if (event.delta?.type === 'text_delta') block.text = (block.text ?? '') + event.delta.text;
        else if (event.delta?.type === 'input_json_delta') block.json += event.delta.partial_json ?? '';
        break;
      }
      case 'content_block_stop': {
        const block = this.blocks[event.index];
        if (block && block.json) block.input = parseArguments(block.json);
        break;
      }
      case 'message_delta':
        if (event.delta?.stop_reason !== undefined) this.stopReason = event.delta.stop_reason;
        if (event.usage) this.usage = { ...this.usage, ...Object.fromEntries(Object.entries(event.usage).filter(([, v]) => v !== null)) };
        break;
    }
  }

  finish(end: EndStep, complete: boolean): void {
    const blocks = this.blocks.filter(Boolean).map(({ json: _json, ...b }) => b);
    const metadata: Record<string, unknown> = { finish_reason: this.stopReason, response_id: this.id, response_model: this.model, stream: true, ...cacheMetadata(this.usage) };
    if (!complete) metadata.stream_incomplete = true;
    end({ ok: true, output: outputOfBlocks(blocks), usage: usageOf(this.usage), metadata });
  }
}

export function wrapAnthropic<C extends AnthropicLikeClient>(client: C, opts: WrapAnthropicOptions = {}): C {
  const name = opts.name ?? 'anthropic.messages.create';
  const messages = client.messages;
  const create = recordedCreate(messages, {
    name,
    metadata: opts.metadata,
    extract: (msg: AnthropicMessage) => ({
      output: outputOfBlocks(msg?.content ?? []),
      usage: usageOf(msg?.usage),
      metadata: { finish_reason: msg?.stop_reason ?? null, response_id: msg?.id, response_model: msg?.model, ...cacheMetadata(msg?.usage) },
    }),
    accumulator: () => new StreamAccumulator(),
    replayed: replayedMessage,
    eventsOf,
  });
  const wrappedMessages = withCreate(messages, create);
  return new Proxy(client, {
    get(target, prop) {
      if (prop === 'messages') return wrappedMessages;
      return Reflect.get(target, prop, target);
    },
  });
}
