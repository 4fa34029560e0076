/**
 * What the OTLP receiver does with one decoded ExportTraceServiceRequest,
 * apart from HTTP: checks each span the way the OTLP importer will, splits
 * the good ones by trace, appends each trace's spans as one OTLP/JSON line
 * to that trace's own file, and imports the file through the engine's own
 * import call once the trace is whole.
 *
 * Why one file per trace, and why "once whole": an OTel batch exporter sends
 * a trace's spans in several requests, children first (a span is exported
 * when it ends, and a parent ends after its children). The importer keys
 * runs by trace id, reads a file whole, and a run id belongs to the file that
 * first wrote it (store/run-id-collisions.ts) — so every batch of a trace
 * goes to the same file, and importing it again upserts the run with all its
 * spans. But spans whose parent has not arrived are imported under a
 * synthetic "(missing parent)" step that a later import cannot take back; so
 * a trace waits in `<home>/otlp-pending/` until it has a root and no span
 * names a parent it lacks, then moves to `inbox/otlp/<trace id>.otlp.jsonl`
 * and is imported. Spans that arrive after that (work that outlived its
 * parent) are appended there and imported at once. A trace that never
 * becomes whole (its root is in another service, or its process died) is
 * moved into the inbox after PENDING_IDLE_MS without news, and when the
 * receiver stops or starts, and shows as an incomplete run.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Engine } from '../../engine/create-engine';
import { isObject } from '../../engine/ingest/foreign/chat-messages';
import { decodeId, nanosToMs } from '../../engine/ingest/otlp/otlp-values';

/** The request is not an ExportTraceServiceRequest at all: the whole export is refused (HTTP 400). */
export class BadExportRequest extends Error {}

/** The import itself failed (the database, the disk): worth retrying (HTTP 503). */
export class ImportUnavailable extends Error {}

interface ReceivedTraces {
  acceptedSpans: number;
  rejectedSpans: number;
  /** What was rejected and why, at most a few entries (for partialSuccess.errorMessage). */
  rejections: string[];
  /** The OTel trace ids whose spans were stored. */
  traceIds: string[];
}

const MAX_REJECTION_LINES = 5;

interface TraceBatch {
  /** resourceSpans entries holding only this trace's spans. */
  resourceSpans: Record<string, unknown>[];
  /** The batch's span ids and the parents they name (hex; null for a root). */
  spans: { spanId: string; parentSpanId: string | null }[];
}

/** Why the OTLP importer would skip this span, or null when it would keep it. */
function spanProblem(span: unknown): string | null {
  if (!isObject(span)) return 'not an object';
  if (!decodeId(span.traceId, 16)) return `traceId ${JSON.stringify(span.traceId ?? null)} is missing or not a 16-byte id`;
  if (!decodeId(span.spanId, 8)) return `spanId ${JSON.stringify(span.spanId ?? null)} is missing or not an 8-byte id`;
  if (nanosToMs(span.startTimeUnixNano) === null) return 'no startTimeUnixNano';
  return null;
}

/** Splits a request's valid spans by trace, keeping each span's resource and scope; counts the rest. */
function splitByTrace(request: unknown): { batches: Map<string, TraceBatch>; accepted: number; rejected: number; rejections: string[] } {
  if (!isObject(request)) throw new BadExportRequest('the body is not an ExportTraceServiceRequest object');
  const list = request.resourceSpans ?? [];
  if (!Array.isArray(list)) throw new BadExportRequest('"resourceSpans" is not an array');
  const batches = new Map<string, TraceBatch>();
  const rejections: string[] = [];
  let accepted = 0;
  let rejected = 0;
  const reject = (where: string, why: string, count = 1) => {
    rejected += count;
    if (rejections.length < MAX_REJECTION_LINES) rejections.push(`${where}: ${why}`);
  };
  list.forEach((rs, i) => {
    const rsPath = `resourceSpans[${i}]`;
    if (!isObject(rs)) throw new BadExportRequest(`${rsPath} is not an object`);
    // Collectors before OTLP 0.19 wrote "instrumentationLibrarySpans".
    const scopes = rs.scopeSpans ?? rs.instrumentationLibrarySpans ?? [];
    if (!Array.isArray(scopes)) throw new BadExportRequest(`${rsPath}.scopeSpans is not an array`);
    scopes.forEach((ss, j) => {
      const ssPath = `${rsPath}.scopeSpans[${j}]`;
      if (!isObject(ss)) throw new BadExportRequest(`${ssPath} is not an object`);
      const spans = ss.spans ?? [];
      if (!Array.isArray(spans)) throw new BadExportRequest(`${ssPath}.spans is not an array`);
      const scope = ss.scope ?? ss.instrumentationLibrary;
      spans.forEach((span, k) => {
        const problem = spanProblem(span);
        if (problem) return reject(`${ssPath}.spans[${k}]${isObject(span) && typeof span.name === 'string' ? ` ("${span.name.slice(0, 80)}")` : ''}`, problem);
        const s = span as Record<string, unknown>;
        const traceId = decodeId(s.traceId, 16)!;
        let batch = batches.get(traceId);
        if (!batch) batches.set(traceId, (batch = { resourceSpans: [], spans: [] }));
        // A parent id that is not a valid id is read as no parent by the importer too (otlp-import.ts).
        batch.spans.push({ spanId: decodeId(s.spanId, 8)!, parentSpanId: decodeId(s.parentSpanId, 8) });
        // Spans of one resource and scope stay together, so the file reads like the exporter's own output.
        let rsOut = batch.resourceSpans.find((r) => r.__source === rs);
        if (!rsOut) batch.resourceSpans.push((rsOut = { __source: rs, resource: rs.resource, scopeSpans: [] }));
        const scopeList = rsOut.scopeSpans as Record<string, unknown>[];
        let ssOut = scopeList.find((s) => s.__source === ss);
        if (!ssOut) scopeList.push((ssOut = { __source: ss, scope, spans: [] }));
        (ssOut.spans as unknown[]).push(span);
        accepted += 1;
      });
    });
  });
  return { batches, accepted, rejected, rejections };
}

/** One OTLP/JSON line for a trace's batch (the bookkeeping links to the source objects are left out). */
function batchLine(batch: TraceBatch): string {
  return JSON.stringify({ resourceSpans: batch.resourceSpans }, (key, value: unknown) => (key === '__source' ? undefined : value)) + '\n';
}

/** A trace waiting for its root: which spans it has and which parents they name. */
interface PendingTrace {
  file: string;
  spans: Set<string>;
  parents: Set<string>;
  hasRoot: boolean;
  lastSeen: number;
}

/** How long a trace that is not whole waits for more spans before it is imported as it is. */
const PENDING_IDLE_MS = 2 * 60 * 1000;

export interface TraceReceiver {
  /** Imports traces an earlier process left waiting, and starts the idle clock. */
  start(): void;
  /**
   * Stores the request's valid spans; resolves once they are on disk and,
   * for traces that are whole, once their import has committed.
   */
  receive(request: unknown): Promise<ReceivedTraces>;
  /** Moves every waiting trace into the inbox and imports it. */
  close(): Promise<void>;
}

export function createTraceReceiver(engine: Engine, opts: { idleMs?: number } = {}): TraceReceiver {
  const idleMs = opts.idleMs ?? PENDING_IDLE_MS;
  const inboxFolder = path.join(engine.paths.inbox, 'otlp');
  const pendingFolder = path.join(engine.paths.home, 'otlp-pending');
  const pending = new Map<string, PendingTrace>();

  const importFiles = async (files: string[]) => {
    if (!files.length) return;
    const result = await engine.call('importPaths', { paths: files });
    if (!result.ok) throw new ImportUnavailable(result.error.message);
  };
  /** Moves a waiting trace's file into the inbox; returns the inbox path. */
  const release = (traceId: string, file: string): string => {
    const target = path.join(inboxFolder, `${traceId}.otlp.jsonl`);
    fs.mkdirSync(inboxFolder, { recursive: true });
    // A file already there (spans that came after an earlier release) keeps its lines; these join them.
    if (fs.existsSync(target)) {
      fs.appendFileSync(target, fs.readFileSync(file));
      fs.unlinkSync(file);
    } else fs.renameSync(file, target);
    pending.delete(traceId);
    return target;
  };
  /** Traces left waiting by an earlier process (it stopped or crashed) go to the inbox as they are. */
  const releaseLeftovers = () => {
    let names: string[] = [];
    try {
      names = fs.readdirSync(pendingFolder).filter((n) => n.endsWith('.otlp.jsonl'));
    } catch {
      return [];
    }
    return names.map((n) => release(n.slice(0, -'.otlp.jsonl'.length), path.join(pendingFolder, n)));
  };
  let startup: Promise<void> = Promise.resolve();
  let idleTimer: NodeJS.Timeout | undefined;

  return {
    start() {
      startup = importFiles(releaseLeftovers()).catch(() => undefined);
      idleTimer = setInterval(() => {
        const now = Date.now();
        const stale = [...pending].filter(([, t]) => now - t.lastSeen >= idleMs).map(([id, t]) => release(id, t.file));
        importFiles(stale).catch(() => undefined); // still in the inbox: the watcher or the next sync imports them
      }, Math.min(idleMs, 10_000));
      idleTimer.unref();
    },
    async receive(request) {
      const { batches, accepted, rejected, rejections } = splitByTrace(request);
      const ready: string[] = [];
      try {
        for (const [traceId, batch] of batches) {
          const line = batchLine(batch);
          const released = path.join(inboxFolder, `${traceId}.otlp.jsonl`);
          if (!pending.has(traceId) && fs.existsSync(released)) {
            fs.appendFileSync(released, line);
            ready.push(released);
            continue;
          }
          let trace = pending.get(traceId);
          if (!trace) {
            fs.mkdirSync(pendingFolder, { recursive: true });
            trace = { file: path.join(pendingFolder, `${traceId}.otlp.jsonl`), spans: new Set(), parents: new Set(), hasRoot: false, lastSeen: 0 };
            pending.set(traceId, trace);
          }
          fs.appendFileSync(trace.file, line);
          trace.lastSeen = Date.now();
          for (const span of batch.spans) {
            trace.spans.add(span.spanId);
            if (span.parentSpanId) trace.parents.add(span.parentSpanId);
            else trace.hasRoot = true;
          }
          if (trace.hasRoot && [...trace.parents].every((p) => trace.spans.has(p))) ready.push(release(traceId, trace.file));
        }
      } catch (err) {
        throw new ImportUnavailable(`cannot write the spans to disk: ${(err as Error).message}`);
      }
      await importFiles(ready);
      return { acceptedSpans: accepted, rejectedSpans: rejected, rejections, traceIds: [...batches.keys()] };
    },
    async close() {
      clearInterval(idleTimer);
      await startup;
      await importFiles(releaseLeftovers()).catch(() => undefined);
    },
  };
}
