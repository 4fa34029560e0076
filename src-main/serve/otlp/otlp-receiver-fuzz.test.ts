/**
 * Damaged exports never hurt the receiver: a real protobuf export (made by the
 * official OTel serializer) and its JSON twin, cut, bit-flipped and spliced
 * from a seed, each get a 200 or a 400 — never a 500 or a dropped connection —
 * and a good export is still stored afterwards.
 */
import { afterEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { createEngine, type Engine } from '../../engine/create-engine';
import { startOtlpReceiver, type RunningOtlpReceiver } from './otlp-receiver';

let engine: Engine | undefined;
let receiver: RunningOtlpReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  await engine?.close();
});

/** mulberry32: a small seeded generator, so a failure can be replayed. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function realExport(): Promise<{ proto: Uint8Array; json: Uint8Array; traceId: string }> {
  const recorded = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ resource: resourceFromAttributes({ 'service.name': 'fuzz' }), spanProcessors: [new SimpleSpanProcessor(recorded)] });
  const tracer = provider.getTracer('fuzz');
  const root = tracer.startSpan('agent', { attributes: { 'gen_ai.operation.name': 'invoke_agent', list: ['a', 'b'], n: 3, f: 1.5, ok: true } });
  const child = tracer.startSpan('chat', { attributes: { 'gen_ai.request.model': 'm', 'gen_ai.input.messages': '[{"role":"user","content":"hi"}]' } }, trace.setSpan(ROOT_CONTEXT, root));
  child.addEvent('exception', { 'exception.message': 'boom' });
  child.end();
  root.end();
  await provider.forceFlush();
  const spans = recorded.getFinishedSpans();
  return { proto: ProtobufTraceSerializer.serializeRequest(spans)!, json: JsonTraceSerializer.serializeRequest(spans)!, traceId: root.spanContext().traceId };
}

function mutate(base: Uint8Array, next: () => number): Uint8Array {
  const bytes = Buffer.from(base);
  switch (Math.floor(next() * 4)) {
    case 0:
      return bytes.subarray(0, Math.floor(next() * bytes.length)); // cut short
    case 1: {
      for (let i = 0, n = 1 + Math.floor(next() * 8); i < n; i++) bytes[Math.floor(next() * bytes.length)] ^= 1 << Math.floor(next() * 8);
      return bytes;
    }
    case 2: {
      const at = Math.floor(next() * bytes.length);
      return Buffer.concat([bytes.subarray(0, at), bytes.subarray(Math.floor(next() * bytes.length))]); // spliced
    }
    default:
      return Buffer.from(Array.from({ length: Math.floor(next() * 200) }, () => Math.floor(next() * 256)));
  }
}

describe('OTLP receiver under damaged exports', () => {
  it('answers 200 or 400 to 300 damaged protobuf and JSON exports and still stores a good one', async () => {
    engine = createEngine({ home: fs.mkdtempSync(path.join(os.tmpdir(), 'tb-otlp-fuzz-')) });
    receiver = await startOtlpReceiver(engine, { port: 0 });
    const { proto, json } = await realExport();
    const next = random(Number(process.env.TB_FUZZ_SEED ?? 11));
    const statuses = new Map<number, number>();
    for (let i = 0; i < 300; i++) {
      const asJson = i % 2 === 1;
      const body = mutate(asJson ? json : proto, next);
      const res = await fetch(`${receiver.endpoint}/v1/traces`, { method: 'POST', headers: { 'content-type': asJson ? 'application/json' : 'application/x-protobuf' }, body: new Uint8Array(body) });
      await res.arrayBuffer();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    }
    expect([...statuses.keys()].filter((s) => s !== 200 && s !== 400)).toEqual([]);
    expect(statuses.get(400)).toBeGreaterThan(50); // the damage is seen, not stored as if whole
    // A fresh trace (damaged copies of the first one may name parents that never come, so it waits).
    const fresh = await realExport();
    const good = await fetch(`${receiver.endpoint}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/x-protobuf' }, body: new Uint8Array(fresh.proto) });
    expect(good.status).toBe(200);
    const detail = await engine.call('getRun', { runId: fresh.traceId });
    expect(detail.ok && [detail.value.run.pipeline, detail.value.steps.length]).toEqual(['fuzz', 2]);
  }, 120_000);
});
