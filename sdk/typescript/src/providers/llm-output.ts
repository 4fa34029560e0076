/**
 * The recorded output of a provider-wrapped llm step, shared by the
 * Anthropic and OpenAI-compatible wrappers so scorers see one shape:
 * the reply text, or `{ text, tool_calls }` when the model called tools.
 */
import type { Json } from '../trace-format.js';
import type { ReplayStepEntry } from '../replay-plan.js';
import { executeStep, type EndStep, type Extracted } from '../execute-step.js';

export interface RecordedToolCall {
  id: string;
  name: string;
  input: Json;
}

export type RecordedLlmOutput = string | { text: string; tool_calls: RecordedToolCall[] };

export function llmOutput(text: string, toolCalls: RecordedToolCall[]): RecordedLlmOutput {
  return toolCalls.length ? { text, tool_calls: toolCalls } : text;
}

/** Back from a recorded output (replay): text and tool calls, whatever shape was stored. */
export function splitRecorded(recorded: Json | undefined): { text: string; toolCalls: RecordedToolCall[] } {
  if (typeof recorded === 'string') return { text: recorded, toolCalls: [] };
  if (recorded && typeof recorded === 'object' && !Array.isArray(recorded)) {
    const text = typeof recorded.text === 'string' ? recorded.text : '';
    const calls = Array.isArray(recorded.tool_calls) ? recorded.tool_calls : [];
    const toolCalls = calls
      .filter((c): c is { [k: string]: Json } => !!c && typeof c === 'object' && !Array.isArray(c))
      .map((c, i) => ({ id: typeof c.id === 'string' ? c.id : `call_replayed_${i}`, name: String(c.name ?? ''), input: c.input ?? {} }));
    return { text, toolCalls };
  }
  return { text: recorded === undefined || recorded === null ? '' : JSON.stringify(recorded), toolCalls: [] };
}

/** A tool call's arguments arrive as JSON text; keep the text when it does not parse. */
export function parseArguments(text: string): Json {
  if (!text) return {};
  try {
    return JSON.parse(text) as Json;
  } catch {
    return text;
  }
}

/** An async iterable that yields `items` (a replayed stream). */
function iterableOf<T>(items: T[]): AsyncIterable<T> {
  return {
    async *[Symbol.asyncIterator]() {
      for (const item of items) yield item;
    },
  };
}

/** Collects a provider's stream events and ends the step from them. */
export interface StreamAccumulating<E> {
  add(event: E): void;
  finish(end: EndStep, complete: boolean): void;
}

/** A `deferEnd` for a streaming call: the step ends when the stream does. */
function endWhenStreamEnds<E>(makeAccumulator: () => StreamAccumulating<E>) {
  return (stream: object, end: EndStep) => {
    const acc = makeAccumulator();
    return observeStream(stream, {
      onEvent: (e: E) => acc.add(e),
      onDone: (complete) => acc.finish(end, complete),
      onError: (error) => end({ ok: false, error }),
    });
  };
}

/** What differs between providers in recording one `create` call. */
export interface ProviderCall<R, E> {
  name: string;
  metadata?: Record<string, unknown>;
  /** Output, usage and finish reason from a complete response. */
  extract: (response: R) => Extracted;
  /** Collects a streamed response's events into the same facts. */
  accumulator: () => StreamAccumulating<E>;
  /** The response object a replayed step hands the caller, rebuilt from the recording. */
  replayed: (recorded: Json | undefined, entry: ReplayStepEntry | undefined, model: string) => R;
  /** The same response as the events of a stream (replay of a streaming call). */
  eventsOf: (response: R) => E[];
}

/**
 * A `create(params, requestOptions)` that records each call as an llm step:
 * the requested model on the step (a dated response model must not look like
 * a model change in a fork), streams ended when consumed, replays rebuilt.
 */
export function recordedCreate<R, E>(resource: { create: (...args: any[]) => unknown }, call: ProviderCall<R, E>) {
  return (params: any, requestOptions?: unknown): Promise<unknown> => {
    const streaming = params?.stream === true;
    return executeStep<Promise<any>>({
      name: call.name,
      type: 'llm',
      invoke: () => resource.create.call(resource, params, requestOptions) as Promise<unknown>,
      args: [params, requestOptions],
      input: params,
      isAsync: true,
      opts: {
        async: true,
        model: typeof params?.model === 'string' ? params.model : undefined,
        metadata: call.metadata,
        extract: (response: R) => call.extract(response),
        deferEnd: streaming ? endWhenStreamEnds(call.accumulator) : undefined,
        revive: (recorded, entry) => {
          const response = call.replayed(recorded, entry, String(params?.model ?? ''));
          return streaming ? iterableOf(call.eventsOf(response)) : response;
        },
      },
    });
  };
}

/** The client's resource object with `create` replaced and every other member passed through. */
export function withCreate<T extends object>(resource: T, create: unknown): T {
  return new Proxy(resource, {
    get(target, prop) {
      if (prop === 'create') return create;
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * Hand the caller the provider's stream object unchanged except for its
 * iteration, which passes every event through `onEvent` and ends the step
 * when the stream is exhausted, fails, or is abandoned.
 */
function observeStream<S extends object, E>(
  stream: S,
  hooks: { onEvent: (e: E) => void; onDone: (complete: boolean) => void; onError: (err: unknown) => void },
): S {
  const source = stream as unknown as AsyncIterable<E>;
  async function* iterate(): AsyncGenerator<E> {
    let settled = false;
    try {
      for await (const event of source) {
        try {
          hooks.onEvent(event);
        } catch {
          // Bookkeeping must never break the caller's stream.
        }
        yield event;
      }
      settled = true;
      hooks.onDone(true);
    } catch (err) {
      settled = true;
      hooks.onError(err);
      throw err;
    } finally {
      // The consumer stopped early (break / return): record what arrived.
      if (!settled) hooks.onDone(false);
    }
  }
  return new Proxy(stream, {
    get(target, prop) {
      if (prop === Symbol.asyncIterator) return () => iterate();
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
