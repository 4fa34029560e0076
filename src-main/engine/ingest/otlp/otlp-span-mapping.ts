/**
 * What an OTLP span's attributes say about the step it records, read through
 * the three conventions LLM instrumentations use:
 * - OpenTelemetry GenAI (gen_ai.*),
 * - OpenInference (openinference.span.kind, input.value, llm.*, retrieval.*,
 *   reranker.*, tool.*, embedding.*),
 * - Traceloop/OpenLLMetry (traceloop.span.kind, traceloop.entity.*, and the
 *   legacy gen_ai.prompt.N / gen_ai.completion.N attributes).
 * The raw attributes are always kept beside what is derived from them.
 */
import type { Json, StepType, TokenUsage, TraceError } from '../../../../src-shared/trace-format';
import {
  isObject,
  messagesFromGenAiParts,
  messagesFromIndexedAttributes,
  messagesFromOpenInference,
  messagesJson,
  parseJsonText,
  simplifyLangChain,
  type ChatMessage,
} from '../foreign/chat-messages';
import { attributeMap, int64 } from './otlp-values';
import { assignOwn, ownValue, setOwn } from '../../../../src-shared/own-property';

const OPENINFERENCE_KINDS: Record<string, StepType> = {
  LLM: 'llm',
  RETRIEVER: 'retrieval',
  RERANKER: 'retrieval',
  EMBEDDING: 'retrieval',
  TOOL: 'tool',
  AGENT: 'agent',
  CHAIN: 'generic',
  PROMPT: 'prompt',
  GUARDRAIL: 'generic',
  EVALUATOR: 'generic',
  UNKNOWN: 'generic',
};

const GENAI_OPERATIONS: Record<string, StepType> = {
  chat: 'llm',
  text_completion: 'llm',
  generate_content: 'llm',
  completion: 'llm',
  embeddings: 'retrieval',
  execute_tool: 'tool',
  invoke_agent: 'agent',
  create_agent: 'agent',
  workflow: 'generic',
  task: 'generic',
};

const TRACELOOP_KINDS: Record<string, StepType> = { workflow: 'generic', task: 'generic', agent: 'agent', tool: 'tool', unknown: 'generic' };

function stepTypeOf(attrs: Record<string, Json>): StepType {
  const oi = attrs['openinference.span.kind'];
  const byKind = typeof oi === 'string' ? ownValue(OPENINFERENCE_KINDS, oi.toUpperCase()) : undefined;
  if (byKind) return byKind;
  const op = attrs['gen_ai.operation.name'];
  const byOperation = typeof op === 'string' ? ownValue(GENAI_OPERATIONS, op) : undefined;
  if (byOperation) return byOperation;
  const tl = attrs['traceloop.span.kind'];
  const byTraceloop = typeof tl === 'string' ? ownValue(TRACELOOP_KINDS, tl) : undefined;
  if (byTraceloop) return byTraceloop;
  if (typeof attrs['llm.request.type'] === 'string') return attrs['llm.request.type'] === 'embedding' ? 'retrieval' : 'llm';
  if (Object.keys(attrs).some((k) => k.startsWith('retrieval.documents.'))) return 'retrieval';
  if (typeof attrs['gen_ai.request.model'] === 'string' || typeof attrs['gen_ai.system'] === 'string') return 'llm';
  return 'generic';
}

/**
 * input.value / output.value with their mime type; LangChain's serialized
 * wrappers simplified, except in a Traceback export, which is taken verbatim.
 */
function valueAttr(attrs: Record<string, Json>, key: 'input' | 'output'): Json | undefined {
  const raw = attrs[`${key}.value`];
  if (raw === undefined) return undefined;
  const mime = attrs[`${key}.mime_type`];
  let parsed: Json = raw;
  if (typeof raw === 'string' && mime === 'application/json') {
    try {
      parsed = JSON.parse(raw) as Json;
    } catch {
      parsed = raw;
    }
  } else if (mime !== 'text/plain') parsed = parseJsonText(raw);
  return attrs['traceback.step_id'] !== undefined ? parsed : simplifyLangChain(parsed);
}

function traceloopEntity(attrs: Record<string, Json>, key: 'input' | 'output'): Json | undefined {
  const raw = attrs[`traceloop.entity.${key}`];
  return raw === undefined ? undefined : simplifyLangChain(parseJsonText(raw));
}

function documents(attrs: Record<string, Json>, prefix: string): Json[] | null {
  const byIndex = new Map<number, Record<string, Json>>();
  for (const [key, value] of Object.entries(attrs)) {
    const m = key.startsWith(prefix) ? /^(\d+)\.document\.(.+)$/.exec(key.slice(prefix.length)) : null;
    if (!m) continue;
    const doc = byIndex.get(Number(m[1])) ?? {};
    setOwn(doc, m[2], m[2] === 'metadata' ? parseJsonText(value) : value);
    byIndex.set(Number(m[1]), doc);
  }
  if (byIndex.size === 0) return null;
  return [...byIndex.entries()].sort((a, b) => a[0] - b[0]).map(([, d]) => d);
}

/** OpenInference embedding spans: embedding.embeddings.N.embedding.text / .vector. */
function embeddings(attrs: Record<string, Json>): Json[] | null {
  const byIndex = new Map<number, Record<string, Json>>();
  for (const [key, value] of Object.entries(attrs)) {
    const m = /^embedding\.embeddings\.(\d+)\.embedding\.(.+)$/.exec(key);
    if (!m) continue;
    const e = byIndex.get(Number(m[1])) ?? {};
    setOwn(e, m[2], value);
    byIndex.set(Number(m[1]), e);
  }
  return byIndex.size ? [...byIndex.entries()].sort((a, b) => a[0] - b[0]).map(([, e]) => e) : null;
}

function num(value: Json | undefined): number | undefined {
  const n = int64(value);
  if (typeof n === 'number') return n;
  return typeof value === 'number' ? value : undefined;
}

function usageOf(attrs: Record<string, Json>): TokenUsage | undefined {
  const usage: TokenUsage = {};
  const input = num(attrs['gen_ai.usage.input_tokens']) ?? num(attrs['gen_ai.usage.prompt_tokens']) ?? num(attrs['llm.token_count.prompt']);
  const output = num(attrs['gen_ai.usage.output_tokens']) ?? num(attrs['gen_ai.usage.completion_tokens']) ?? num(attrs['llm.token_count.completion']);
  const total = num(attrs['llm.token_count.total']) ?? num(attrs['gen_ai.usage.total_tokens']) ?? num(attrs['llm.usage.total_tokens']);
  const cost = num(attrs['llm.cost.total']) ?? num(attrs['gen_ai.usage.cost']);
  if (input !== undefined) usage.input_tokens = input;
  if (output !== undefined) usage.output_tokens = output;
  if (total !== undefined) usage.total_tokens = total;
  if (cost !== undefined) usage.cost_usd = cost;
  return Object.keys(usage).length ? usage : undefined;
}

function modelOf(attrs: Record<string, Json>): string | undefined {
  for (const key of ['gen_ai.response.model', 'gen_ai.request.model', 'llm.model_name', 'embedding.model_name', 'reranker.model_name', 'llm.response.model', 'llm.request.model']) {
    const v = attrs[key];
    if (typeof v === 'string' && v !== '') return v;
  }
  return undefined;
}

function finishReasons(attrs: Record<string, Json>): string[] {
  const v = attrs['gen_ai.response.finish_reasons'] ?? attrs['llm.finish_reason'];
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === 'string');
  return typeof v === 'string' ? [v] : [];
}

function withSystemInstructions(attrs: Record<string, Json>, messages: ChatMessage[]): ChatMessage[] {
  const raw = attrs['gen_ai.system_instructions'];
  if (raw === undefined) return messages;
  const parsed = parseJsonText(raw);
  const parts = Array.isArray(parsed) ? parsed : [{ type: 'text', content: raw }];
  const plain = parts.every((p) => isObject(p) && p.type === 'text' && typeof p.content === 'string');
  const content: Json = plain ? parts.map((p) => (p as { content: string }).content).join('') : parts;
  return [{ role: 'system', content }, ...messages];
}

interface LlmIo {
  input?: Json;
  output?: Json;
  finish: string[];
}

function llmIo(attrs: Record<string, Json>): LlmIo {
  const finish = finishReasons(attrs);
  let input: Json | undefined;
  let output: Json | undefined;

  const genIn = attrs['gen_ai.input.messages'] !== undefined ? messagesFromGenAiParts(attrs['gen_ai.input.messages']) : null;
  const oiIn = messagesFromOpenInference(attrs, 'llm.input_messages');
  const legacyIn = messagesFromIndexedAttributes(attrs, 'gen_ai.prompt');
  const inMessages = genIn?.messages ?? oiIn ?? legacyIn?.messages;
  if (inMessages) input = { messages: messagesJson(withSystemInstructions(attrs, inMessages)) };
  else if (attrs['gen_ai.system_instructions'] !== undefined) input = { messages: messagesJson(withSystemInstructions(attrs, [])) };
  else input = valueAttr(attrs, 'input') ?? traceloopEntity(attrs, 'input');

  const genOut = attrs['gen_ai.output.messages'] !== undefined ? messagesFromGenAiParts(attrs['gen_ai.output.messages']) : null;
  const oiOut = messagesFromOpenInference(attrs, 'llm.output_messages');
  const legacyOut = messagesFromIndexedAttributes(attrs, 'gen_ai.completion');
  const outMessages = genOut?.messages ?? oiOut ?? legacyOut?.messages;
  for (const r of [...(genOut?.finishReasons ?? []), ...(legacyOut?.finishReasons ?? [])]) if (!finish.includes(r)) finish.push(r);
  if (outMessages) {
    const list = messagesJson(outMessages);
    output = list.length === 1 ? list[0] : { messages: list };
  } else output = valueAttr(attrs, 'output') ?? traceloopEntity(attrs, 'output');
  return { input, output, finish };
}

export interface SpanFacts {
  type: StepType;
  name: string;
  input?: Json;
  output?: Json;
  model?: string;
  usage?: TokenUsage;
  startMetadata: Record<string, Json>;
  endMetadata: Record<string, Json>;
}

export function spanFacts(spanName: string, attrs: Record<string, Json>): SpanFacts {
  const type = stepTypeOf(attrs);
  const startMetadata: Record<string, Json> = {};
  const endMetadata: Record<string, Json> = {};
  // OpenInference's free-form `metadata` attribute is the user's own metadata.
  const userMetadata = attrs.metadata !== undefined ? parseJsonText(attrs.metadata) : undefined;
  if (isObject(userMetadata)) assignOwn(startMetadata, userMetadata);

  let input: Json | undefined;
  let output: Json | undefined;
  if (type === 'llm') {
    const io = llmIo(attrs);
    input = io.input;
    output = io.output;
    if (io.finish.length) endMetadata.finish_reason = io.finish.length === 1 ? io.finish[0] : io.finish;
  } else if (type === 'retrieval') {
    const reranked = documents(attrs, 'reranker.output_documents.');
    const retrieved = documents(attrs, 'retrieval.documents.');
    const embedded = Object.keys(attrs).some((k) => k.startsWith('embedding.embeddings.'));
    const query = attrs['reranker.query'];
    input = typeof query === 'string' ? { query, documents: documents(attrs, 'reranker.input_documents.') ?? [] } : (valueAttr(attrs, 'input') ?? traceloopEntity(attrs, 'input'));
    if (input === undefined && typeof attrs['gen_ai.embeddings.input'] === 'string') input = attrs['gen_ai.embeddings.input'];
    output = reranked ?? retrieved ?? valueAttr(attrs, 'output') ?? traceloopEntity(attrs, 'output') ?? embeddings(attrs) ?? undefined;
    if (embedded || attrs['gen_ai.operation.name'] === 'embeddings' || attrs['openinference.span.kind'] === 'EMBEDDING') startMetadata.operation = 'embeddings';
    if (reranked) startMetadata.operation = 'rerank';
    if (num(attrs['reranker.top_k']) !== undefined) startMetadata.top_k = num(attrs['reranker.top_k'])!;
  } else if (type === 'tool') {
    const args = attrs['gen_ai.tool.call.arguments'];
    const result = attrs['gen_ai.tool.call.result'];
    input = args !== undefined ? parseJsonText(args) : (valueAttr(attrs, 'input') ?? traceloopEntity(attrs, 'input') ?? (attrs['tool.parameters'] !== undefined ? parseJsonText(attrs['tool.parameters']) : undefined));
    output = result !== undefined ? parseJsonText(result) : (valueAttr(attrs, 'output') ?? traceloopEntity(attrs, 'output'));
    // LangChain tools return {output: ToolMessage}; the message content is the tool's result.
    if (isObject(output) && Object.keys(output).length === 1 && isObject(output.output) && output.output.role === 'tool' && 'content' in output.output) {
      if (typeof output.output.tool_call_id === 'string') startMetadata.tool_call_id = output.output.tool_call_id;
      output = output.output.content;
    }
    const callId = attrs['gen_ai.tool.call.id'] ?? attrs['tool_call.id'];
    if (typeof callId === 'string') startMetadata.tool_call_id = callId;
    if (typeof attrs['tool.description'] === 'string') startMetadata.tool_description = attrs['tool.description'];
  } else {
    input = valueAttr(attrs, 'input') ?? traceloopEntity(attrs, 'input');
    output = valueAttr(attrs, 'output') ?? traceloopEntity(attrs, 'output');
  }

  const agentName = attrs['gen_ai.agent.name'] ?? attrs['agent.name'];
  if (typeof agentName === 'string') startMetadata.agent_name = agentName;
  const provider = attrs['gen_ai.provider.name'] ?? attrs['gen_ai.system'] ?? attrs['llm.provider'] ?? attrs['llm.system'];
  if (typeof provider === 'string' && type === 'llm') startMetadata.provider = provider;
  if (typeof attrs['gen_ai.conversation.id'] === 'string') startMetadata.conversation_id = attrs['gen_ai.conversation.id'];
  if (typeof attrs['session.id'] === 'string') startMetadata.session_id = attrs['session.id'];

  // A tool span's own name is often a generic wrapper ("execute_tool DynamicStructuredTool");
  // the recorded tool name says which tool ran.
  const toolName = attrs['gen_ai.tool.name'] ?? attrs['tool.name'];
  const name = type === 'tool' && typeof toolName === 'string' && toolName !== '' ? toolName : spanName;
  if (name !== spanName) startMetadata.span_name = spanName;

  return { type, name, input, output, model: modelOf(attrs), usage: usageOf(attrs), startMetadata, endMetadata };
}

export interface SpanEvent {
  name: string;
  timeMs: number | null;
  attributes: Record<string, Json>;
}

/** Status 2 plus `exception` events → the step's error; the first exception is the cause. */
export function spanError(statusMessage: string | undefined, events: SpanEvent[], attrs: Record<string, Json>): TraceError {
  const exception = events.find((e) => e.name === 'exception');
  const a = exception?.attributes ?? {};
  const message = typeof a['exception.message'] === 'string' ? a['exception.message'] : statusMessage || 'the span ended with status ERROR';
  const type =
    typeof a['exception.type'] === 'string' && a['exception.type'] !== ''
      ? a['exception.type']
      : typeof attrs['error.type'] === 'string'
        ? attrs['error.type']
        : 'Error';
  const error: TraceError = { type, message };
  if (typeof a['exception.stacktrace'] === 'string') error.stack = a['exception.stacktrace'];
  const status = num(attrs['http.response.status_code']) ?? num(attrs['http.status_code']) ?? leadingHttpStatus(message);
  if (status !== undefined) error.status = status;
  return error;
}

// Client libraries (openai, anthropic) start their error messages with the HTTP status: "500 The server had an error…".
function leadingHttpStatus(message: string): number | undefined {
  const m = /^([45]\d\d) [A-Za-z]/.exec(message);
  return m ? Number(m[1]) : undefined;
}

export function eventsOf(raw: unknown, nanosToMs: (v: unknown) => number | null): SpanEvent[] {
  if (!Array.isArray(raw)) return [];
  return raw.filter(isObject).map((e) => ({
    name: typeof e.name === 'string' ? e.name : '',
    timeMs: nanosToMs(e.timeUnixNano),
    attributes: attributeMap(e.attributes),
  }));
}
