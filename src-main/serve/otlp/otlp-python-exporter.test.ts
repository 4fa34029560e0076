/**
 * The Python OpenTelemetry exporter (opentelemetry-exporter-otlp-proto-http)
 * sending to the receiver. Our machines cannot install it (Debian packages no
 * Python OpenTelemetry, and PyPI is not reachable), so there the test is
 * skipped and says why; where `python3 -c "import opentelemetry.exporter.otlp.proto.http"`
 * works, it runs.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createEngine, type Engine } from '../../engine/create-engine';
import { startOtlpReceiver, type RunningOtlpReceiver } from './otlp-receiver';

const probe = spawnSync('python3', ['-c', 'import opentelemetry.sdk.trace, opentelemetry.exporter.otlp.proto.http.trace_exporter'], { encoding: 'utf8' });
const reason =
  probe.status === 0 ? '' : 'skipped: the Python OpenTelemetry SDK and OTLP/HTTP exporter are not installed (pip install opentelemetry-sdk opentelemetry-exporter-otlp-proto-http)';
if (reason) console.info(`Python OTLP exporter test ${reason}`);

const PIPELINE = `
import sys
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

provider = TracerProvider(resource=Resource.create({"service.name": "py-agent"}))
provider.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter(endpoint=sys.argv[1] + "/v1/traces")))
tracer = provider.get_tracer("py-agent")
with tracer.start_as_current_span("answer", attributes={"gen_ai.operation.name": "invoke_agent"}) as root:
    with tracer.start_as_current_span("chat small-model", attributes={"gen_ai.operation.name": "chat", "gen_ai.request.model": "small-model"}):
        pass
    print(format(root.get_span_context().trace_id, "032x"))
provider.shutdown()
`;

let engine: Engine | undefined;
let receiver: RunningOtlpReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  await engine?.close();
});

describe('OTLP receiver and the Python exporter', () => {
  it.skipIf(reason !== '')(`a Python program instrumented with OpenTelemetry lands its trace as a run${reason ? ` (${reason})` : ''}`, async () => {
    engine = createEngine({ home: fs.mkdtempSync(path.join(os.tmpdir(), 'tb-otlp-py-')) });
    receiver = await startOtlpReceiver(engine, { port: 0 });
    // Asynchronous: the receiver answers in this process's event loop while Python waits for it.
    const child = spawn('python3', ['-c', PIPELINE, receiver.endpoint], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code, err).toBe(0);
    const traceId = out.trim();
    const detail = await engine.call('getRun', { runId: traceId });
    if (!detail.ok) throw new Error(detail.error.message);
    expect(detail.value.run.pipeline).toBe('py-agent');
    expect(detail.value.steps.map((s) => [s.name, s.type])).toEqual([
      ['answer', 'agent'],
      ['chat small-model', 'llm'],
    ]);
  });
});
