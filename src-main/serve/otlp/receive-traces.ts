/**
 * What the OTLP receiver does with one decoded ExportTraceServiceRequest,
 * apart from HTTP: checks each span the way the OTLP importer will, splits
 * the good ones by trace, adds each trace's spans as one OTLP/JSON line to
 * that trace's own file, `inbox/otlp/<trace id>.otlp.jsonl`, and imports the
 * file through the engine's own import call before answering.
 *
 * Why one file per trace: an OTel batch exporter sends a trace's spans in
 * several requests, and the importer keys runs by trace id, reads a file
 * whole, and gives a run id to the file that first wrote it
 * (store/run-id-collisions.ts). So every batch of a trace goes to the same
 * file, and importing it again upserts the run with all its spans: a second
 * batch extends the run, it is neither refused nor a duplicate. The inbox
 * copy is also what the CLI's inbox sync sees and what a rebuild reads.
 *
 * Why placeholders: batches come children first (a span is exported when it
 * ends, and a parent ends after its children). Imported as they are, spans
 * whose parent has not arrived would hang under a synthetic "(missing
 * parent)" step that no later import can take back. Instead the file ends,
 * while parents are missing, with one placeholder line: a span for each
 * missing parent, with that parent's span id, no end and no attributes. The
 * run shows live, with its unfinished parents as running steps; when a
 * parent arrives, the placeholder line is rewritten without it, and the real
 * span upserts the same step (same id) with its own name, times and fields.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Engine } from '../../engine/create-engine';
import { isObject } from '../../engine/ingest/foreign/chat-messages';
import { decodeId, msToNanos, nanosToMs } from '../../engine/ingest/otlp/otlp-values';

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

interface SpanLink {
  spanId: string;
  parentSpanId: string | null;
  startMs: number;
}

interface TraceBatch {
  /** resourceSpans entries holding only this trace's spans. */
  resourceSpans: Record<string, unknown>[];
  /** The batch's span ids, the parents they name (hex; null for a root) and their start times. */
  spans: SpanLink[];
  /** Output entries by their source object: a lookup per span must not scan the batch (a 32 MiB request holds ~200k spans). */
  bySource: Map<unknown, Record<string, unknown>>;
}

/** The engine's importPaths call takes at most this many paths (src-shared/api.ts). */
const IMPORT_CHUNK = 1000;

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
        if (!batch) batches.set(traceId, (batch = { resourceSpans: [], spans: [], bySource: new Map() }));
        // A parent id that is not a valid id is read as no parent by the importer too (otlp-import.ts).
        batch.spans.push({ spanId: decodeId(s.spanId, 8)!, parentSpanId: decodeId(s.parentSpanId, 8), startMs: nanosToMs(s.startTimeUnixNano)! });
        // Spans of one resource and scope stay together, so the file reads like the exporter's own output.
        let rsOut = batch.bySource.get(rs);
        if (!rsOut) {
          batch.resourceSpans.push((rsOut = { __source: rs, resource: rs.resource, scopeSpans: [] }));
          batch.bySource.set(rs, rsOut);
        }
        let ssOut = batch.bySource.get(ss);
        if (!ssOut) {
          (rsOut.scopeSpans as Record<string, unknown>[]).push((ssOut = { __source: ss, scope, spans: [] }));
          batch.bySource.set(ss, ssOut);
        }
        (ssOut.spans as unknown[]).push(span);
        accepted += 1;
      });
    });
  });
  return { batches, accepted, rejected, rejections };
}

/** Removes from a batch the spans whose ids are in `stored`; false when nothing new is left. */
function dropStoredSpans(batch: TraceBatch, stored: Set<string>): boolean {
  if (!batch.spans.some((l) => stored.has(l.spanId))) return true;
  batch.spans = batch.spans.filter((l) => !stored.has(l.spanId));
  for (const rsOut of batch.resourceSpans) {
    for (const ssOut of rsOut.scopeSpans as Record<string, unknown>[]) {
      ssOut.spans = (ssOut.spans as Record<string, unknown>[]).filter((sp) => !stored.has(decodeId(sp.spanId, 8)!));
    }
  }
  return batch.spans.length > 0;
}

/** One OTLP/JSON line for a trace's batch (the bookkeeping links to the source objects are left out). */
function batchLine(batch: TraceBatch): string {
  return JSON.stringify({ resourceSpans: batch.resourceSpans }, (key, value: unknown) => (key === '__source' ? undefined : value)) + '\n';
}

/** Marks the placeholder line (an unknown top-level field, which the importer ignores). */
const PLACEHOLDER_MARK = '"tracebackPlaceholders":true';

/** One line of spans standing in for parents that have not arrived, or '' when none is missing. */
function placeholderLine(traceId: string, links: SpanLink[]): string {
  const have = new Set(links.map((l) => l.spanId));
  const firstChildStart = new Map<string, number>();
  for (const l of links) {
    if (l.parentSpanId === null || have.has(l.parentSpanId)) continue;
    const seen = firstChildStart.get(l.parentSpanId);
    if (seen === undefined || l.startMs < seen) firstChildStart.set(l.parentSpanId, l.startMs);
  }
  if (!firstChildStart.size) return '';
  const spans = [...firstChildStart].map(([spanId, startMs]) => ({
    traceId,
    spanId,
    name: `(span ${spanId}: not received yet)`,
    startTimeUnixNano: msToNanos(startMs),
  }));
  return `{${PLACEHOLDER_MARK},"resourceSpans":[{"scopeSpans":[{"spans":${JSON.stringify(spans)}}]}]}\n`;
}

/** The lines of a trace's file so far, without its placeholder line, and the spans they hold. */
function readTraceFile(file: string): { lines: string; links: SpanLink[] } {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { lines: '', links: [] };
    throw err;
  }
  const links: SpanLink[] = [];
  const kept: string[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '' || line.startsWith(`{${PLACEHOLDER_MARK}`)) continue;
    kept.push(line);
    try {
      for (const batch of splitByTrace(JSON.parse(line)).batches.values()) links.push(...batch.spans);
    } catch {
      // A damaged line (a write cut short by a crash) stays for the importer to report; it names no spans.
    }
  }
  return { lines: kept.length ? kept.join('\n') + '\n' : '', links };
}

export interface TraceReceiver {
  /** Stores the request's valid spans and resolves once their import has committed. */
  receive(request: unknown): Promise<ReceivedTraces>;
}

export function createTraceReceiver(engine: Engine): TraceReceiver {
  const folder = path.join(engine.paths.inbox, 'otlp');
  return {
    async receive(request) {
      const { batches, accepted, rejected, rejections } = splitByTrace(request);
      const files: string[] = [];
      try {
        if (batches.size) fs.mkdirSync(folder, { recursive: true });
        for (const [traceId, batch] of batches) {
          const file = path.join(folder, `${traceId}.otlp.jsonl`);
          const sofar = readTraceFile(file);
          // An exporter retries a batch it got no answer for: spans the file already holds are not written twice.
          if (!dropStoredSpans(batch, new Set(sofar.links.map((l) => l.spanId)))) continue;
          const content = sofar.lines + batchLine(batch) + placeholderLine(traceId, [...sofar.links, ...batch.spans]);
          // Written whole and renamed into place: a reader (the watcher, a CLI sync) never sees half a rewrite.
          const temp = path.join(folder, `.${traceId}.${process.pid}.tmp`);
          fs.writeFileSync(temp, content);
          fs.renameSync(temp, file);
          files.push(file);
        }
      } catch (err) {
        // The client learns that it may retry, not where this machine keeps its files.
        process.stderr.write(`traceback: the OTLP receiver could not write to ${folder}: ${(err as Error).message}\n`);
        throw new ImportUnavailable(`cannot write the spans to the inbox (${(err as NodeJS.ErrnoException).code ?? 'write error'})`);
      }
      for (let i = 0; i < files.length; i += IMPORT_CHUNK) {
        const result = await engine.call('importPaths', { paths: files.slice(i, i + IMPORT_CHUNK) });
        if (!result.ok) throw new ImportUnavailable(result.error.message);
      }
      return { acceptedSpans: accepted, rejectedSpans: rejected, rejections, traceIds: [...batches.keys()] };
    },
  };
}
