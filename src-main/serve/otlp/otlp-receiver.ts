/**
 * The OTLP/HTTP trace receiver: `POST /v1/traces` on loopback (default port
 * 4318, the OpenTelemetry default), so any OTel SDK pointed at
 * OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 lands its traces in
 * Traceback. Both encodings (application/json, application/x-protobuf), gzip
 * or not. Answers follow the OTLP/HTTP spec: 200 with an
 * ExportTraceServiceResponse (with partialSuccess when spans were rejected),
 * 400 with a google.rpc.Status for a payload that is not an export, each in
 * the request's encoding.
 *
 * Security (docs/security.md §OTLP receiver): loopback only; a Host header
 * naming this server (DNS rebinding); a request a browser sent (Origin or
 * Sec-Fetch-Site headers) is refused and no CORS preflight is ever answered, so
 * a web page cannot plant traces; an optional token; a body size limit that
 * also bounds what gzip may expand to.
 */
import http from 'node:http';
import crypto from 'node:crypto';
import zlib from 'node:zlib';
import type { Engine } from '../../engine/create-engine';
import { jsonDepth } from '../../engine/store/field-limits';
import { decodeTraceRequest, encodeRpcStatus, encodeTraceResponse } from './otlp-protobuf';
import { BadExportRequest, createTraceReceiver, ImportUnavailable } from './receive-traces';

export const OTLP_DEFAULT_PORT = 4318;
const OTLP_TRACES_PATH = '/v1/traces';
/**
 * Largest body accepted, before and after gzip. An OTel batch exporter sends at most
 * 512 spans per request by default; GenAI spans carry prompts and outputs, so a batch of
 * long conversations can reach a few MB. 32 MiB leaves a wide margin and bounds memory.
 */
const OTLP_MAX_BODY_BYTES = 32 * 1024 * 1024;
/** Deepest JSON nesting accepted (measured on the text before parsing; nested attribute values recurse). */
const MAX_JSON_DEPTH = 256;
const TOKEN_HEADER = 'x-traceback-token';

// google.rpc.Code values used in error bodies.
const RPC = { INVALID_ARGUMENT: 3, NOT_FOUND: 5, PERMISSION_DENIED: 7, RESOURCE_EXHAUSTED: 8, UNAVAILABLE: 14, UNAUTHENTICATED: 16, INTERNAL: 13 };

export interface OtlpReceiverOptions {
  /** 0 picks any free port (tests). */
  port?: number;
  /** When set, every export must carry it (Authorization: Bearer …, or x-traceback-token). */
  token?: string | null;
  maxBodyBytes?: number;
}

export interface RunningOtlpReceiver {
  port: number;
  /** What to put in OTEL_EXPORTER_OTLP_ENDPOINT. */
  endpoint: string;
  close(): Promise<void>;
}

type Encoding = 'json' | 'protobuf';

function encodingOf(contentType: string | undefined): Encoding | null {
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (type === 'application/json') return 'json';
  if (type === 'application/x-protobuf' || type === 'application/protobuf') return 'protobuf';
  return null;
}

/** Compared as SHA-256 digests: equal lengths always, so the time taken says nothing about the token, not even its length. */
function sameToken(given: string, token: string): boolean {
  const digest = (t: string) => crypto.createHash('sha256').update(t).digest();
  return crypto.timingSafeEqual(digest(given), digest(token));
}

function presentedToken(req: http.IncomingMessage): string | null {
  const own = req.headers[TOKEN_HEADER];
  if (typeof own === 'string' && own !== '') return own;
  const auth = req.headers.authorization;
  const m = typeof auth === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(auth) : null;
  return m ? m[1] : null;
}

/**
 * A header only a browser sends: a web page's request, which must never reach the import.
 * (Not Sec-Fetch-Mode: Node's own fetch sends it too, and a local exporter may use fetch.)
 */
function fromBrowser(req: http.IncomingMessage): boolean {
  return req.headers.origin !== undefined || req.headers['sec-fetch-site'] !== undefined;
}

function respond(res: http.ServerResponse, status: number, encoding: Encoding, body: Uint8Array | string, extra: Record<string, string> = {}): void {
  res.writeHead(status, {
    'content-type': encoding === 'protobuf' ? 'application/x-protobuf' : 'application/json',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...extra,
  });
  res.end(body);
}

/** An OTLP/HTTP error: a google.rpc.Status in the request's encoding (JSON when it has none). */
function fail(res: http.ServerResponse, status: number, encoding: Encoding, code: number, message: string, extra: Record<string, string> = {}): void {
  respond(res, status, encoding, encoding === 'protobuf' ? encodeRpcStatus(code, message) : JSON.stringify({ code, message }), extra);
}

function gunzip(body: Buffer, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => zlib.gunzip(body, { maxOutputLength: maxBytes }, (err, out) => (err ? reject(err) : resolve(out))));
}

export async function startOtlpReceiver(engine: Engine, opts: OtlpReceiverOptions = {}): Promise<RunningOtlpReceiver> {
  const token = opts.token || null;
  const maxBytes = opts.maxBodyBytes ?? OTLP_MAX_BODY_BYTES;
  let port = 0;
  const traces = createTraceReceiver(engine);
  const allowedHosts = () => new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);

  const server = http.createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) fail(res, 500, 'json', RPC.INTERNAL, 'internal error');
      else res.destroy();
    });
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (socket.writable && err.code !== 'ECONNRESET') socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
    else socket.destroy();
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const encoding = encodingOf(req.headers['content-type']);
    const answerIn: Encoding = encoding ?? 'json';
    // Refusals that do not read the body close the connection, so an unread body cannot be taken for the next request.
    const close = { connection: 'close' };
    if (fromBrowser(req)) {
      // No Access-Control-* header is ever sent: a preflight fails, and a "simple" cross-site POST is refused here.
      return fail(res, 403, answerIn, RPC.PERMISSION_DENIED, 'requests from a web page (an Origin header) are refused: only local OTLP exporters may send traces', close);
    }
    if (!allowedHosts().has(req.headers.host ?? '')) return fail(res, 403, answerIn, RPC.PERMISSION_DENIED, 'unexpected Host header', close);
    const pathname = (req.url ?? '/').split('?')[0];
    if (pathname !== OTLP_TRACES_PATH) return fail(res, 404, answerIn, RPC.NOT_FOUND, `only ${OTLP_TRACES_PATH} is served here (traces; no metrics or logs)`, close);
    if (req.method !== 'POST') return fail(res, 405, answerIn, RPC.INVALID_ARGUMENT, 'only POST is accepted', { ...close, allow: 'POST' });
    if (token) {
      const given = presentedToken(req);
      if (!given || !sameToken(given, token)) {
        return fail(res, 401, answerIn, RPC.UNAUTHENTICATED, 'missing or wrong token: send "Authorization: Bearer <token>" or "x-traceback-token: <token>"', close);
      }
    }
    if (!encoding) {
      return fail(res, 415, 'json', RPC.INVALID_ARGUMENT, `unsupported Content-Type ${JSON.stringify(req.headers['content-type'] ?? '')}: send application/json or application/x-protobuf`, close);
    }
    const contentEncoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
    if (contentEncoding !== 'identity' && contentEncoding !== 'gzip') {
      return fail(res, 415, encoding, RPC.INVALID_ARGUMENT, `unsupported Content-Encoding "${contentEncoding}": send gzip or none`, close);
    }
    const tooBig = `request body over ${maxBytes} bytes; send smaller batches (OTEL_BSP_MAX_EXPORT_BATCH_SIZE)`;
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) return fail(res, 413, encoding, RPC.RESOURCE_EXHAUSTED, tooBig, close);

    const raw = await readBody(req, maxBytes);
    if (raw === null) return fail(res, 413, encoding, RPC.RESOURCE_EXHAUSTED, tooBig, close);
    let body = raw;
    if (contentEncoding === 'gzip') {
      try {
        body = await gunzip(raw, maxBytes);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') return fail(res, 413, encoding, RPC.RESOURCE_EXHAUSTED, `${tooBig} (after gzip)`);
        return fail(res, 400, encoding, RPC.INVALID_ARGUMENT, 'the body is not valid gzip');
      }
    }

    let request: unknown;
    try {
      request = encoding === 'protobuf' ? decodeTraceRequest(body) : parseJsonBody(body);
    } catch (err) {
      return fail(res, 400, encoding, RPC.INVALID_ARGUMENT, `not an OTLP ExportTraceServiceRequest in ${encoding === 'protobuf' ? 'protobuf' : 'JSON'}: ${(err as Error).message}`);
    }

    let received;
    try {
      received = await traces.receive(request);
    } catch (err) {
      if (err instanceof BadExportRequest) return fail(res, 400, encoding, RPC.INVALID_ARGUMENT, `not an OTLP ExportTraceServiceRequest: ${err.message}`);
      // The spec's retryable status: the exporter sends the batch again, and a repeat changes nothing (upserts).
      if (err instanceof ImportUnavailable) return fail(res, 503, encoding, RPC.UNAVAILABLE, `the spans could not be imported: ${err.message}`, { 'retry-after': '5' });
      throw err;
    }
    const partial =
      received.rejectedSpans > 0
        ? { rejectedSpans: received.rejectedSpans, errorMessage: `${received.rejectedSpans} span(s) rejected: ${received.rejections.join('; ')}${received.rejectedSpans > received.rejections.length ? '; …' : ''}` }
        : null;
    if (encoding === 'protobuf') return respond(res, 200, encoding, encodeTraceResponse(partial));
    // int64 in OTLP/JSON may be a number or a decimal string; a number is what JS exporters read.
    return respond(res, 200, encoding, JSON.stringify(partial ? { partialSuccess: partial } : {}));
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // A client trickling a body past the size limit is cut off after this, not Node's default 300 s.
    server.requestTimeout = 60_000;
    server.listen(opts.port ?? OTLP_DEFAULT_PORT, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as { port: number }).port;
  return {
    port,
    endpoint: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}

/** The body, or null once it passes maxBytes (the rest is read and dropped, so the answer still arrives). */
function readBody(req: http.IncomingMessage, maxBytes: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= maxBytes) chunks.push(c);
    });
    req.on('error', reject);
    req.on('end', () => resolve(size > maxBytes ? null : Buffer.concat(chunks)));
  });
}

function parseJsonBody(body: Buffer): unknown {
  const text = body.toString('utf8');
  // Depth is measured on the text, before JSON.parse and the importer walk it (both recurse).
  const depth = jsonDepth(text);
  if (depth > MAX_JSON_DEPTH) throw new Error(`nested ${depth} deep; the limit is ${MAX_JSON_DEPTH}`);
  return JSON.parse(text);
}
