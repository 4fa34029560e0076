/**
 * Chat messages as the importers store them, whatever the source wrote:
 * `{role, content, name?, tool_calls?, tool_call_id?}` (the OpenAI chat
 * shape, which the scorers and the UI already read). Converters from the
 * OpenTelemetry GenAI "parts" format, OpenInference's flattened attributes,
 * Traceloop's legacy indexed attributes and LangChain's serialized messages,
 * and back to the parts format for export.
 */
import type { Json } from '../../../../src-shared/trace-format';
import { ownValue, setOwn } from '../../../../src-shared/own-property';

interface ToolCall {
  id?: string;
  name: string;
  arguments: Json;
}

export interface ChatMessage {
  role: string;
  content: Json;
  name?: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
}

type JsonObject = { [key: string]: Json };

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A JSON string that holds an object or array is parsed; anything else is returned as it was. */
export function parseJsonText(value: Json): Json {
  if (typeof value !== 'string') return value;
  const t = value.trimStart();
  if (!(t.startsWith('{') || t.startsWith('['))) return value;
  try {
    return JSON.parse(value) as Json;
  } catch {
    return value;
  }
}

function toolCall(id: Json | undefined, name: Json | undefined, args: Json | undefined): ToolCall {
  const call: ToolCall = { name: typeof name === 'string' ? name : String(name ?? ''), arguments: parseJsonText(args ?? null) };
  if (typeof id === 'string' && id !== '') call.id = id;
  return call;
}

function messageJson(message: ChatMessage): JsonObject {
  const out: JsonObject = { role: message.role, content: message.content };
  if (message.name !== undefined) out.name = message.name;
  if (message.tool_calls?.length) out.tool_calls = message.tool_calls.map((c) => ({ ...c }) as JsonObject);
  if (message.tool_call_id !== undefined) out.tool_call_id = message.tool_call_id;
  return out;
}

export function messagesJson(messages: ChatMessage[]): JsonObject[] {
  return messages.map(messageJson);
}

// ---------------------------------------------------------------------------
// OpenTelemetry GenAI: gen_ai.input.messages / gen_ai.output.messages

/**
 * Parts → messages. Text parts are joined into a string; a message holding
 * any other part (image, blob, reasoning...) keeps its parts array as
 * content so nothing is dropped. Returns finish reasons found on messages.
 */
export function messagesFromGenAiParts(value: Json): { messages: ChatMessage[]; finishReasons: string[] } | null {
  const list = parseJsonText(value);
  if (!Array.isArray(list) || !list.every((m) => isObject(m) && typeof m.role === 'string')) return null;
  const finishReasons: string[] = [];
  const messages = (list as JsonObject[]).map((m): ChatMessage => {
    if (typeof m.finish_reason === 'string') finishReasons.push(m.finish_reason);
    const parts = Array.isArray(m.parts) ? m.parts : null;
    const message: ChatMessage = { role: m.role as string, content: '' };
    if (typeof m.name === 'string') message.name = m.name;
    if (!parts) {
      message.content = m.content ?? null;
      return message;
    }
    const texts: string[] = [];
    const calls: ToolCall[] = [];
    let plain = true;
    for (const part of parts) {
      if (!isObject(part)) {
        plain = false;
        continue;
      }
      if (part.type === 'text' && typeof part.content === 'string') texts.push(part.content);
      else if (part.type === 'tool_call') calls.push(toolCall(part.id, part.name, part.arguments));
      else if (part.type === 'tool_call_response') {
        if (typeof part.id === 'string') message.tool_call_id = part.id;
        message.content = part.response ?? part.result ?? null;
        if (parts.length === 1) return message;
        plain = false;
      } else plain = false;
    }
    message.content = plain ? texts.join('') : parts;
    if (calls.length) message.tool_calls = calls;
    return message;
  });
  return { messages, finishReasons };
}

/** Messages → parts, the inverse of messagesFromGenAiParts for messages it produced. */
export function messagesToGenAiParts(messages: ChatMessage[], finishReason?: string): JsonObject[] {
  return messages.map((m) => {
    const out: JsonObject = { role: m.role };
    if (m.name !== undefined) out.name = m.name;
    let parts: Json[];
    if (m.tool_call_id !== undefined) parts = [{ type: 'tool_call_response', id: m.tool_call_id, response: m.content }];
    else if (Array.isArray(m.content)) parts = m.content;
    else parts = [{ type: 'text', content: typeof m.content === 'string' ? m.content : JSON.stringify(m.content) }];
    for (const c of m.tool_calls ?? []) parts.push({ type: 'tool_call', ...(c.id ? { id: c.id } : {}), name: c.name, arguments: c.arguments });
    out.parts = parts;
    if (finishReason !== undefined) out.finish_reason = finishReason;
    return out;
  });
}

/** True when messagesToGenAiParts → messagesFromGenAiParts gives these messages back unchanged. */
export function isPartsSafe(value: Json): value is JsonObject[] {
  if (!Array.isArray(value) || value.length === 0) return false;
  return value.every(
    (m) =>
      isObject(m) &&
      typeof m.role === 'string' &&
      Object.keys(m).every((k) => ['role', 'content', 'name', 'tool_calls', 'tool_call_id'].includes(k)) &&
      (typeof m.content === 'string' || (m.tool_call_id !== undefined && m.content !== undefined)) &&
      (m.name === undefined || typeof m.name === 'string') &&
      (m.tool_call_id === undefined || (typeof m.tool_call_id === 'string' && !m.tool_calls)) &&
      (m.tool_calls === undefined ||
        (Array.isArray(m.tool_calls) &&
          m.tool_calls.every(
            (c) =>
              isObject(c) &&
              typeof c.name === 'string' &&
              'arguments' in c &&
              JSON.stringify(parseJsonText(c.arguments)) === JSON.stringify(c.arguments) &&
              Object.keys(c).every((k) => ['id', 'name', 'arguments'].includes(k)),
          ))),
  );
}

// ---------------------------------------------------------------------------
// OpenInference: llm.input_messages.N.message.role / .content / .tool_calls.K.tool_call.*

/** Collects `<prefix>.N.message.*` attributes into messages, ordered by N. */
export function messagesFromOpenInference(attributes: Record<string, Json>, prefix: string): ChatMessage[] | null {
  const byIndex = new Map<number, Record<string, Json>>();
  const head = `${prefix}.`;
  for (const [key, value] of Object.entries(attributes)) {
    if (!key.startsWith(head)) continue;
    const rest = key.slice(head.length);
    const dot = rest.indexOf('.');
    const n = Number(rest.slice(0, dot));
    if (dot < 0 || !Number.isInteger(n)) continue;
    const field = rest.slice(dot + 1).replace(/^message\./, '');
    let entry = byIndex.get(n);
    if (!entry) byIndex.set(n, (entry = {}));
    setOwn(entry, field, value);
  }
  if (byIndex.size === 0) return null;
  return [...byIndex.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([, f]) => {
      const message: ChatMessage = { role: typeof f.role === 'string' ? f.role : 'unknown', content: f.content ?? null };
      if (f.content === undefined) {
        // Multimodal messages list their parts as message.contents.K.message_content.*
        const texts = Object.keys(f)
          .filter((k) => /^contents\.\d+\.message_content\.text$/.test(k))
          .sort((a, b) => Number(a.split('.')[1]) - Number(b.split('.')[1]))
          .map((k) => String(f[k]));
        message.content = texts.length ? texts.join('') : '';
      }
      if (typeof f.name === 'string') message.name = f.name;
      if (typeof f.tool_call_id === 'string') message.tool_call_id = f.tool_call_id;
      const calls = new Map<number, Record<string, Json>>();
      for (const [k, v] of Object.entries(f)) {
        const m = /^tool_calls\.(\d+)\.tool_call\.(.+)$/.exec(k);
        if (!m) continue;
        const c = calls.get(Number(m[1])) ?? {};
        setOwn(c, m[2], v);
        calls.set(Number(m[1]), c);
      }
      if (calls.size) {
        message.tool_calls = [...calls.entries()]
          .sort((a, b) => a[0] - b[0])
          .map(([, c]) => toolCall(c.id, c['function.name'], c['function.arguments']));
      }
      return message;
    });
}

// ---------------------------------------------------------------------------
// Traceloop legacy (OpenLLMetry before the GenAI messages attributes):
// gen_ai.prompt.N.role/content, gen_ai.completion.N.role/content/finish_reason/tool_calls.K.*

export function messagesFromIndexedAttributes(attributes: Record<string, Json>, prefix: string): { messages: ChatMessage[]; finishReasons: string[] } | null {
  const byIndex = new Map<number, Record<string, Json>>();
  const head = `${prefix}.`;
  for (const [key, value] of Object.entries(attributes)) {
    const m = key.startsWith(head) ? /^(\d+)\.(.+)$/.exec(key.slice(head.length)) : null;
    if (!m) continue;
    const entry = byIndex.get(Number(m[1])) ?? {};
    setOwn(entry, m[2], value);
    byIndex.set(Number(m[1]), entry);
  }
  if (byIndex.size === 0) return null;
  const finishReasons: string[] = [];
  const messages = [...byIndex.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([, f]) => {
      if (typeof f.finish_reason === 'string') finishReasons.push(f.finish_reason);
      const message: ChatMessage = { role: typeof f.role === 'string' ? f.role : 'unknown', content: f.content ?? '' };
      if (typeof f.tool_call_id === 'string') message.tool_call_id = f.tool_call_id;
      const calls = new Map<number, Record<string, Json>>();
      for (const [k, v] of Object.entries(f)) {
        const m = /^tool_calls\.(\d+)\.(.+)$/.exec(k);
        if (!m) continue;
        const c = calls.get(Number(m[1])) ?? {};
        setOwn(c, m[2], v);
        calls.set(Number(m[1]), c);
      }
      if (calls.size) message.tool_calls = [...calls.values()].map((c) => toolCall(c.id, c.name, c.arguments));
      return message;
    });
  return { messages, finishReasons };
}

// ---------------------------------------------------------------------------
// LangChain serialized objects: {lc: 1, type: "constructor", id: [..., "HumanMessage"], kwargs: {...}}

const LANGCHAIN_ROLES: Record<string, string> = {
  HumanMessage: 'user',
  HumanMessageChunk: 'user',
  AIMessage: 'assistant',
  AIMessageChunk: 'assistant',
  SystemMessage: 'system',
  SystemMessageChunk: 'system',
  ToolMessage: 'tool',
  ToolMessageChunk: 'tool',
  FunctionMessage: 'function',
  ChatMessage: 'chat',
};

function isLangChainConstructor(value: JsonObject): boolean {
  return value.lc === 1 && value.type === 'constructor' && Array.isArray(value.id) && isObject(value.kwargs);
}

export function messageFromLangChain(value: JsonObject): ChatMessage | null {
  if (!isLangChainConstructor(value)) return null;
  const className = String((value.id as Json[]).at(-1));
  const role = ownValue(LANGCHAIN_ROLES, className);
  if (!role) return null;
  const kwargs = value.kwargs as JsonObject;
  const message: ChatMessage = {
    role: className === 'ChatMessage' && typeof kwargs.role === 'string' ? kwargs.role : role,
    content: kwargs.content ?? '',
  };
  if (typeof kwargs.name === 'string') message.name = kwargs.name;
  if (typeof kwargs.tool_call_id === 'string') message.tool_call_id = kwargs.tool_call_id;
  const calls = Array.isArray(kwargs.tool_calls) ? kwargs.tool_calls : [];
  if (calls.length) message.tool_calls = calls.filter(isObject).map((c) => toolCall(c.id, c.name, c.args));
  return message;
}

/**
 * Replaces LangChain's serialized wrappers with what they hold, so a person
 * (and the scorers) read the content rather than the class plumbing:
 * messages become chat messages, documents {id, content, metadata}, prompt
 * values their messages, any other constructor its kwargs. The raw form stays
 * in the step's attributes.
 */
export function simplifyLangChain(value: Json, depth = 0): Json {
  if (depth > 40) return value;
  if (Array.isArray(value)) return value.map((v) => simplifyLangChain(v, depth + 1));
  if (!isObject(value)) return value;
  if (isLangChainConstructor(value)) {
    const message = messageFromLangChain(value);
    if (message) return messageJson(message);
    const className = String((value.id as Json[]).at(-1));
    const kwargs = value.kwargs as JsonObject;
    if (className === 'Document') return documentJson(kwargs);
    return simplifyLangChain(kwargs, depth + 1);
  }
  if (typeof value.pageContent === 'string') return documentJson(value);
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) setOwn(out, k, simplifyLangChain(v, depth + 1));
  return out;
}

function documentJson(doc: JsonObject): JsonObject {
  const out: JsonObject = {};
  if (doc.id !== undefined && doc.id !== null) out.id = doc.id;
  out.content = (doc.pageContent ?? doc.page_content ?? '') as Json;
  if (isObject(doc.metadata) && Object.keys(doc.metadata).length) out.metadata = doc.metadata;
  return out;
}
