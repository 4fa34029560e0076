/**
 * The OTLP/HTTP receiver, fed by the real OpenTelemetry JS exporters (JSON
 * and protobuf) through a real SDK tracer provider, and by hand-made
 * requests for what an exporter never sends (bad payloads, browsers).
 */
import { afterEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { ROOT_CONTEXT, SpanStatusCode, trace } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, SimpleSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import protobuf from 'protobufjs';
import { createEngine, type Engine } from '../../engine/create-engine';
import { startOtlpReceiver, type RunningOtlpReceiver } from './otlp-receiver';

let engine: Engine | undefined;
let receiver: RunningOtlpReceiver | undefined;
let home: string;

async function setup(opts: { token?: string; maxBodyBytes?: number } = {}) {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-otlp-'));
  engine = createEngine({ home });
  receiver = await startOtlpReceiver(engine, { port: 0, ...opts });
  return { engine, receiver };
}

afterEach(async () => {
  await receiver?.close();
  await engine?.close();
  receiver = undefined;
  engine = undefined;
});

type ExporterConfig = NonNullable<ConstructorParameters<typeof JsonExporter>[0]>;

/** A small GenAI agent run, recorded by the OTel SDK and exported span by span (each span is its own request). */
async function recordAgentRun(exporter: SpanExporter): Promise<{ traceId: string }> {
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'support-agent' }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('agent', '1.0.0');
  const root = tracer.startSpan('answer question', { attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'support' } });
  const inRoot = trace.setSpan(ROOT_CONTEXT, root);
  const llm = tracer.startSpan(
    'chat gpt-4o-mini',
    {
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gpt-4o-mini',
        'gen_ai.usage.input_tokens': 42,
        'gen_ai.usage.output_tokens': 7,
        'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'Where is my order 1234?' }] }]),
        'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'It ships tomorrow.' }] }]),
      },
    },
    inRoot,
  );
  llm.end();
  const tool = tracer.startSpan('execute_tool lookup_order', { attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup_order' } }, inRoot);
  tool.setStatus({ code: SpanStatusCode.ERROR, message: 'order service timed out' });
  tool.end();
  root.end();
  await provider.forceFlush();
  await provider.shutdown();
  return { traceId: root.spanContext().traceId };
}

async function expectAgentRunStored(traceId: string) {
  const runs = await engine!.call('listRuns', {});
  if (!runs.ok) throw new Error(runs.error.message);
  expect(runs.value.map((r) => r.run_id)).toEqual([traceId]);
  expect(runs.value[0].pipeline).toBe('support-agent');
  const detail = await engine!.call('getRun', { runId: traceId });
  if (!detail.ok) throw new Error(detail.error.message);
  const steps = detail.value.steps;
  expect(steps.map((s) => s.name).sort()).toEqual(['answer question', 'chat gpt-4o-mini', 'execute_tool lookup_order']);
  const root = steps.find((s) => s.name === 'answer question')!;
  const llm = steps.find((s) => s.name === 'chat gpt-4o-mini')!;
  const tool = steps.find((s) => s.name === 'execute_tool lookup_order')!;
  expect(root.type).toBe('agent');
  expect(llm.type).toBe('llm');
  expect(llm.parent_id).toBe(root.step_id);
  expect(llm.model).toBe('gpt-4o-mini');
  expect(llm.usage).toMatchObject({ input_tokens: 42, output_tokens: 7 });
  expect(JSON.stringify(llm.input)).toContain('Where is my order 1234?');
  expect(JSON.stringify(llm.output)).toContain('It ships tomorrow.');
  expect(tool.type).toBe('tool');
  expect(tool.status).toBe('error');
  expect(JSON.stringify(tool.error)).toContain('order service timed out');
  // The run assembled from three requests is complete once its root arrived.
  expect(detail.value.run.status).toBe('ok');
}

function post(body: Buffer | string, headers: Record<string, string>, pathname = '/v1/traces', method = 'POST') {
  return fetch(`${receiver!.endpoint}${pathname}`, { method, headers, body: method === 'POST' ? (typeof body === 'string' ? body : new Uint8Array(body)) : undefined });
}

const statusRoot = protobuf.parse(`syntax = "proto3"; message Status { int32 code = 1; string message = 2; }
  message ExportTracePartialSuccess { int64 rejected_spans = 1; string error_message = 2; }
  message ExportTraceServiceResponse { ExportTracePartialSuccess partial_success = 1; }`).root;

describe('OTLP/HTTP receiver', () => {
  it('an OTel SDK exporting OTLP/JSON (gzip) lands its GenAI trace as one run with its steps and attributes', async () => {
    await setup();
    const events: string[] = [];
    engine!.events.subscribe((event) => events.push(event));
    const exporter = new JsonExporter({ url: `${receiver!.endpoint}/v1/traces`, compression: 'gzip' as ExporterConfig['compression'] });
    const { traceId } = await recordAgentRun(exporter);
    await expectAgentRunStored(traceId);
    // The UI refreshes on data-changed, as for the inbox watcher.
    expect(events).toContain('data-changed');
  });

  it('an OTel SDK exporting OTLP/protobuf lands the same run', async () => {
    await setup();
    const { traceId } = await recordAgentRun(new ProtoExporter({ url: `${receiver!.endpoint}/v1/traces` }));
    await expectAgentRunStored(traceId);
  });

  it('spans of one trace sent in several requests extend one run (one inbox file), never a duplicate', async () => {
    await setup();
    const { traceId } = await recordAgentRun(new ProtoExporter({ url: `${receiver!.endpoint}/v1/traces` }));
    const files = fs.readdirSync(path.join(home, 'inbox', 'otlp'));
    expect(files).toEqual([`${traceId}.otlp.jsonl`]);
    // Three spans, three requests (SimpleSpanProcessor exports each span as it ends): three lines.
    expect(fs.readFileSync(path.join(home, 'inbox', 'otlp', files[0]), 'utf8').trim().split('\n')).toHaveLength(3);
    const runs = await engine!.call('listRuns', {});
    expect(runs.ok && runs.value.map((r) => r.run_id)).toEqual([traceId]);
  });

  it('a span that ends after its trace was imported (work outliving its parent) joins the same run', async () => {
    await setup();
    const request = validRequest('ab');
    expect((await post(JSON.stringify(request), { 'content-type': 'application/json' })).status).toBe(200);
    const late = validRequest('ab');
    Object.assign(late.resourceSpans[0].scopeSpans[0].spans[0], { spanId: '22'.repeat(8), parentSpanId: '11'.repeat(8), name: 'late child' });
    expect((await post(JSON.stringify(late), { 'content-type': 'application/json' })).status).toBe(200);
    const detail = await engine!.call('getRun', { runId: 'ab'.repeat(16) });
    expect(detail.ok && detail.value.steps.map((s) => [s.name, s.parent_id])).toEqual([
      ['root', null],
      ['late child', '11'.repeat(8)],
    ]);
  });

  it('an export retried after a lost answer is stored once: no span is written twice', async () => {
    await setup();
    const request = JSON.stringify(validRequest('cd'));
    expect((await post(request, { 'content-type': 'application/json' })).status).toBe(200);
    expect((await post(request, { 'content-type': 'application/json' })).status).toBe(200);
    const file = path.join(home, 'inbox', 'otlp', `${'cd'.repeat(16)}.otlp.jsonl`);
    expect(fs.readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(1);
    const detail = await engine!.call('getRun', { runId: 'cd'.repeat(16) });
    expect(detail.ok && detail.value.steps.map((s) => s.name)).toEqual(['root']);
  });

  it('a collector batch of more than 1000 short traces is stored whole, not refused', async () => {
    await setup();
    const many = validRequest('ee');
    const template = many.resourceSpans[0].scopeSpans[0].spans[0];
    many.resourceSpans[0].scopeSpans[0].spans = Array.from({ length: 1001 }, (_, i) => ({ ...template, traceId: (i + 1).toString(16).padStart(32, '0') }));
    const res = await post(JSON.stringify(many), { 'content-type': 'application/json' });
    expect(res.status).toBe(200);
    const runs = await engine!.call('listRuns', { limit: 2000 });
    expect(runs.ok && runs.value.length).toBe(1001);
  }, 120_000);

  it('a trace shows live before its root ends: a parent not received yet is a running step, replaced by the real span when it arrives', async () => {
    await setup();
    const child = validRequest('ac');
    Object.assign(child.resourceSpans[0].scopeSpans[0].spans[0], { spanId: '22'.repeat(8), parentSpanId: '11'.repeat(8), name: 'first call' });
    expect((await post(JSON.stringify(child), { 'content-type': 'application/json' })).status).toBe(200);
    const live = await engine!.call('getRun', { runId: 'ac'.repeat(16) });
    if (!live.ok) throw new Error(live.error.message);
    expect(live.value.steps.map((s) => [s.step_id, s.name, s.status, s.parent_id])).toEqual([
      ['11'.repeat(8), `(span ${'11'.repeat(8)}: not received yet)`, 'running', null],
      ['22'.repeat(8), 'first call', 'ok', '11'.repeat(8)],
    ]);
    expect(live.value.run.status).not.toBe('ok');

    const root = validRequest('ac');
    Object.assign(root.resourceSpans[0].scopeSpans[0].spans[0], { name: 'agent', startTimeUnixNano: '1699999999000000000', endTimeUnixNano: '1700000002000000000' });
    expect((await post(JSON.stringify(root), { 'content-type': 'application/json' })).status).toBe(200);
    const done = await engine!.call('getRun', { runId: 'ac'.repeat(16) });
    if (!done.ok) throw new Error(done.error.message);
    expect(done.value.steps.map((s) => [s.step_id, s.name, s.status, s.parent_id])).toEqual([
      ['11'.repeat(8), 'agent', 'ok', null],
      ['22'.repeat(8), 'first call', 'ok', '11'.repeat(8)],
    ]);
    expect(done.value.run.status).toBe('ok');
    // The inbox file is what a rebuild reads: only the received spans, no placeholder left.
    const file = fs.readFileSync(path.join(home, 'inbox', 'otlp', `${'ac'.repeat(16)}.otlp.jsonl`), 'utf8');
    expect(file).not.toContain('not received yet');
    expect(file.trim().split('\n')).toHaveLength(2);
    const problems = await engine!.call('listImportErrors', {});
    expect(problems.ok && problems.value).toEqual([]);
  });

  it('a request carrying a browser Origin is refused and plants nothing; no CORS preflight is answered', async () => {
    await setup();
    const body = JSON.stringify(validRequest());
    const refused = await post(body, { 'content-type': 'application/json', origin: 'https://evil.example' });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { message: string }).message).toMatch(/web page/);
    const preflight = await post('', { origin: 'https://evil.example', 'access-control-request-method': 'POST' }, '/v1/traces', 'OPTIONS');
    expect(preflight.status).toBe(403);
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    expect(preflight.headers.get('access-control-allow-methods')).toBeNull();
    const runs = await engine!.call('listRuns', {});
    expect(runs.ok && runs.value).toEqual([]);
  });

  it('with a token configured, an export without it is refused and one with it (Bearer or x-traceback-token) is stored', async () => {
    await setup({ token: 's3cret-token' });
    const noToken = await post(JSON.stringify(validRequest()), { 'content-type': 'application/json' });
    expect(noToken.status).toBe(401);
    const wrong = await post(JSON.stringify(validRequest()), { 'content-type': 'application/json', authorization: 'Bearer nope' });
    expect(wrong.status).toBe(401);
    const own = await post(JSON.stringify(validRequest('aa')), { 'content-type': 'application/json', 'x-traceback-token': 's3cret-token' });
    expect(own.status).toBe(200);
    // What OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%20<token> makes the exporter send.
    const { traceId } = await recordAgentRun(new ProtoExporter({ url: `${receiver!.endpoint}/v1/traces`, headers: { Authorization: 'Bearer s3cret-token' } }));
    const runs = await engine!.call('listRuns', {});
    expect(runs.ok && runs.value.map((r) => r.run_id).sort()).toEqual(['aa'.repeat(16), traceId].sort());
  });

  it('a payload that is not an export gets 400 with a google.rpc.Status in the request encoding', async () => {
    await setup();
    const json = await post('{"resourceSpans": 5}', { 'content-type': 'application/json' });
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ code: 3, message: expect.stringMatching(/resourceSpans/) });
    const notJson = await post('{"resourceSpans": [', { 'content-type': 'application/json' });
    expect(notJson.status).toBe(400);
    const proto = await post(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f, 0x01]), { 'content-type': 'application/x-protobuf' });
    expect(proto.status).toBe(400);
    expect(proto.headers.get('content-type')).toBe('application/x-protobuf');
    const status = statusRoot.lookupType('Status').toObject(statusRoot.lookupType('Status').decode(new Uint8Array(await proto.arrayBuffer())));
    expect(status).toMatchObject({ code: 3, message: expect.stringMatching(/protobuf/) });
    const runs = await engine!.call('listRuns', {});
    expect(runs.ok && runs.value).toEqual([]);
  });

  it('spans without ids are rejected by name in partialSuccess while the rest of the export is stored', async () => {
    await setup();
    const request = validRequest('bb');
    const spans = (request.resourceSpans[0].scopeSpans[0].spans as Record<string, unknown>[]);
    spans.push({ ...spans[0], name: 'span with no id', spanId: '' });
    const res = await post(JSON.stringify(request), { 'content-type': 'application/json' });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { partialSuccess: { rejectedSpans: number; errorMessage: string } };
    expect(body.partialSuccess.rejectedSpans).toBe(1);
    expect(body.partialSuccess.errorMessage).toMatch(/span with no id.*spanId/);
    const detail = await engine!.call('getRun', { runId: 'bb'.repeat(16) });
    expect(detail.ok && detail.value.steps.map((s) => s.name)).toEqual(['root']);
  });

  it('a protobuf export with a rejected span gets partialSuccess in protobuf', async () => {
    await setup();
    // An export whose only span has no span id: encoded with the same schema the test reads responses with.
    const res = await post(gzipped(encodeSpanlessIdRequest()), { 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' });
    expect(res.status).toBe(200);
    const Response = statusRoot.lookupType('ExportTraceServiceResponse');
    const decoded = Response.toObject(Response.decode(new Uint8Array(await res.arrayBuffer())), { longs: Number }) as { partialSuccess: { rejectedSpans: number; errorMessage: string } };
    expect(decoded.partialSuccess.rejectedSpans).toBe(1);
    expect(decoded.partialSuccess.errorMessage).toMatch(/spanId/);
  });

  it('an oversized body gets a clear 413, also when gzip would expand past the limit', async () => {
    await setup({ maxBodyBytes: 4096 });
    const big = JSON.stringify(validRequest('cc', 'x'.repeat(10_000)));
    const res = await post(big, { 'content-type': 'application/json' });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { message: string }).message).toMatch(/over 4096 bytes/);
    const bomb = await post(gzipped(Buffer.from(big)), { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    expect(bomb.status).toBe(413);
    const runs = await engine!.call('listRuns', {});
    expect(runs.ok && runs.value).toEqual([]);
  });

  it('answers only POST to /v1/traces with a JSON or protobuf content type', async () => {
    await setup();
    expect((await post('', {}, '/v1/traces', 'GET')).status).toBe(405);
    expect((await post('{}', { 'content-type': 'application/json' }, '/v1/metrics')).status).toBe(404);
    expect((await post('{}', { 'content-type': 'text/plain' })).status).toBe(415);
    expect((await post('{}', { 'content-type': 'application/json', 'content-encoding': 'br' })).status).toBe(415);
    const empty = await post('{}', { 'content-type': 'application/json' });
    expect(empty.status).toBe(200);
    expect(await empty.json()).toEqual({});
  });

  it('a second receiver on a port in use fails with EADDRINUSE (tb serve reports it and keeps serving the UI)', async () => {
    await setup();
    await expect(startOtlpReceiver(engine!, { port: receiver!.port })).rejects.toMatchObject({ code: 'EADDRINUSE' });
  });
});

function gzipped(body: Buffer | Uint8Array): Buffer {
  return zlib.gzipSync(body);
}

/** An OTLP/JSON export of one span named "root" in trace `idByte` × 16. */
function validRequest(idByte = 'dd', text = 'hello') {
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'hand-made' } }] },
        scopeSpans: [
          {
            scope: { name: 'test' },
            spans: [
              {
                traceId: idByte.repeat(16),
                spanId: '11'.repeat(8),
                name: 'root',
                kind: 1,
                startTimeUnixNano: '1700000000000000000',
                endTimeUnixNano: '1700000001000000000',
                attributes: [{ key: 'input.value', value: { stringValue: text } }],
                status: {},
              },
            ] as Record<string, unknown>[],
          },
        ],
      },
    ],
  };
}

function encodeSpanlessIdRequest(): Uint8Array {
  const root = protobuf.parse(`syntax = "proto3";
    message Span { bytes trace_id = 1; bytes span_id = 2; string name = 5; fixed64 start_time_unix_nano = 7; }
    message ScopeSpans { repeated Span spans = 2; }
    message ResourceSpans { repeated ScopeSpans scope_spans = 2; }
    message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }`).root;
  const Request = root.lookupType('ExportTraceServiceRequest');
  const message = Request.fromObject({
    resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: Buffer.from('ee'.repeat(16), 'hex'), name: 'no id', startTimeUnixNano: 1700000000000000000 }] }] }],
  });
  return Request.encode(message).finish();
}
