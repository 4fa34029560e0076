import { afterEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { createEngine, type Engine } from '../engine/create-engine';
import { startServer, type RunningServer } from './http-server';
import { syntheticRunRecords, toJsonl } from '../../test/support/synthetic-trace';

let engine: Engine;
let server: RunningServer;

async function setup(watch = false) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-serve-'));
  const rendererDir = path.join(home, 'renderer');
  fs.mkdirSync(rendererDir);
  fs.writeFileSync(path.join(rendererDir, 'index.html'), '<!doctype html><title>Traceback</title>');
  engine = createEngine({ home, watch });
  server = await startServer(engine, { port: 0, rendererDir });
  return home;
}

afterEach(async () => {
  await server?.close();
  await engine?.close();
});

function request(opts: { path: string; method?: string; headers?: Record<string, string>; body?: string }): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: server.port, path: opts.path, method: opts.method ?? 'GET', headers: opts.headers }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, body, headers: res.headers }));
    });
    req.on('error', reject);
    if (opts.body) req.write(opts.body);
    req.end();
  });
}

const call = (name: string, args: unknown, headers: Record<string, string> = {}) =>
  request({ path: `/api/call/${name}`, method: 'POST', headers: { 'x-traceback-token': server.token, 'content-type': 'application/json', ...headers }, body: JSON.stringify(args) });

describe('tb serve', () => {
  it('serves the UI with a strict content security policy, on loopback only', async () => {
    await setup();
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{20,}$/);
    const page = await request({ path: '/' });
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toMatch(/script-src 'self'/);
    expect((await request({ path: '/../../etc/passwd' })).status).toBe(404);
  });

  it('answers API calls only with the per-launch token', async () => {
    await setup();
    expect((await call('listRuns', {}, { 'x-traceback-token': 'wrong' })).status).toBe(401);
    const ok = await call('listRuns', {});
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toEqual({ ok: true, value: [] });
  });

  it('refuses a foreign Host header (DNS rebinding) and a cross-site Origin', async () => {
    await setup();
    expect((await call('listRuns', {}, { host: 'evil.example:80' })).status).toBe(403);
    expect((await call('listRuns', {}, { origin: 'http://evil.example' })).status).toBe(403);
  });

  it('validates every request: bad arguments come back as a bad_request result naming the field', async () => {
    await setup();
    const r = JSON.parse((await call('getRun', { runId: 42 })).body);
    expect(r).toMatchObject({ ok: false, error: { code: 'bad_request', message: expect.stringMatching(/runId/) } });
    const extra = JSON.parse((await call('listRuns', { filter: 'failed', sql: 'DROP TABLE runs' })).body);
    expect(extra.ok).toBe(false);
    expect((await call('dropEverything', {})).status).toBe(404);
    const notJson = await request({ path: '/api/call/listRuns', method: 'POST', headers: { 'x-traceback-token': server.token }, body: '{nope' });
    expect(notJson.status).toBe(400);
  });

  it('says how long the engine and the serialization took, and a changed run is never answered with its old skeleton text', async () => {
    const home = await setup();
    const file = path.join(home, 'r.jsonl');
    fs.writeFileSync(file, toJsonl(syntheticRunRecords({ runId: 'r', steps: 20 })));
    expect((await engine.call('importPaths', { paths: [file] })).ok).toBe(true);
    const first = await call('getRunSkeleton', { runId: 'r' });
    expect(first.headers['server-timing']).toMatch(/^engine;dur=[\d.]+, json;dur=[\d.]+$/);
    expect((await call('getRunSkeleton', { runId: 'r' })).body).toBe(first.body);
    fs.appendFileSync(file, toJsonl([{ type: 'score', run_id: 'r', step_id: 's3', name: 'quality', value: 0.5, ts: 1_700_000_000_999 }]));
    expect((await engine.call('importPaths', { paths: [file] })).ok).toBe(true);
    const scored = JSON.parse((await call('getRunSkeleton', { runId: 'r' })).body);
    expect(scored.value.steps.user_scores[3]).toEqual([{ name: 'quality', value: 0.5, source: 'user' }]);
  });

  it('an unknown run is a not_found result, not a crash', async () => {
    await setup();
    expect(JSON.parse((await call('getRun', { runId: 'nope' })).body)).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });

  it('pushes data-changed over server-sent events when a run lands in the inbox', async () => {
    const home = await setup(true);
    await engine.watcher!.ready;
    const events: string[] = [];
    const got = new Promise<void>((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port: server.port, path: `/api/events?token=${server.token}` }, (res) => {
        res.on('data', (d: Buffer) => {
          events.push(d.toString());
          if (events.join('').includes('event: data-changed')) {
            req.destroy();
            resolve();
          }
        });
      });
      req.on('error', (e) => (e.message.includes('aborted') ? undefined : reject(e)));
      req.on('response', () => fs.writeFileSync(path.join(home, 'inbox', 'live.jsonl'), toJsonl(syntheticRunRecords({ runId: 'pushed', steps: 2 }))));
    });
    await got;
    expect(events.join('')).toMatch(/"runIds":\["pushed"\]/);
    const list = JSON.parse((await call('listRuns', {})).body);
    expect(list.value.map((r: { run_id: string }) => r.run_id)).toEqual(['pushed']);
  });
});
