/**
 * LangChain values → what a Traceback record holds. Structural checks only
 * (no import of @langchain/core): messages, documents and prompt values are
 * recognised by their shape, so this keeps working across LangChain versions
 * and whichever copy of the package a user's code loaded.
 *
 * Shapes written, chosen to match the rest of Traceback:
 * - chat messages: `{role, content, name?, tool_calls?: [{id, name, arguments}], tool_call_id?}`
 *   (what the importers store and the scorers read);
 * - an llm step's output: the reply text, or `{text, tool_calls: [{id, name, input}]}`
 *   (the same as the SDK's provider wrappers);
 * - documents: `{pageContent, metadata, id?}`.
 */
import type { TokenUsage } from '../trace-format.js';
import { llmOutput, type RecordedLlmOutput, type RecordedToolCall } from '../providers/llm-output.js';
import { setOwn } from '../own-property.js';

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isPlainObject(v: unknown): v is Obj {
  if (!isObj(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

const ROLES: Record<string, string> = { human: 'user', ai: 'assistant', system: 'system', tool: 'tool', function: 'function', developer: 'developer' };

function messageType(v: Obj): string | null {
  try {
    if (typeof v._getType === 'function') return String((v._getType as () => unknown).call(v));
    if (typeof v.getType === 'function') return String((v.getType as () => unknown).call(v));
  } catch {
    return null;
  }
  return null;
}

function isMessage(v: unknown): v is Obj {
  return isObj(v) && 'content' in v && messageType(v) !== null;
}

/** A LangChain message as a chat message; anything else is returned unchanged. */
export function chatMessage(v: unknown): unknown {
  if (!isMessage(v)) return v;
  const type = messageType(v) ?? '';
  const role = type === 'generic' && typeof v.role === 'string' ? v.role : (ROLES[type] ?? type);
  const out: Obj = { role, content: v.content ?? '' };
  if (typeof v.name === 'string' && v.name) out.name = v.name;
  const calls = Array.isArray(v.tool_calls) ? v.tool_calls.filter(isObj) : [];
  if (calls.length) out.tool_calls = calls.map((c) => ({ ...(typeof c.id === 'string' ? { id: c.id } : {}), name: String(c.name ?? ''), arguments: c.args ?? {} }));
  if (typeof v.tool_call_id === 'string') out.tool_call_id = v.tool_call_id;
  return out;
}

function isDocument(v: unknown): v is Obj {
  return isObj(v) && typeof v.pageContent === 'string';
}

export function documentJson(d: Obj): Obj {
  const out: Obj = { pageContent: d.pageContent, metadata: isObj(d.metadata) ? d.metadata : {} };
  if (typeof d.id === 'string' && d.id) out.id = d.id;
  return out;
}

/**
 * Replaces LangChain objects inside a value with what they hold (messages,
 * documents, prompt values), so a reader sees content rather than class
 * plumbing. Plain objects and arrays are walked; other objects are left for
 * the SDK's JSON conversion. Bounded: deep or cyclic values stop being walked.
 */
export function simplify(value: unknown, depth = 0, seen: Set<object> = new Set()): unknown {
  if (value === null || typeof value !== 'object' || depth > 24) return value;
  if (seen.has(value)) return value;
  if (isMessage(value)) return chatMessage(value);
  if (isDocument(value)) return documentJson(value);
  const v = value as Obj;
  if (typeof v.toChatMessages === 'function') {
    // A StringPromptValue is its text; a ChatPromptValue its messages.
    if (typeof v.value === 'string') return v.value;
    try {
      const messages = (v.toChatMessages as () => unknown).call(v);
      if (Array.isArray(messages)) return { messages: messages.map(chatMessage) };
    } catch {
      return value;
    }
  }
  seen.add(value);
  try {
    if (Array.isArray(value)) return value.map((item) => simplify(item, depth + 1, seen));
    if (!isPlainObject(value)) return value;
    const out: Obj = {};
    for (const [k, item] of Object.entries(value)) setOwn(out, k, simplify(item, depth + 1, seen));
    return out;
  } finally {
    seen.delete(value);
  }
}

/**
 * LangChain wraps a runnable's non-object input as `{input: x}` and its
 * output as `{output: x}`; the recorded value is `x` itself.
 */
export function unwrapSingle(value: unknown, key: 'input' | 'output'): unknown {
  if (isPlainObject(value)) {
    const keys = Object.keys(value);
    if (keys.length === 1 && keys[0] === key) return value[key];
  }
  return value;
}

/** A tool receives its input as text (JSON for structured tools): parsed back when it is a JSON object or array. */
export function toolInput(input: unknown): unknown {
  if (typeof input !== 'string') return simplify(input);
  const t = input.trimStart();
  if (!t.startsWith('{') && !t.startsWith('[')) return input;
  try {
    return JSON.parse(input);
  } catch {
    return input;
  }
}

/** A tool's result: a ToolMessage gives its content (its id and status go to metadata). */
export function toolResult(output: unknown): { output: unknown; metadata: Obj } {
  if (isMessage(output) && messageType(output) === 'tool') {
    const metadata: Obj = {};
    if (typeof output.tool_call_id === 'string') metadata.tool_call_id = output.tool_call_id;
    if (typeof output.status === 'string' && output.status !== 'success') metadata.tool_status = output.status;
    return { output: simplify(output.content), metadata };
  }
  return { output: simplify(output), metadata: {} };
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((block) => (typeof block === 'string' ? block : isObj(block) && block.type === 'text' && typeof block.text === 'string' ? block.text : ''))
      .join('');
  }
  return '';
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function firstString(...values: unknown[]): string | undefined {
  return values.find((v): v is string => typeof v === 'string' && v !== '');
}

export interface LlmFacts {
  output: RecordedLlmOutput;
  usage?: TokenUsage;
  responseModel?: string;
  metadata: Obj;
}

/** The facts of an LLMResult (`{generations, llmOutput}`) that an llm step records. */
export function llmFacts(result: unknown): LlmFacts {
  const r = isObj(result) ? result : {};
  const generations = Array.isArray(r.generations) ? r.generations : [];
  const first = Array.isArray(generations[0]) ? generations[0] : [];
  const generation = isObj(first[0]) ? first[0] : {};
  const message = isObj(generation.message) ? generation.message : null;
  const text = message && 'content' in message ? textOf(message.content) || (typeof generation.text === 'string' ? generation.text : '') : typeof generation.text === 'string' ? generation.text : '';
  const calls: RecordedToolCall[] = (message && Array.isArray(message.tool_calls) ? message.tool_calls : [])
    .filter(isObj)
    .map((c) => ({ id: typeof c.id === 'string' ? c.id : '', name: String(c.name ?? ''), input: (c.args ?? {}) as RecordedToolCall['input'] }));

  const responseMetadata = message && isObj(message.response_metadata) ? message.response_metadata : {};
  const info = isObj(generation.generationInfo) ? generation.generationInfo : {};
  const llmOutputField = isObj(r.llmOutput) ? r.llmOutput : {};
  const usageMetadata = message && isObj(message.usage_metadata) ? message.usage_metadata : null;
  const tokenUsage = isObj(llmOutputField.tokenUsage) ? llmOutputField.tokenUsage : isObj(responseMetadata.tokenUsage) ? responseMetadata.tokenUsage : null;

  const usage: TokenUsage = {};
  const input = num(usageMetadata?.input_tokens) ?? num(tokenUsage?.promptTokens);
  const output = num(usageMetadata?.output_tokens) ?? num(tokenUsage?.completionTokens);
  const total = num(usageMetadata?.total_tokens) ?? num(tokenUsage?.totalTokens);
  if (input !== undefined) usage.input_tokens = input;
  if (output !== undefined) usage.output_tokens = output;
  if (total !== undefined) usage.total_tokens = total;

  const metadata: Obj = {};
  const finish = firstString(responseMetadata.finish_reason, responseMetadata.stop_reason, info.finish_reason, info.stop_reason);
  if (finish !== undefined) metadata.finish_reason = finish;
  const details = usageMetadata && isObj(usageMetadata.input_token_details) ? usageMetadata.input_token_details : {};
  if (num(details.cache_read) !== undefined) metadata.cache_read_input_tokens = details.cache_read;
  if (num(details.cache_creation) !== undefined) metadata.cache_creation_input_tokens = details.cache_creation;
  // LangChain names a message "run-<run id>" when the provider gave none: not a response id.
  const responseId = firstString(responseMetadata.id, message?.id);
  if (responseId && !/^(?:lc_)?run-/.test(responseId)) metadata.response_id = responseId;
  const responseModel = firstString(responseMetadata.model_name, responseMetadata.model);
  if (responseModel) metadata.response_model = responseModel;
  const count = generations.reduce((n: number, g) => n + (Array.isArray(g) ? g.length : 0), 0);
  // Only the first generation is the step's output; say so when there were more.
  if (count > 1) metadata.generations = count;

  return { output: llmOutput(text, calls), usage: Object.keys(usage).length ? usage : undefined, responseModel, metadata };
}

/** The model a chat model / LLM run asks for, from its invocation params, metadata or constructor fields. */
export function requestedModel(invocationParams: unknown, metadata: unknown, serialized: unknown): string | undefined {
  const p = isObj(invocationParams) ? invocationParams : {};
  const m = isObj(metadata) ? metadata : {};
  const s = isObj(serialized) && isObj(serialized.kwargs) ? serialized.kwargs : {};
  return firstString(p.model, p.model_name, p.modelName, m.ls_model_name, s.model, s.model_name, s.modelName);
}
