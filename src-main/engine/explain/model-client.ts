/**
 * The one model call of the root-cause agent, behind a small interface so the
 * engine never depends on a provider's types and tests can point the real
 * client at a local stub of the Messages API (`baseURL`).
 *
 * The Anthropic SDK retries 429 and 5xx with exponential backoff (honouring
 * retry-after) up to `maxRetries`, and times out each attempt after
 * `timeoutMs`; what is left after that is turned into a message a user can act on.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { EngineError } from '../../../src-shared/result';
import { REPORT_TOOL, SYSTEM_PROMPT, TOOL_NAME } from './agent-prompt';

interface ModelReply {
  /** The tool call's input, if the model called the tool. */
  toolInput: unknown;
  called: boolean;
  /** Text the model wrote besides (or instead of) the tool call. */
  text: string;
  stopReason: string | null;
  usage: { input_tokens: number; output_tokens: number };
}

export interface RootCauseModel {
  ask(userMessage: string, opts: { model: string; maxTokens: number }): Promise<ModelReply>;
}

interface AnthropicModelOptions {
  apiKey: string;
  /** Default: the SDK's (ANTHROPIC_BASE_URL, else api.anthropic.com). */
  baseURL?: string;
  maxRetries: number;
  timeoutMs: number;
}

type AnthropicClass = typeof Anthropic;

let sdk: Promise<AnthropicClass> | null = null;

/**
 * The SDK, loaded on the first model call: it is ~26 MB of a process's memory, which every tb command (and the app's
 * engine) paid at startup for the one command that calls a model.
 */
function loadSdk(): Promise<AnthropicClass> {
  sdk ??= import('@anthropic-ai/sdk').then(
    (m) => m.default,
    (err: unknown) => {
      // Not kept: a later call tries again (a package installed since, say).
      sdk = null;
      throw new EngineError('unsupported', `the Anthropic SDK could not be loaded (${(err as Error).message}): tb explain needs the @anthropic-ai/sdk package`);
    },
  );
  return sdk;
}

function explainFailure(Anthropic: AnthropicClass, err: unknown, timeoutMs: number): EngineError {
  if (err instanceof Anthropic.APIConnectionTimeoutError) {
    return new EngineError('unsupported', `the model did not answer within ${timeoutMs / 1000} s (after retries); nothing was stored. Try again, or raise explain.timeout_s in settings`);
  }
  if (err instanceof Anthropic.APIConnectionError) {
    return new EngineError('unsupported', `could not reach the model API (${err.message}): are you offline? Blame, experiments and motifs work offline; only tb explain needs the network`);
  }
  if (err instanceof Anthropic.AuthenticationError) return new EngineError('bad_request', 'the model API refused the key (401): check ANTHROPIC_API_KEY or explain.api_key in settings');
  if (err instanceof Anthropic.RateLimitError) return new EngineError('unsupported', 'the model API is rate limiting (429) and still was after retries: try again later');
  if (err instanceof Anthropic.APIError) return new EngineError('unsupported', `the model API answered ${err.status ?? 'an error'}: ${err.message}`);
  return new EngineError('internal', (err as Error).message ?? String(err));
}

export function anthropicModel(o: AnthropicModelOptions): RootCauseModel {
  let client: Anthropic | null = null;
  return {
    async ask(user, { model, maxTokens }) {
      const Sdk = await loadSdk();
      client ??= new Sdk({ apiKey: o.apiKey, maxRetries: o.maxRetries, timeout: o.timeoutMs, ...(o.baseURL ? { baseURL: o.baseURL } : {}) });
      let msg: Anthropic.Message;
      try {
        msg = await client.messages.create({
          model,
          max_tokens: maxTokens,
          system: SYSTEM_PROMPT,
          messages: [{ role: 'user', content: user }],
          tools: [REPORT_TOOL as Anthropic.Tool],
          tool_choice: { type: 'tool', name: TOOL_NAME },
        });
      } catch (err) {
        throw explainFailure(Sdk, err, o.timeoutMs);
      }
      const call = msg.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use' && b.name === TOOL_NAME);
      const text = msg.content.map((b) => (b.type === 'text' ? b.text : '')).join('').trim();
      return {
        toolInput: call?.input,
        called: call !== undefined,
        text,
        stopReason: msg.stop_reason ?? null,
        usage: { input_tokens: msg.usage.input_tokens, output_tokens: msg.usage.output_tokens },
      };
    },
  };
}
