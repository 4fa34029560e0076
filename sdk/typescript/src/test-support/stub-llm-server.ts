/**
 * Test-only: a stub LLM HTTP server on 127.0.0.1 (never the network). Each
 * request is answered by the next queued reply: JSON, an SSE stream, or an
 * error status. Requests are kept so tests can count and inspect them.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

type StubReply =
  | { kind: 'json'; status?: number; body: unknown }
  | { kind: 'sse'; events: { event?: string; data: unknown }[]; done?: boolean };

export interface StubServer {
  url: string;
  requests: { path: string; body: any; headers: IncomingMessage['headers'] }[];
  queue(reply: StubReply): void;
  close(): Promise<void>;
}

export async function startStubServer(): Promise<StubServer> {
  const replies: StubReply[] = [];
  const requests: StubServer['requests'] = [];
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      requests.push({ path: req.url ?? '', body: raw ? JSON.parse(raw) : null, headers: req.headers });
      const reply = replies.shift();
      if (!reply) {
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'no stub reply queued' }));
        return;
      }
      if (reply.kind === 'json') {
        res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' }).end(JSON.stringify(reply.body));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      for (const e of reply.events) res.write(`${e.event ? `event: ${e.event}\n` : ''}data: ${JSON.stringify(e.data)}\n\n`);
      if (reply.done) res.write('data: [DONE]\n\n');
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    queue: (r) => replies.push(r),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
