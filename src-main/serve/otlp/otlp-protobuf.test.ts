/**
 * The protobuf schema is checked against the official encoder: the same spans
 * serialized by @opentelemetry/otlp-transformer as protobuf (decoded here) and
 * as JSON read into identical runs, every field the mapping uses included.
 */
import { describe, expect, it } from 'vitest';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { parseOtlp } from '../../engine/ingest/otlp/otlp-import';
import type { ForeignIssue } from '../../engine/ingest/foreign/foreign-run';
import { decodeTraceRequest } from './otlp-protobuf';

async function spansWithEveryField() {
  const recorded = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'every-field', 'deployment.environment': 'test', 'process.pid': 4242 }),
    spanProcessors: [new SimpleSpanProcessor(recorded)],
  });
  const tracer = provider.getTracer('scope-name', '2.0.1');
  const root = tracer.startSpan('agent', { kind: SpanKind.SERVER, attributes: { 'gen_ai.operation.name': 'invoke_agent' } });
  const inRoot = trace.setSpan(ROOT_CONTEXT, root);
  const other = tracer.startSpan('elsewhere');
  other.end();
  const llm = tracer.startSpan(
    'chat',
    {
      kind: SpanKind.CLIENT,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'model-x',
        'gen_ai.usage.input_tokens': 2 ** 40, // beyond 32 bits: int64 on the wire
        'gen_ai.request.temperature': 0.25,
        'gen_ai.request.stream': false,
        'gen_ai.request.stop_sequences': ['\n\n', 'END'],
        'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'héllo ✓' }] }]),
        numbers: [1, 2, 3],
      },
      links: [{ context: other.spanContext(), attributes: { 'link.reason': 'retry of' } }],
    },
    inRoot,
  );
  llm.addEvent('gen_ai.content.prompt', { 'gen_ai.prompt': 'héllo' });
  llm.recordException(new Error('rate limited'));
  llm.setStatus({ code: SpanStatusCode.ERROR, message: 'rate limited' });
  llm.end();
  root.setStatus({ code: SpanStatusCode.OK });
  root.end();
  await provider.forceFlush();
  return recorded.getFinishedSpans();
}

describe('OTLP protobuf decoding', () => {
  it('spans exported as protobuf read into the same runs as the same spans exported as JSON', async () => {
    const spans = await spansWithEveryField();
    const jsonText = new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans)!);
    const fromProto = JSON.stringify(decodeTraceRequest(ProtobufTraceSerializer.serializeRequest(spans)!));
    const jsonIssues: ForeignIssue[] = [];
    const protoIssues: ForeignIssue[] = [];
    const viaJson = parseOtlp(jsonText, jsonIssues);
    const viaProto = parseOtlp(fromProto, protoIssues);
    expect(protoIssues).toEqual(jsonIssues);
    expect(viaProto).toEqual(viaJson);
    // And the runs hold what was recorded (so the comparison is not of two empty results).
    const run = viaProto.find((r) => r.steps.some((s) => s.name === 'chat'))!;
    const chat = run.steps.find((s) => s.name === 'chat')!;
    expect(run.pipeline).toBe('every-field');
    expect(chat.model).toBe('model-x');
    expect(chat.status).toBe('error');
    const attributes = (chat.startMetadata as { attributes: Record<string, unknown> }).attributes;
    expect(attributes).toMatchObject({ 'gen_ai.usage.input_tokens': 2 ** 40, 'gen_ai.request.temperature': 0.25, 'gen_ai.request.stream': false, 'gen_ai.request.stop_sequences': ['\n\n', 'END'], numbers: [1, 2, 3] });
    const otel = (chat.startMetadata as { otel: Record<string, unknown> }).otel;
    expect(otel).toMatchObject({ kind: 'CLIENT', scope: 'scope-name@2.0.1', status_message: 'rate limited', parent_span_id: spans.find((s) => s.name === 'agent')!.spanContext().spanId });
    expect(JSON.stringify(otel.events)).toContain('rate limited');
    expect(otel.links).toEqual([{ trace_id: spans.find((s) => s.name === 'elsewhere')!.spanContext().traceId, span_id: spans.find((s) => s.name === 'elsewhere')!.spanContext().spanId, attributes: { 'link.reason': 'retry of' } }]);
  });

  it('bytes that are not an ExportTraceServiceRequest are an error, not an empty export', () => {
    expect(() => decodeTraceRequest(new Uint8Array([0x0a, 0x05, 0x01]))).toThrow();
  });
});
