/**
 * A run → OTLP/JSON ExportTraceServiceRequest, with OpenTelemetry GenAI and
 * OpenInference attributes so other tools (Phoenix, Jaeger, a Collector) read
 * it, and `traceback.*` attributes that let our own importer rebuild the same
 * steps exactly (ids, replay keys, inputs and outputs as JSON).
 */
import { createHash } from 'node:crypto';
import type { RunDetail, Step } from '../../../../src-shared/model';
import type { Json, StepType } from '../../../../src-shared/trace-format';
import { isObject, isPartsSafe, messagesToGenAiParts, type ChatMessage } from '../foreign/chat-messages';
import { msToNanos } from './otlp-values';
import { assignOwn } from '../../../../src-shared/own-property';

type AnyValue =
  | { stringValue: string }
  | { boolValue: boolean }
  | { intValue: string }
  | { doubleValue: number }
  | { arrayValue: { values: AnyValue[] } };
interface KeyValue {
  key: string;
  value: AnyValue;
}

const OPENINFERENCE_KIND: Record<StepType, string> = {
  llm: 'LLM',
  retrieval: 'RETRIEVER',
  tool: 'TOOL',
  agent: 'AGENT',
  prompt: 'PROMPT',
  generic: 'CHAIN',
};

const GENAI_OPERATION: Partial<Record<StepType, string>> = { llm: 'chat', tool: 'execute_tool', agent: 'invoke_agent' };

function value(v: Json): AnyValue {
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  if (typeof v === 'number') return Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v };
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return { arrayValue: { values: v.map((x) => ({ stringValue: x as string })) } };
  return { stringValue: JSON.stringify(v) };
}

function attributes(map: Record<string, Json>): KeyValue[] {
  return Object.entries(map)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([key, v]) => ({ key, value: value(v) }));
}

/** Our ids as OTLP ids: kept when they already are hex of the right size, else a stable hash. */
function hexId(id: string, bytes: 8 | 16): string {
  if (id.length === bytes * 2 && /^[0-9a-f]+$/.test(id) && !/^0+$/.test(id)) return id;
  return createHash('sha256').update(id).digest('hex').slice(0, bytes * 2);
}

function messagesOf(v: Json | null): ChatMessage[] | null {
  if (isObject(v) && Object.keys(v).length === 1 && isPartsSafe(v.messages ?? null)) return v.messages as unknown as ChatMessage[];
  if (isObject(v) && isPartsSafe([v])) return [v as unknown as ChatMessage];
  return null;
}

function ioAttributes(prefix: 'input' | 'output', v: Json | null): Record<string, Json> {
  if (v === null) return {};
  if (typeof v === 'string') return { [`${prefix}.value`]: v, [`${prefix}.mime_type`]: 'text/plain' };
  return { [`${prefix}.value`]: JSON.stringify(v), [`${prefix}.mime_type`]: 'application/json' };
}

function stepAttributes(step: Step): Record<string, Json> {
  const attrs: Record<string, Json> = {};
  // A step imported from another tool keeps the attributes it came with.
  const original = step.metadata.attributes;
  if (isObject(original) && isObject(step.metadata.otel)) assignOwn(attrs, original);

  attrs['openinference.span.kind'] = step.metadata.operation === 'embeddings' ? 'EMBEDDING' : OPENINFERENCE_KIND[step.type];
  const operation = step.metadata.operation === 'embeddings' ? 'embeddings' : GENAI_OPERATION[step.type];
  if (operation) attrs['gen_ai.operation.name'] = operation;
  else delete attrs['gen_ai.operation.name'];
  attrs['traceback.step_id'] = step.step_id;
  attrs['traceback.replay_key'] = step.replay_key;
  attrs['traceback.step_type'] = step.type;

  Object.assign(attrs, ioAttributes('input', step.input), ioAttributes('output', step.output));
  if (step.type === 'llm') {
    const finish = typeof step.metadata.finish_reason === 'string' ? step.metadata.finish_reason : undefined;
    const inMessages = messagesOf(step.input);
    const outMessages = messagesOf(step.output);
    if (inMessages) attrs['gen_ai.input.messages'] = JSON.stringify(messagesToGenAiParts(inMessages));
    else delete attrs['gen_ai.input.messages'];
    if (outMessages && !(isObject(step.output) && 'messages' in step.output)) attrs['gen_ai.output.messages'] = JSON.stringify(messagesToGenAiParts(outMessages, finish));
    else delete attrs['gen_ai.output.messages'];
    if (finish) attrs['gen_ai.response.finish_reasons'] = [finish];
    // Stale flattened messages from an earlier exporter would contradict the ones above.
    for (const k of Object.keys(attrs)) if (/^(llm\.(input|output)_messages|gen_ai\.(prompt|completion))\./.test(k)) delete attrs[k];
  }
  if (step.type === 'tool') {
    attrs['gen_ai.tool.name'] = step.name;
    attrs['tool.name'] = step.name;
    delete attrs['gen_ai.tool.call.arguments'];
    delete attrs['gen_ai.tool.call.result'];
    if (typeof step.metadata.tool_call_id === 'string') attrs['gen_ai.tool.call.id'] = step.metadata.tool_call_id;
  }
  if (step.type === 'agent' && typeof step.metadata.agent_name === 'string') attrs['gen_ai.agent.name'] = step.metadata.agent_name;
  if (step.model) {
    attrs['gen_ai.request.model'] = step.model;
    attrs['gen_ai.response.model'] = step.model;
    attrs[step.metadata.operation === 'embeddings' ? 'embedding.model_name' : 'llm.model_name'] = step.model;
  }
  const u = step.usage;
  if (u) {
    if (u.input_tokens !== undefined) attrs['gen_ai.usage.input_tokens'] = attrs['llm.token_count.prompt'] = u.input_tokens;
    if (u.output_tokens !== undefined) attrs['gen_ai.usage.output_tokens'] = attrs['llm.token_count.completion'] = u.output_tokens;
    if (u.total_tokens !== undefined) attrs['llm.token_count.total'] = u.total_tokens;
    if (u.cost_usd !== undefined) attrs['llm.cost.total'] = u.cost_usd;
  }
  if (step.error) {
    attrs['error.type'] = step.error.type;
    if (step.error.status !== undefined) attrs['http.response.status_code'] = step.error.status;
  }
  const { attributes: _a, otel: _o, ...userMetadata } = step.metadata;
  if (Object.keys(userMetadata).length) attrs.metadata = JSON.stringify(userMetadata);
  return attrs;
}

export function exportOtlp(detail: RunDetail): object {
  const { run, steps } = detail;
  const traceId = hexId(typeof run.extra.otel_trace_id === 'string' ? run.extra.otel_trace_id : run.run_id, 16);
  const spanIds = new Map(steps.map((s) => [s.step_id, hexId(s.metadata.otel && isObject(s.metadata.otel) && typeof s.metadata.otel.span_id === 'string' ? s.metadata.otel.span_id : s.step_id, 8)]));
  const spans = steps.map((step) => {
    const span: Record<string, unknown> = {
      traceId,
      spanId: spanIds.get(step.step_id),
      name: step.name,
      kind: step.type === 'llm' || step.type === 'retrieval' ? 3 : 1,
      startTimeUnixNano: msToNanos(step.started_at),
      endTimeUnixNano: step.ended_at !== null ? msToNanos(step.ended_at) : '0',
      attributes: attributes(stepAttributes(step)),
      status: step.status === 'error' ? { code: 2, message: step.error?.message ?? '' } : step.status === 'ok' ? { code: 1 } : { code: 0 },
    };
    if (step.parent_id !== null && spanIds.has(step.parent_id)) span.parentSpanId = spanIds.get(step.parent_id);
    if (step.error) {
      const exception: Record<string, Json> = { 'exception.type': step.error.type, 'exception.message': step.error.message };
      if (step.error.stack) exception['exception.stacktrace'] = step.error.stack;
      span.events = [{ name: 'exception', timeUnixNano: msToNanos(step.ended_at ?? step.started_at), attributes: attributes(exception) }];
    }
    return span;
  });
  const resource: Record<string, Json> = {
    'service.name': run.pipeline,
    'traceback.run_id': run.run_id,
    'traceback.pipeline': run.pipeline,
    'traceback.source_format': run.source_format,
  };
  if (run.input !== null) resource['traceback.run.input'] = JSON.stringify(run.input);
  if (run.output !== null) resource['traceback.run.output'] = JSON.stringify(run.output);
  return {
    resourceSpans: [
      {
        resource: { attributes: attributes(resource) },
        scopeSpans: [{ scope: { name: 'traceback', version: '1' }, spans }],
      },
    ],
  };
}
