/**
 * `tb serve`: the HTTP transport of the API contract, plus the built
 * renderer. Loopback only; every API request must carry the per-launch token,
 * a Host header naming this server (defeats DNS rebinding) and, when the
 * browser sends one, a matching Origin (defeats cross-site requests).
 */
import http from 'node:http';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { isCallName, type EventName } from '../../src-shared/api';
import { CALL_PREFIX, EVENTS_PATH, MAX_REQUEST_BYTES, TOKEN_HEADER } from '../../src-shared/http-protocol';
import type { Engine } from '../engine/create-engine';
import { CONTENT_SECURITY_POLICY } from '../content-security-policy';
import type { Result } from '../../src-shared/result';
import { jsonDepth } from '../engine/store/field-limits';

export { jsonDepth };


const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

/**
 * Deepest nesting accepted in a request body. The deepest legitimate argument
 * is an edited step output; SDK-recorded values are capped far below this.
 */
const MAX_REQUEST_DEPTH = 512;

/** decodeURIComponent that answers null for a malformed escape (`%ff`, `%E0%A4%A`) instead of throwing. */
function safeDecode(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

/** The request target as a URL, or null when it cannot be one (`http://[`). */
function parseRequestUrl(target: string | undefined): URL | null {
  try {
    return new URL(target ?? '/', 'http://127.0.0.1');
  } catch {
    return null;
  }
}

export interface ServeOptions {
  port?: number;
  /** Folder holding the built renderer (index.html + assets). */
  rendererDir: string;
  token?: string;
}

export interface RunningServer {
  url: string;
  port: number;
  token: string;
  close(): Promise<void>;
}

function sameToken(given: string | null | undefined, token: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

function send(res: http.ServerResponse, status: number, body: unknown, type = 'application/json'): void {
  sendText(res, status, type === 'application/json' ? JSON.stringify(body) : String(body), type);
}

/** Every answer of the server goes out through here: never cached, never sniffed as another type. */
function sendText(res: http.ServerResponse, status: number, text: string, type: string, headers: http.OutgoingHttpHeaders = {}): void {
  res.writeHead(status, { ...headers, 'content-type': type, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  res.end(text);
}

/**
 * The text of the last skeletons sent, by the skeleton object the engine's cache hands out again while
 * its run is unchanged: a reopened 100,000-step run skips serializing ~4 MB again (30–130 ms measured).
 */
const skeletonText = new WeakMap<object, string>();

/** An engine answer, with the engine's time and the serialization's in Server-Timing (the browser's devtools and bench-ui show them). */
function sendResult(res: http.ServerResponse, name: string, result: Result<unknown>, engineMs: number): void {
  const started = performance.now();
  const value = result.ok && name === 'getRunSkeleton' ? (result.value as object) : null;
  let text = value ? skeletonText.get(value) : undefined;
  if (text === undefined) {
    text = JSON.stringify(result);
    if (value) skeletonText.set(value, text);
  }
  sendText(res, 200, text, 'application/json', { 'server-timing': `engine;dur=${engineMs.toFixed(1)}, json;dur=${(performance.now() - started).toFixed(1)}` });
}

export async function startServer(engine: Engine, opts: ServeOptions): Promise<RunningServer> {
  const token = opts.token ?? crypto.randomBytes(24).toString('base64url');
  const rendererDir = path.resolve(opts.rendererDir);
  let port = 0;
  const allowedHosts = () => new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  const sseClients = new Set<http.ServerResponse>();

  const server = http.createServer((req, res) => {
    // Whatever a request holds, it gets an answer and the server lives: one bad byte from a web page must not stop it.
    try {
      route(req, res);
    } catch (err) {
      if (!res.headersSent) send(res, 500, { ok: false, error: { code: 'internal', message: 'internal error' } });
      else res.destroy();
      void err;
    }
  });
  // Malformed request lines and headers are answered by Node with 400 and close; never an uncaught error.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (socket.writable && err.code !== 'ECONNRESET') socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
    else socket.destroy();
  });

  function route(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = parseRequestUrl(req.url);
    if (url === null) return send(res, 400, { ok: false, error: { code: 'bad_request', message: 'malformed request URL' } });
    if (!allowedHosts().has(req.headers.host ?? '')) return send(res, 403, { ok: false, error: { code: 'bad_request', message: 'unexpected Host header' } });
    const origin = req.headers.origin;
    if (origin && !allowedHosts().has(origin.replace(/^http:\/\//, ''))) {
      return send(res, 403, { ok: false, error: { code: 'bad_request', message: 'cross-origin request refused' } });
    }
    if (url.pathname.startsWith('/api/')) return handleApi(req, res, url);
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'method not allowed', 'text/plain');
    return serveStatic(res, url.pathname);
  }

  function handleApi(req: http.IncomingMessage, res: http.ServerResponse, url: URL): void {
    if (url.pathname === EVENTS_PATH && req.method === 'GET') {
      if (!sameToken(url.searchParams.get('token'), token)) return send(res, 401, { ok: false, error: { code: 'bad_request', message: 'missing or wrong token' } });
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
      res.write(': connected\n\n');
      sseClients.add(res);
      req.on('close', () => sseClients.delete(res));
      return;
    }
    if (!url.pathname.startsWith(CALL_PREFIX) || req.method !== 'POST') return send(res, 404, { ok: false, error: { code: 'not_found', message: 'unknown endpoint' } });
    if (!sameToken(req.headers[TOKEN_HEADER] as string | undefined, token)) return send(res, 401, { ok: false, error: { code: 'bad_request', message: 'missing or wrong token' } });
    const name = safeDecode(url.pathname.slice(CALL_PREFIX.length));
    if (name === null) return send(res, 400, { ok: false, error: { code: 'bad_request', message: 'malformed call name' } });
    if (!isCallName(name)) return send(res, 404, { ok: false, error: { code: 'not_found', message: `unknown call "${name.slice(0, 60)}"` } });
    const chunks: Buffer[] = [];
    let size = 0;
    let tooBig = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_REQUEST_BYTES) tooBig = true;
      else chunks.push(c);
    });
    req.on('error', () => res.destroy());
    req.on('end', () => {
      if (tooBig) return send(res, 413, { ok: false, error: { code: 'bad_request', message: `request body over ${MAX_REQUEST_BYTES} bytes` } });
      const text = Buffer.concat(chunks).toString('utf8');
      // Depth is measured on the text, before JSON.parse and validation walk it (both recurse).
      const depth = jsonDepth(text);
      if (depth > MAX_REQUEST_DEPTH) {
        return send(res, 400, { ok: false, error: { code: 'bad_request', message: `request body nested ${depth} deep; the limit is ${MAX_REQUEST_DEPTH}` } });
      }
      let args: unknown;
      try {
        args = text.trim() === '' ? {} : JSON.parse(text);
      } catch {
        return send(res, 400, { ok: false, error: { code: 'bad_request', message: 'request body is not JSON' } });
      }
      const called = performance.now();
      engine.call(name, args).then(
        (result) => sendResult(res, name, result, performance.now() - called),
        () => send(res, 500, { ok: false, error: { code: 'internal', message: 'internal error' } }),
      );
    });
  }

  function serveStatic(res: http.ServerResponse, pathname: string): void {
    const decoded = pathname === '/' ? 'index.html' : safeDecode(pathname);
    if (decoded === null) return send(res, 400, 'malformed path', 'text/plain');
    // A NUL never reaches the file system (fs throws on it); nor does any control character.
    if (/[\u0000-\u001f]/.test(decoded)) return send(res, 404, 'not found', 'text/plain');
    const rel = decoded.replace(/^\/+/, '');
    const file = path.resolve(rendererDir, rel);
    if (!file.startsWith(rendererDir + path.sep)) return send(res, 404, 'not found', 'text/plain');
    fs.readFile(file, (err, data) => {
      if (err) {
        if (rel === 'index.html') {
          return send(res, 500, `The UI is not built (${rendererDir} has no index.html). Run: npm run build`, 'text/plain; charset=utf-8');
        }
        return send(res, 404, 'not found', 'text/plain');
      }
      const ext = path.extname(file);
      res.writeHead(200, {
        'content-type': TYPES[ext] ?? 'application/octet-stream',
        'x-content-type-options': 'nosniff',
        'cache-control': ext === '.html' ? 'no-store' : 'max-age=3600',
        ...(ext === '.html' ? { 'content-security-policy': CONTENT_SECURITY_POLICY, 'referrer-policy': 'no-referrer' } : {}),
      });
      res.end(data);
    });
  }

  const unsubscribe = engine.events.subscribe(<E extends EventName>(event: E, payload: unknown) => {
    const frame = `event: ${event}\ndata: ${JSON.stringify(payload)}\n\n`;
    for (const c of sseClients) c.write(frame);
  });
  const heartbeat = setInterval(() => {
    for (const c of sseClients) c.write(': ping\n\n');
  }, 15_000);
  heartbeat.unref();

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    port,
    token,
    close: async () => {
      unsubscribe();
      clearInterval(heartbeat);
      for (const c of sseClients) c.end();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
