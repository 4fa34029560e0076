import { afterEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createEngine, type Engine } from '../../engine/create-engine';
import { startOtlpFromEnv } from './otlp-from-env';
import type { RunningOtlpReceiver } from './otlp-receiver';

let engine: Engine | undefined;
const receivers: RunningOtlpReceiver[] = [];
afterEach(async () => {
  for (const r of receivers.splice(0)) await r.close();
  await engine?.close();
});

describe('the desktop app\'s OTLP receiver settings (environment)', () => {
  it('TRACEBACK_OTLP_PORT picks the port, "off" turns it off, and a bad or taken port is one warning line', async () => {
    engine = createEngine({ home: fs.mkdtempSync(path.join(os.tmpdir(), 'tb-otlp-env-')) });
    const warnings: string[] = [];
    const warn = (l: string) => warnings.push(l);
    const first = await startOtlpFromEnv(engine, warn, { TRACEBACK_OTLP_PORT: '0', TRACEBACK_OTLP_TOKEN: 't0ken' });
    expect(first).not.toBeNull();
    receivers.push(first!);
    const unauthorised = await fetch(`${first!.endpoint}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(unauthorised.status).toBe(401);
    expect(await startOtlpFromEnv(engine, warn, { TRACEBACK_OTLP_PORT: 'off' })).toBeNull();
    expect(await startOtlpFromEnv(engine, warn, { TRACEBACK_OTLP_PORT: 'http' })).toBeNull();
    expect(await startOtlpFromEnv(engine, warn, { TRACEBACK_OTLP_PORT: String(first!.port) })).toBeNull();
    expect(warnings).toEqual([
      'OpenTelemetry receiver not started: TRACEBACK_OTLP_PORT="http" is not a port number (or "off")',
      `OpenTelemetry receiver not started: port ${first!.port} is already in use (set TRACEBACK_OTLP_PORT to another port, or "off")`,
    ]);
  });
});
