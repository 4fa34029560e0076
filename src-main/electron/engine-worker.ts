/**
 * The engine inside Electron: a worker thread, so SQLite work and imports
 * never block the main process (and with it every window's input handling).
 * Messages: {id, name, args} in → {id, result} out; pushed events → {event, payload}.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createEngine } from '../engine/create-engine';
import { isCallName } from '../../src-shared/api';
import { startOtlpFromEnv } from '../serve/otlp/otlp-from-env';

interface WorkerInit {
  home?: string;
  nativeBinding?: string;
}

const init = workerData as WorkerInit;
const engine = createEngine({ home: init.home, watch: true, nativeBinding: init.nativeBinding });
const port = parentPort!;

engine.events.subscribe((event, payload) => port.postMessage({ event, payload }));
// OpenTelemetry exporters on this machine send traces here (127.0.0.1:4318), into this same engine.
void startOtlpFromEnv(engine, (line) => console.warn(line));

port.on('message', async (msg: { id: number; name: unknown; args: unknown }) => {
  if (!isCallName(msg.name)) {
    port.postMessage({ id: msg.id, result: { ok: false, error: { code: 'not_found', message: 'unknown call' } } });
    return;
  }
  port.postMessage({ id: msg.id, result: await engine.call(msg.name, msg.args) });
});
