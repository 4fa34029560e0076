/**
 * What a step's input or output is, as a person reads it: a conversation
 * (chat messages in the OpenAI, Anthropic, LangChain and OpenInference
 * shapes, and the importers' normalized {role, content, tool_calls}),
 * retrieved documents (text with a relevance score), plain text, or data.
 * Pure: the components only draw what this returns, and JSON stays a tree
 * only when it is data.
 */
import type { Json } from '../../../src-shared/trace-format';

type JsonObject = { [key: string]: Json };

interface ToolCall {
  id: string | null;
  name: string;
  /** Parsed when the recorded arguments are a JSON string. */
  args: Json;
}

export interface ChatTurn {
  role: string;
  name: string | null;
  text: string;
  toolCalls: ToolCall[];
  /** For a tool result: the call it answers. */
  toolCallId: string | null;
}

export interface DocumentCard {
  text: string;
  score: number | null;
  id: string | null;
  source: string | null;
  metadata: Json | null;
}

export type ContentShape =
  | { kind: 'chat'; turns: ChatTurn[]; /** The value's other fields (model, parameters, usage), shown as data. */ rest: JsonObject | null }
  | { kind: 'documents'; docs: DocumentCard[]; rest: JsonObject | null }
  | { kind: 'text'; text: string }
  | { kind: 'data' };

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: Json | undefined): string | null {
  return typeof v === 'string' ? v : null;
}

/** LangChain class names and message `type`s → the role words people use. */
const ROLE_OF: Record<string, string> = {
  human: 'user',
  humanmessage: 'user',
  humanmessagechunk: 'user',
  user: 'user',
  ai: 'assistant',
  aimessage: 'assistant',
  aimessagechunk: 'assistant',
  assistant: 'assistant',
  model: 'assistant',
  system: 'system',
  systemmessage: 'system',
  developer: 'system',
  tool: 'tool',
  toolmessage: 'tool',
  function: 'tool',
  functionmessage: 'tool',
  chat: 'user',
  chatmessage: 'user',
};

function parsedArgs(v: Json | undefined): Json {
  if (typeof v !== 'string') return v ?? null;
  const t = v.trim();
  if (!(t.startsWith('{') || t.startsWith('['))) return v;
  try {
    return JSON.parse(t) as Json;
  } catch {
    return v;
  }
}

function toolCallOf(c: Json): ToolCall | null {
  if (!isObject(c)) return null;
  const fn = isObject(c.function) ? c.function : null;
  const name = str(fn?.name) ?? str(c.name);
  if (name === null) return null;
  return { id: str(c.id) ?? str(c.tool_call_id), name, args: parsedArgs(fn ? fn.arguments : (c.args ?? c.arguments ?? c.input)) };
}

/** Text and tool calls of a message's content: a string, or content blocks (Anthropic, OpenAI parts, LangChain). */
function readContent(content: Json | undefined): { text: string; toolCalls: ToolCall[]; toolCallId: string | null } {
  if (typeof content === 'string') return { text: content, toolCalls: [], toolCallId: null };
  if (!Array.isArray(content)) return { text: content === null || content === undefined ? '' : JSON.stringify(content), toolCalls: [], toolCallId: null };
  const texts: string[] = [];
  const toolCalls: ToolCall[] = [];
  let toolCallId: string | null = null;
  for (const block of content) {
    if (typeof block === 'string') texts.push(block);
    else if (isObject(block)) {
      const type = str(block.type);
      if (type === 'tool_use' || type === 'tool_call' || type === 'function_call') {
        const call = toolCallOf(block);
        if (call) toolCalls.push(call);
      } else if (type === 'tool_result') {
        toolCallId = str(block.tool_use_id) ?? toolCallId;
        texts.push(readContent(block.content).text);
      } else if (str(block.text) !== null) texts.push(block.text as string);
      else if (str(block.content) !== null) texts.push(block.content as string);
      else texts.push(`[${type ?? 'part'}]`);
    }
  }
  return { text: texts.join('\n'), toolCalls, toolCallId };
}

/** One chat message in any of the shapes above, or null when `v` is not one. */
function turnOf(v: Json): ChatTurn | null {
  if (!isObject(v)) return null;
  // LangChain serialized: {lc: 1, type: "constructor", id: [..., "HumanMessage"], kwargs: {...}}
  if (v.lc !== undefined && Array.isArray(v.id) && isObject(v.kwargs)) {
    const cls = str(v.id[v.id.length - 1]);
    const role = cls ? ROLE_OF[cls.toLowerCase()] : undefined;
    return role ? build(role, v.kwargs) : null;
  }
  // LangChain message dict: {type: "human", data: {content}}
  if (str(v.type) && isObject(v.data) && v.role === undefined) {
    const role = ROLE_OF[(v.type as string).toLowerCase()];
    return role ? build(role, v.data) : null;
  }
  // OpenInference flattened attributes: {"message.role": ..., "message.content": ...}
  if (str(v['message.role'])) {
    return build(v['message.role'] as string, { content: v['message.content'] ?? null, tool_calls: v['message.tool_calls'] ?? null, name: v['message.name'] ?? null });
  }
  // An SDK's model output: {text, tool_calls} with no role is the assistant speaking.
  if (v.role === undefined && Array.isArray(v.tool_calls) && (typeof v.text === 'string' || 'content' in v)) {
    return build('assistant', { content: v.text ?? v.content ?? null, tool_calls: v.tool_calls });
  }
  const role = str(v.role) ?? (str(v.type) && ROLE_OF[(v.type as string).toLowerCase()] && ('content' in v || 'tool_calls' in v) ? (v.type as string) : null);
  if (role === null) return null;
  if (!('content' in v) && !('tool_calls' in v) && !('function_call' in v) && !('parts' in v)) return null;
  return build(ROLE_OF[role.toLowerCase()] ?? role, v);
}

function build(role: string, m: JsonObject): ChatTurn {
  const content = readContent(m.content ?? m.parts ?? null);
  const calls = [...content.toolCalls];
  if (Array.isArray(m.tool_calls)) for (const c of m.tool_calls) calls.push(...[toolCallOf(c)].filter((x): x is ToolCall => x !== null));
  if (isObject(m.function_call)) calls.push(...[toolCallOf(m.function_call)].filter((x): x is ToolCall => x !== null));
  return {
    role: ROLE_OF[role.toLowerCase()] ?? role,
    name: str(m.name),
    text: content.text,
    toolCalls: calls,
    toolCallId: str(m.tool_call_id) ?? content.toolCallId,
  };
}

function turnsOf(list: Json[]): ChatTurn[] | null {
  if (list.length === 0) return null;
  const turns: ChatTurn[] = [];
  for (const item of list) {
    const t = turnOf(item);
    if (!t) return null;
    turns.push(t);
  }
  return turns;
}

function without(v: JsonObject, ...keys: string[]): JsonObject | null {
  const rest = Object.fromEntries(Object.entries(v).filter(([k]) => !keys.includes(k)));
  return Object.keys(rest).length ? rest : null;
}

const DOC_TEXT_KEYS = ['page_content', 'pageContent', 'content', 'text', 'document.content', 'snippet', 'chunk'];
const DOC_SCORE_KEYS = ['score', 'relevance_score', 'similarity', 'document.score', 'distance'];

function documentOf(v: Json): DocumentCard | null {
  if (!isObject(v)) return null;
  const inner = isObject(v.document) ? v.document : v;
  const textKey = DOC_TEXT_KEYS.find((k) => typeof inner[k] === 'string');
  if (!textKey || 'role' in inner) return null;
  const scoreKey = DOC_SCORE_KEYS.find((k) => typeof v[k] === 'number' || typeof inner[k] === 'number');
  const score = scoreKey ? ((typeof v[scoreKey] === 'number' ? v[scoreKey] : inner[scoreKey]) as number) : null;
  const metadata = (inner.metadata ?? inner['document.metadata'] ?? null) as Json;
  const meta = isObject(metadata) ? metadata : null;
  return {
    text: inner[textKey] as string,
    score,
    id: str(inner.id) ?? str(inner['document.id']) ?? (typeof inner.id === 'number' ? String(inner.id) : null),
    source: str(meta?.source) ?? str(meta?.url) ?? str(meta?.title) ?? str(inner.source) ?? str(inner.url) ?? str(inner.title) ?? null,
    metadata,
  };
}

/** A list of retrieved documents: every item carries text, and some carry a score, metadata or id (so a bare list of strings stays data). */
function documentsOf(list: Json[]): DocumentCard[] | null {
  if (list.length === 0) return null;
  const docs: DocumentCard[] = [];
  for (const item of list) {
    const d = documentOf(item);
    if (!d) return null;
    docs.push(d);
  }
  return docs.some((d) => d.score !== null || d.metadata !== null || d.id !== null) || list.every((x) => isObject(x) && Object.keys(x).length <= 3) ? docs : null;
}

export function contentShape(value: Json): ContentShape {
  if (typeof value === 'string') return { kind: 'text', text: value };
  if (Array.isArray(value)) {
    const turns = turnsOf(value);
    if (turns) return { kind: 'chat', turns, rest: null };
    const docs = documentsOf(value);
    if (docs) return { kind: 'documents', docs, rest: null };
    return { kind: 'data' };
  }
  if (!isObject(value)) return { kind: 'data' };
  // A request: {messages: [...], model, temperature, ...}
  for (const key of ['messages', 'input_messages', 'llm.input_messages']) {
    if (Array.isArray(value[key])) {
      const turns = turnsOf(value[key] as Json[]);
      if (turns) return { kind: 'chat', turns, rest: without(value, key) };
    }
  }
  // OpenAI chat completion: {choices: [{message}]}
  if (Array.isArray(value.choices)) {
    const turns = turnsOf((value.choices as Json[]).map((c) => (isObject(c) ? (c.message ?? c.delta ?? null) : null)));
    if (turns) return { kind: 'chat', turns, rest: without(value, 'choices') };
  }
  // LangChain LLMResult: {generations: [[{text, message}]]}
  if (Array.isArray(value.generations)) {
    const flat = (value.generations as Json[]).flat() as Json[];
    const turns = turnsOf(flat.map((g) => (isObject(g) ? (g.message ?? (typeof g.text === 'string' ? { role: 'assistant', content: g.text } : null)) : null)));
    if (turns) return { kind: 'chat', turns, rest: without(value, 'generations') };
  }
  const one = turnOf(value);
  if (one) return { kind: 'chat', turns: [one], rest: null };
  for (const key of ['documents', 'docs', 'results', 'retrieval.documents', 'context']) {
    if (Array.isArray(value[key])) {
      const docs = documentsOf(value[key] as Json[]);
      if (docs) return { kind: 'documents', docs, rest: without(value, key) };
    }
  }
  return { kind: 'data' };
}
