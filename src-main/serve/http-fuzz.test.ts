/**
 * `tb serve` under hostile requests: the cases that killed it (issue 12) and
 * a seeded fuzz run of random and malformed requests, with and without the
 * token. The server must answer every one and still serve afterwards.
 * TB_FUZZ_REQUESTS raises the count locally (CI: 2,000, a few seconds).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createEngine, type Engine } from '../engine/create-engine';
import { jsonDepth, startServer, type RunningServer } from './http-server';
import { mulberry32 as seededRandom } from '../demo/seeded-random';

let engine: Engine;
let server: RunningServer;

beforeAll(async () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-fuzz-serve-'));
  const rendererDir = path.join(home, 'renderer');
  fs.mkdirSync(rendererDir);
  fs.writeFileSync(path.join(rendererDir, 'index.html'), '<!doctype html><title>Traceback</title>');
  engine = createEngine({ home });
  server = await startServer(engine, { port: 0, rendererDir });
});
afterAll(async () => {
  await server.close();
  await engine.close();
});

/** Sends raw bytes and resolves with the status line (or '' when the server closed without one). */
function raw(bytes: string | Buffer, timeoutMs = 5000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(server.port, '127.0.0.1');
    let got = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms to ${JSON.stringify(String(bytes).slice(0, 120))}`));
    }, timeoutMs);
    socket.on('data', (d) => {
      got += d.toString('latin1');
      if (got.includes('\r\n')) socket.end();
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(got.split('\r\n')[0]);
    });
    socket.write(bytes);
  });
}

const host = () => `127.0.0.1:${server.port}`;
const get = (target: string, method = 'GET') => raw(`${method} ${target} HTTP/1.1\r\nHost: ${host()}\r\nConnection: close\r\n\r\n`);
const post = (target: string, body: string, token = server.token) =>
  raw(`POST ${target} HTTP/1.1\r\nHost: ${host()}\r\nx-traceback-token: ${token}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);

async function stillServes(): Promise<void> {
  expect(await get('/')).toMatch(/ 200 /);
  expect(await post('/api/call/listRuns', '{}')).toMatch(/ 200 /);
}

describe('tb serve survives any request', () => {
  it('the requests that killed it are answered 400 or 404, and it keeps serving', async () => {
    expect(await get('/%ff')).toMatch(/ 400 /);
    expect(await get('/%E0%A4%A')).toMatch(/ 400 /);
    expect(await get('/%00')).toMatch(/ 404 /);
    expect(await get('/index.html%00.png')).toMatch(/ 404 /);
    expect(await get('/%00', 'HEAD')).toMatch(/ 404 /);
    expect(await get('http://[')).toMatch(/ 400 /);
    expect(await post('/api/call/%E0%A4%A', '{}')).toMatch(/ 400 /);
    await stillServes();
  });

  it('an edit nested 100,000 deep is refused before validation, by size or by depth', async () => {
    const deep = `{"runId":"x","at":"s","n":1,"edit":{"kind":"output","output":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`;
    expect(await post('/api/call/estimateExperiment', deep)).toMatch(/ 400 /);
    const deepSmall = `{"runId":"x","at":"s","n":1,"edit":{"kind":"output","output":${'['.repeat(600)}${']'.repeat(600)}}}`;
    expect(await post('/api/call/estimateExperiment', deepSmall)).toMatch(/ 400 /);
    expect(jsonDepth('{"a":"[[[[{{"}')).toBe(1);
    await stillServes();
  });

  it(`answers ${Number(process.env.TB_FUZZ_REQUESTS ?? 2000)} seeded random and malformed requests, with and without the token, and still serves`, async () => {
    const total = Number(process.env.TB_FUZZ_REQUESTS ?? 2000);
    const rand = seededRandom(Number(process.env.TB_FUZZ_SEED ?? 12));
    const pick = <T,>(xs: T[]): T => xs[Math.floor(rand() * xs.length)];
    const bytes = (n: number) => Buffer.from(Array.from({ length: n }, () => Math.floor(rand() * 256)));
    const pieces = ['%', '%f', '%ff', '%00', '%2e%2e/', '../', '..%2f', '\\', '%E0%A4%A', '%C0%AF', '//', '?', '#', '[', ']', '@', ':', 'index.html', 'api', 'call', 'events', '%u0041', '\u00ff', 'é', '%0d%0a', ';'];
    const names = ['listRuns', 'getRun', 'startExperiment', 'nope', '__proto__', 'constructor', '%E0%A4%A', ''];
    const bodies = () =>
      pick([
        '',
        '{',
        'null',
        '[]',
        '"x"',
        '{"runId":1}',
        '{"__proto__":{"x":1}}',
        `{"paths":["${'a'.repeat(5000)}"]}`,
        '['.repeat(1 + Math.floor(rand() * 5000)),
        JSON.stringify({ runId: 'x'.repeat(300) }),
        bytes(1 + Math.floor(rand() * 200)).toString('latin1'),
      ]);
    const makeRequest = (): Promise<string> => {
      switch (Math.floor(rand() * 5)) {
        case 0:
          return raw(bytes(1 + Math.floor(rand() * 300)));
        case 1: {
          const target = '/' + Array.from({ length: 1 + Math.floor(rand() * 6) }, () => pick(pieces)).join('');
          return raw(`${pick(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'G\u0000T'])} ${target} HTTP/1.1\r\nHost: ${host()}\r\nConnection: close\r\n\r\n`);
        }
        case 2:
          return post(`/api/call/${pick(names)}`, bodies(), rand() < 0.5 ? server.token : pick(['', 'wrong', server.token.slice(1)]));
        case 3:
          return get(`/api/events?token=${pick(['', 'x', '%ff'])}`);
        default:
          // Malformed headers: bad content-length, duplicate hosts, a header with a NUL.
          return raw(
            pick([
              `POST /api/call/listRuns HTTP/1.1\r\nHost: ${host()}\r\ncontent-length: -1\r\n\r\n`,
              `POST /api/call/listRuns HTTP/1.1\r\nHost: ${host()}\r\ncontent-length: 99999999999999999999\r\n\r\n`,
              `GET / HTTP/1.1\r\nHost: ${host()}\r\nHost: evil.example\r\n\r\n`,
              `GET / HTTP/1.1\r\nHost: ${host()}\r\nX: a\u0000b\r\n\r\n`,
              `GET / HTTP/9.9\r\n\r\n`,
              `GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: ${host()}\r\n\r\n`,
            ]),
          );
      }
    };
    let answered = 0;
    let closedSilently = 0;
    const concurrency = 16;
    let sent = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (sent < total) {
          sent += 1;
          const line = await makeRequest();
          if (/^HTTP\/1\.1 \d{3}/.test(line)) answered += 1;
          else closedSilently += 1;
        }
      }),
    );
    console.log(`serve fuzz: ${total} requests, ${answered} answered with a status, ${closedSilently} closed by the server without one (e.g. a half-sent request), 0 crashes`);
    expect(answered + closedSilently).toBe(total);
    expect(answered).toBeGreaterThan(total * 0.5);
    await stillServes();
  }, 120_000);
});
