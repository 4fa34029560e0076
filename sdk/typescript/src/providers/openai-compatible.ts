/**
 * wrapOpenAICompatible(client): every `client.chat.completions.create(...)`
 * call (the OpenAI SDK, or any client with that shape: vLLM, Ollama,
 * llama.cpp servers, LiteLLM ...) becomes an `llm` step recording the model,
 * the messages (input), the reply text and tool calls (output), usage,
 * finish_reason (metadata) and errors. With `stream: true` the caller gets
 * the same chunk stream and the step ends when it has been consumed; usage
 * is recorded when the server sends it (`stream_options.include_usage`).
 *
 * Structural types only: the SDK does not depend on the openai package.
 */
import type { Json, TokenUsage } from '../trace-format.js';
import type { ReplayStepEntry } from '../replay-plan.js';
import type { EndStep } from '../execute-step.js';
import { llmOutput, parseArguments, recordedCreate, splitRecorded, withCreate, type RecordedToolCall } from './llm-output.js';

interface ChatToolCall {
  id?: string;
  type?: string;
  function?: { name?: string; arguments?: string };
}

interface ChatCompletion {
  id?: string;
  model?: string;
  choices?: { index?: number; message?: { role?: string; content?: string | null; tool_calls?: ChatToolCall[] }; finish_reason?: string | null }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number } | null;
}

interface OpenAILikeClient {
  chat: { completions: { create: (params: any, options?: any) => any } };
}

export interface WrapOpenAIOptions {
  /** Step name for each call (default "chat.completions.create"). */
  name?: string;
  metadata?: Record<string, unknown>;
}

function usageOf(u: ChatCompletion['usage']): TokenUsage | undefined {
  if (!u) return undefined;
  const out: TokenUsage = {};
  if (typeof u.prompt_tokens === 'number') out.input_tokens = u.prompt_tokens;
  if (typeof u.completion_tokens === 'number') out.output_tokens = u.completion_tokens;
  if (typeof u.total_tokens === 'number') out.total_tokens = u.total_tokens;
  return Object.keys(out).length ? out : undefined;
}

function callsOf(calls: ChatToolCall[] | undefined): RecordedToolCall[] {
  return (calls ?? []).map((c) => ({ id: c.id ?? '', name: c.function?.name ?? '', input: parseArguments(c.function?.arguments ?? '') }));
}

function replayedCompletion(recorded: Json | undefined, entry: ReplayStepEntry | undefined, model: string) {
  const { text, toolCalls } = splitRecorded(recorded);
  const tool_calls = toolCalls.map((c) => ({
    id: c.id,
    type: 'function',
    function: { name: c.name, arguments: typeof c.input === 'string' ? c.input : JSON.stringify(c.input) },
  }));
  const input = entry?.usage?.input_tokens ?? 0;
  const output = entry?.usage?.output_tokens ?? 0;
  return {
    id: 'chatcmpl-replayed',
    object: 'chat.completion',
    created: 0,
    model: entry?.model ?? model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: text || (tool_calls.length ? null : ''), ...(tool_calls.length ? { tool_calls } : {}) },
        finish_reason: tool_calls.length ? 'tool_calls' : 'stop',
      },
    ],
    usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output },
  };
}

function chunksOf(completion: ReturnType<typeof replayedCompletion>): unknown[] {
  const choice = completion.choices[0];
  const base = { id: completion.id, object: 'chat.completion.chunk', created: 0, model: completion.model };
  const chunks: unknown[] = [{ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: choice.message.content ?? '' }, finish_reason: null }] }];
  const calls = (choice.message as { tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[] }).tool_calls ?? [];
  calls.forEach((c, index) => chunks.push({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index, ...c }] }, finish_reason: null }] }));
  chunks.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: choice.finish_reason }], usage: completion.usage });
  return chunks;
}

class ChunkAccumulator {
  id = '';
  model = '';
  text = '';
  finishReason: string | null = null;
  usage: ChatCompletion['usage'] = null;
  private readonly calls: { id: string; name: string; args: string }[] = [];

  add(chunk: any): void {
    if (chunk?.id) this.id = chunk.id;
    if (chunk?.model) this.model = chunk.model;
    if (chunk?.usage) this.usage = chunk.usage;
    const choice = chunk?.choices?.[0];
    if (!choice) return;
    if (typeof choice.delta?.content === 'string') this.text += choice.delta.content;
    for (const tc of choice.delta?.tool_calls ?? []) {
      const i = typeof tc.index === 'number' ? tc.index : this.calls.length;
      const call = (this.calls[i] ??= { id: '', name: '', args: '' });
      if (tc.id) call.id = tc.id;
      if (tc.function?.name) call.name += tc.function.name;
      if (tc.function?.arguments) call.args += tc.function.arguments;
    }
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
  }

  finish(end: EndStep, complete: boolean): void {
    const calls = this.calls.filter(Boolean).map((c) => ({ id: c.id, name: c.name, input: parseArguments(c.args) }));
    const metadata: Record<string, unknown> = { finish_reason: this.finishReason, response_id: this.id, response_model: this.model, stream: true };
    if (!complete) metadata.stream_incomplete = true;
    end({ ok: true, output: llmOutput(this.text, calls), usage: usageOf(this.usage), metadata });
  }
}

export function wrapOpenAICompatible<C extends OpenAILikeClient>(client: C, opts: WrapOpenAIOptions = {}): C {
  const name = opts.name ?? 'chat.completions.create';
  const completions = client.chat.completions;
  const create = recordedCreate(completions, {
    name,
    metadata: opts.metadata,
    extract: (c: ChatCompletion) => {
      const choice = c?.choices?.[0];
      return {
        output: llmOutput(choice?.message?.content ?? '', callsOf(choice?.message?.tool_calls)),
        usage: usageOf(c?.usage),
        metadata: { finish_reason: choice?.finish_reason ?? null, response_id: c?.id, response_model: c?.model },
      };
    },
    accumulator: () => new ChunkAccumulator(),
    replayed: replayedCompletion,
    eventsOf: chunksOf,
  });
  const wrappedCompletions = withCreate(completions, create);
  const wrappedChat = new Proxy(client.chat, {
    get(target, prop) {
      if (prop === 'completions') return wrappedCompletions;
      return Reflect.get(target, prop, target);
    },
  });
  return new Proxy(client, {
    get(target, prop) {
      if (prop === 'chat') return wrappedChat;
      return Reflect.get(target, prop, target);
    },
  });
}
