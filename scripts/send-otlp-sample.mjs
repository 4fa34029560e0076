#!/usr/bin/env node
/**
 * Sends one small GenAI agent trace (an agent span, a chat call, a tool call)
 * to a Traceback OTLP receiver with the real OpenTelemetry protobuf exporter,
 * as an instrumented application would. For install checks and CI:
 *
 *   node scripts/send-otlp-sample.mjs [--port 4318 | --endpoint http://127.0.0.1:4318] [--token T] [--service NAME]
 *
 * Prints one JSON line {"trace_id", "spans", "endpoint"} and exits 0 when the
 * receiver accepted the export; prints one line on stderr and exits 1 when not.
 * The token defaults to TRACEBACK_OTLP_TOKEN.
 */
import { ROOT_CONTEXT, SpanStatusCode, trace } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';

function option(name) {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? undefined : process.argv[i + 1];
}

const port = option('port') ?? '4318';
const endpoint = option('endpoint') ?? `http://127.0.0.1:${port}`;
const token = option('token') ?? process.env.TRACEBACK_OTLP_TOKEN;
const service = option('service') ?? 'otlp-sample';

const recorded = new InMemorySpanExporter();
const provider = new BasicTracerProvider({
  resource: resourceFromAttributes({ 'service.name': service }),
  spanProcessors: [new SimpleSpanProcessor(recorded)],
});
const tracer = provider.getTracer('traceback-otlp-sample', '1.0.0');
const root = tracer.startSpan('answer question', { attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'sample-agent' } });
const inRoot = trace.setSpan(ROOT_CONTEXT, root);
const llm = tracer.startSpan(
  'chat sample-model',
  {
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'sample-model',
      'gen_ai.usage.input_tokens': 12,
      'gen_ai.usage.output_tokens': 5,
      'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'What is the capital of France?' }] }]),
      'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'Paris.' }] }]),
    },
  },
  inRoot,
);
llm.end();
const tool = tracer.startSpan('execute_tool lookup_city', { attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup_city' } }, inRoot);
tool.setStatus({ code: SpanStatusCode.OK });
tool.end();
root.end();
await provider.forceFlush();
const spans = recorded.getFinishedSpans();

const exporter = new OTLPTraceExporter({ url: `${endpoint.replace(/\/+$/, '')}/v1/traces`, headers: token ? { Authorization: `Bearer ${token}` } : {} });
const result = await new Promise((resolve) => exporter.export(spans, resolve));
await exporter.shutdown();
await provider.shutdown();
if (result.code !== 0) {
  process.stderr.write(`send-otlp-sample: the export to ${endpoint}/v1/traces failed: ${result.error?.message ?? 'unknown error'}\n`);
  process.exit(1);
}
process.stdout.write(JSON.stringify({ trace_id: root.spanContext().traceId, spans: spans.length, endpoint }) + '\n');
