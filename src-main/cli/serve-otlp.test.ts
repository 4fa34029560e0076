/**
 * `tb serve` receives OpenTelemetry traces: the install check's path, with
 * real processes — the server, the sample sender (the real OTel protobuf
 * exporter) and `tb list`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';

const ROOT = path.resolve(__dirname, '../..');
const TB = path.join(ROOT, 'src-main/cli/tb.ts');
const SAMPLE = path.join(ROOT, 'scripts/send-otlp-sample.mjs');

const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
});

interface Ready {
  url: string;
  port: number;
  token: string;
  otlp_endpoint: string | null;
}

/** Starts `tb serve --json-ready` and resolves with its ready line and what it printed on stderr so far. */
function serve(home: string, args: string[], env: Record<string, string> = {}): Promise<{ ready: Ready; stderr: () => string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', TB, 'serve', '--port', '0', '--json-ready', ...args], {
    cwd: ROOT,
    env: { ...process.env, TRACEBACK_HOME: home, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    readline.createInterface({ input: child.stdout! }).once('line', (line) => resolve({ ready: JSON.parse(line) as Ready, stderr: () => stderr }));
    child.once('exit', (code) => reject(new Error(`tb serve exited ${code}: ${stderr}`)));
  });
}

function tbList(home: string): { run_id: string; pipeline: string; status: string; steps: number }[] {
  const r = spawnSync(process.execPath, ['--import', 'tsx', TB, 'list', '--json'], { cwd: ROOT, env: { ...process.env, TRACEBACK_HOME: home }, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

const freshHome = () => fs.mkdtempSync(path.join(os.tmpdir(), 'tb-serve-otlp-'));

describe('tb serve with the OpenTelemetry receiver', () => {
  it('a trace sent by the real OTel protobuf exporter (with the configured token) shows in `tb list`', async () => {
    const home = freshHome();
    const { ready } = await serve(home, ['--otlp-port', '0'], { TRACEBACK_OTLP_TOKEN: 'install-check' });
    expect(ready.otlp_endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const refused = spawnSync(process.execPath, [SAMPLE, '--endpoint', ready.otlp_endpoint!], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, TRACEBACK_OTLP_TOKEN: '' } });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/export .* failed/);
    const sent = spawnSync(process.execPath, [SAMPLE, '--endpoint', ready.otlp_endpoint!, '--token', 'install-check', '--service', 'install-check'], { cwd: ROOT, encoding: 'utf8' });
    expect(sent.status, sent.stderr).toBe(0);
    const { trace_id } = JSON.parse(sent.stdout) as { trace_id: string };
    const runs = tbList(home);
    expect(runs).toEqual([expect.objectContaining({ run_id: trace_id, pipeline: 'install-check', status: 'ok', steps: 3 })]);
  }, 120_000);

  it('when the OTLP port is taken, tb serve says so in one line and still serves the UI', async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    const taken = (blocker.address() as net.AddressInfo).port;
    try {
      const { ready, stderr } = await serve(freshHome(), ['--otlp-port', String(taken)]);
      expect(ready.otlp_endpoint).toBeNull();
      expect(stderr().trim()).toBe(`OpenTelemetry receiver not started: port ${taken} is already in use (another collector?); pass --otlp-port N or --no-otlp. The UI is served.`);
      // The UI's API answers (the built page itself may not exist where unit tests run).
      const info = await fetch(`http://127.0.0.1:${ready.port}/api/call/getInfo`, { method: 'POST', headers: { 'x-traceback-token': ready.token, 'content-type': 'application/json' }, body: '{}' });
      expect(await info.json()).toMatchObject({ ok: true });
    } finally {
      blocker.close();
    }
  }, 120_000);

  it('an empty --otlp-token is refused before anything starts, never read as "no token"', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', TB, 'serve', '--port', '0', '--otlp-port', '0', '--otlp-token', ''], {
      cwd: ROOT,
      env: { ...process.env, TRACEBACK_HOME: freshHome() },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--otlp-token .* is empty/);
  }, 120_000);

  it('--no-otlp serves the UI without a receiver', async () => {
    const { ready } = await serve(freshHome(), ['--no-otlp']);
    expect(ready.otlp_endpoint).toBeNull();
  }, 120_000);
});
