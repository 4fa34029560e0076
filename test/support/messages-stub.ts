/**
 * A local stand-in for the Anthropic Messages API: replays recorded responses
 * (test/fixtures/explain/) in order, so the root-cause agent is tested through
 * the real SDK client with no network. Each scripted reply may be delayed
 * (timeouts) or carry an HTTP status (429 then success).
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

export interface ScriptedReply {
  status?: number;
  /** A fixture file name, or a body (a function: computed when the request arrives). */
  fixture?: string;
  body?: unknown;
  headers?: Record<string, string>;
  delayMs?: number;
}

export interface MessagesStub {
  baseURL: string;
  /** Request bodies received, in order. */
  requests: Record<string, unknown>[];
  close(): Promise<void>;
}

const FIXTURES = fileURLToPath(new URL('../fixtures/explain/', import.meta.url));

export function fixtureReply(name: string, replace: Record<string, string> = {}): unknown {
  let text = fs.readFileSync(path.join(FIXTURES, name), 'utf8');
  for (const [k, v] of Object.entries(replace)) text = text.split(k).join(v);
  return JSON.parse(text);
}

export async function startMessagesStub(script: ScriptedReply[]): Promise<MessagesStub> {
  const requests: Record<string, unknown>[] = [];
  const sockets = new Set<import('node:net').Socket>();
  let next = 0;
  const server = http.createServer((req, res) => {
    let data = '';
    req.on('data', (c) => (data += c));
    req.on('end', () => {
      requests.push(data ? (JSON.parse(data) as Record<string, unknown>) : {});
      const reply = script[Math.min(next++, script.length - 1)];
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...(reply.headers ?? {}) });
        res.end(JSON.stringify(typeof reply.body === 'function' ? (reply.body as () => unknown)() : (reply.body ?? fixtureReply(reply.fixture!))));
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs).unref();
      else send();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
