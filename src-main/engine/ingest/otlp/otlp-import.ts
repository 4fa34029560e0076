/**
 * OTLP/JSON trace files → ForeignRuns: one ExportTraceServiceRequest per
 * file (an exporter's or a download's output) or JSON Lines of them (the
 * Collector's file exporter). One run per trace id. A malformed span is
 * reported with its position and skipped; the rest of the file is kept.
 */
import type { Json } from '../../../../src-shared/trace-format';
import { isObject } from '../foreign/chat-messages';
import type { ForeignIssue, ForeignRun, ForeignStep } from '../foreign/foreign-run';
import { eventsOf, spanError, spanFacts } from './otlp-span-mapping';
import { attributeMap, decodeId, nanosToMs, spanKindName, statusIsError } from './otlp-values';
import { brokenDocumentError, documentErrorIssue, firstJsonSyntaxError, valueLinesAt } from '../foreign/json-text-places';

export interface Located {
  span: Record<string, unknown>;
  /** Indices of `path` (resourceSpans, scopeSpans, spans), so a summary can rebuild it instead of holding it. */
  at: [number, number, number];
  path: string;
  line: number;
  resource: Record<string, Json>;
  scope: string | null;
}

/**
 * The spans of one request, each with where it is: `baseLine` (a JSON Lines file's line) or, in a document read
 * whole (`documentText`), the line each span and each odd value starts on, found for all at once after the walk.
 */
export function collectSpans(request: unknown, baseLine: number, documentText: string | null, prefix: string, issues: ForeignIssue[]): Located[] {
  const out: Located[] = [];
  const paths: (string | number)[][] = [];
  const placed: { line: number }[] = [];
  const placeAt = (target: { line: number }, path: (string | number)[]) => {
    if (documentText === null) return;
    paths.push(path);
    placed.push(target);
  };
  const problem = (message: string, path: (string | number)[]) => {
    const issue: ForeignIssue = { line: baseLine, level: 'error', message };
    issues.push(issue);
    placeAt(issue, path);
  };
  if (!isObject(request) || !Array.isArray(request.resourceSpans)) {
    issues.push({ line: baseLine, level: 'error', message: `${prefix}no "resourceSpans" array: not an OTLP ExportTraceServiceRequest` });
    return out;
  }
  request.resourceSpans.forEach((rs, i) => {
    const rsPath = `${prefix}resourceSpans[${i}]`;
    if (!isObject(rs)) return problem(`${rsPath}: not an object; skipped`, ['resourceSpans', i]);
    const resource = attributeMap(isObject(rs.resource) ? rs.resource.attributes : undefined);
    // Collectors before OTLP 0.19 wrote "instrumentationLibrarySpans".
    const scopesKey = Array.isArray(rs.scopeSpans) ? 'scopeSpans' : 'instrumentationLibrarySpans';
    const scopes = Array.isArray(rs[scopesKey]) ? (rs[scopesKey] as unknown[]) : [];
    scopes.forEach((ss, j) => {
      const ssPath = `${rsPath}.scopeSpans[${j}]`;
      if (!isObject(ss) || !Array.isArray(ss.spans)) return problem(`${ssPath}: no "spans" array; skipped`, ['resourceSpans', i, scopesKey, j]);
      const scopeObj = isObject(ss.scope) ? ss.scope : isObject(ss.instrumentationLibrary) ? ss.instrumentationLibrary : null;
      const scope = scopeObj && typeof scopeObj.name === 'string' ? `${scopeObj.name}${typeof scopeObj.version === 'string' && scopeObj.version ? '@' + scopeObj.version : ''}` : null;
      ss.spans.forEach((span, k) => {
        const path = `${ssPath}.spans[${k}]`;
        const where = ['resourceSpans', i, scopesKey, j, 'spans', k];
        if (!isObject(span)) return problem(`${path}: not an object; skipped`, where);
        const located: Located = { span, at: [i, j, k], path, line: baseLine, resource, scope };
        placeAt(located, where);
        out.push(located);
      });
    });
  });
  if (documentText !== null && paths.length > 0) {
    const lines = valueLinesAt(documentText, paths);
    placed.forEach((p, n) => (p.line = lines[n] ?? baseLine));
  }
  return out;
}

/** A JSON Lines line JSON.parse rejected, named in the scanner's words at its column (V8's would quote the file). */
export function badLineIssue(line: number, text: string): ForeignIssue {
  const error = firstJsonSyntaxError(text);
  const problem = error && error.offset >= text.trimEnd().length ? 'the line ends before its value does (cut off while it was written?)' : error?.problem;
  return { line, level: 'error', message: `line ${line}: not valid JSON${error ? ` at column ${error.column}: ${problem}` : ''}; line skipped` };
}

function parseRequests(text: string, issues: ForeignIssue[]): Located[] {
  const trimmed = text.trim();
  try {
    const doc = JSON.parse(trimmed) as unknown;
    return collectSpans(doc, 1, text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, '', issues);
  } catch {
    // Not one document: JSON Lines, one request per line; unless it is one document spanning lines that is broken.
    const broken = brokenDocumentError(text);
    if (broken) {
      issues.push(documentErrorIssue(broken));
      return [];
    }
  }
  const out: Located[] = [];
  const lines = text.split('\n');
  lines.forEach((raw, i) => {
    if (raw.trim() === '') return;
    let request: unknown;
    try {
      request = JSON.parse(raw);
    } catch {
      issues.push(badLineIssue(i + 1, raw));
      return;
    }
    for (const span of collectSpans(request, i + 1, null, `line ${i + 1}: `, issues)) out.push(span);
  });
  return out;
}

function toStep(located: Located, traceId: string, spanId: string, issues: ForeignIssue[]): ForeignStep | null {
  const { span, path, line } = located;
  const start = nanosToMs(span.startTimeUnixNano);
  if (start === null) {
    issues.push({ line, level: 'error', message: `${path}: ${span.startTimeUnixNano === undefined ? 'no startTimeUnixNano' : `startTimeUnixNano ${JSON.stringify(span.startTimeUnixNano).slice(0, 40)} is not a usable time`}; span skipped` });
    return null;
  }
  const attrs = attributeMap(span.attributes);
  const events = eventsOf(span.events, nanosToMs);
  const status = isObject(span.status) ? span.status : {};
  const failed = statusIsError(status);
  const statusMessage = typeof status.message === 'string' ? status.message : undefined;
  const name = typeof span.name === 'string' && span.name !== '' ? span.name : '(unnamed span)';
  if (name === '(unnamed span)') issues.push({ line, level: 'warning', message: `${path}: span has no name` });
  const facts = spanFacts(name, attrs);
  const parentSpanId = decodeId(span.parentSpanId, 8);
  if (span.parentSpanId !== undefined && span.parentSpanId !== '' && parentSpanId === null) {
    issues.push({ line, level: 'warning', message: `${path}: parentSpanId ${JSON.stringify(span.parentSpanId)} is neither hex nor base64 of 8 bytes; the span is treated as a root` });
  }
  const otel: Record<string, Json> = { trace_id: traceId, span_id: spanId };
  if (parentSpanId) otel.parent_span_id = parentSpanId;
  const kind = spanKindName(span.kind);
  if (kind) otel.kind = kind;
  if (located.scope) otel.scope = located.scope;
  if (statusMessage) otel.status_message = statusMessage;
  if (events.length) otel.events = events.map((e) => ({ name: e.name, time: e.timeMs, attributes: e.attributes }));
  if (Array.isArray(span.links) && span.links.length) {
    otel.links = span.links.filter(isObject).map((l) => ({ trace_id: decodeId(l.traceId, 16), span_id: decodeId(l.spanId, 8), attributes: attributeMap(l.attributes) }));
  }
  const ownStepId = attrs['traceback.step_id'];
  // An end time of 0 means the span was exported before it ended.
  const endMs = nanosToMs(span.endTimeUnixNano);
  const end = endMs === null || endMs === 0 ? null : endMs;
  return {
    id: typeof ownStepId === 'string' && ownStepId !== '' ? ownStepId : spanId,
    parentId: parentSpanId,
    name,
    type: facts.type,
    start,
    end,
    status: failed ? 'error' : 'ok',
    ...(facts.input !== undefined ? { input: facts.input } : {}),
    ...(facts.output !== undefined ? { output: facts.output } : {}),
    ...(failed ? { error: spanError(statusMessage, events, attrs) } : {}),
    ...(facts.model ? { model: facts.model } : {}),
    ...(facts.usage ? { usage: facts.usage } : {}),
    startMetadata: { ...facts.startMetadata, attributes: attrs, otel },
    endMetadata: facts.endMetadata,
    ...(typeof attrs['traceback.replay_key'] === 'string' ? { replayKey: attrs['traceback.replay_key'] } : {}),
    position: { line, path },
  };
}

/** A located span → its trace id, span id and step; null (and reported) when it cannot be one. */
export function spanStep(item: Located, issues: ForeignIssue[]): { traceId: string; spanId: string; step: ForeignStep } | null {
  const traceId = decodeId(item.span.traceId, 16);
  const spanId = decodeId(item.span.spanId, 8);
  if (!traceId || !spanId) {
    const which = !traceId ? `traceId ${JSON.stringify(item.span.traceId ?? null)}` : `spanId ${JSON.stringify(item.span.spanId ?? null)}`;
    issues.push({ line: item.line, level: 'error', message: `${item.path}: ${which} is missing or not a valid id; span skipped` });
    return null;
  }
  const step = toStep(item, traceId, spanId, issues);
  return step ? { traceId, spanId, step } : null;
}

/** The spans of one trace id, in file order; `resource` is the first span's. */
export interface OtlpTrace {
  steps: ForeignStep[];
  spanToStep: Map<string, string>;
  resource: Record<string, Json>;
}

/** One trace → a run: parents named by step id, the pipeline and the run id chosen. `traceCount`: traces in the file. */
export function traceRun(traceId: string, trace: OtlpTrace, traceCount: number): ForeignRun {
  // Steps carry span ids as parents; a Traceback export names steps by their own ids.
  for (const step of trace.steps) if (step.parentId !== null) step.parentId = trace.spanToStep.get(step.parentId) ?? step.parentId;
  const resource = trace.resource;
  const stepIds = new Set(trace.steps.map((s) => s.id));
  const root = [...trace.steps].sort((a, b) => a.start - b.start).find((s) => s.parentId === null || !stepIds.has(s.parentId));
  const service = resource['service.name'];
  const pipeline =
    typeof resource['traceback.pipeline'] === 'string'
      ? resource['traceback.pipeline']
      : typeof service === 'string' && service !== '' && !service.startsWith('unknown_service')
        ? service
        : (root?.name ?? 'otlp trace');
  const runId = typeof resource['traceback.run_id'] === 'string' && traceCount === 1 ? resource['traceback.run_id'] : traceId;
  const extra: Record<string, Json> = { otel_trace_id: traceId, otel_resource: resource };
  const run: ForeignRun = { runId, pipeline, format: 'otlp', steps: trace.steps, extra, finished: true };
  const runInput = exportedJson(resource['traceback.run.input']);
  const runOutput = exportedJson(resource['traceback.run.output']);
  if (runInput !== undefined) run.input = runInput;
  if (runOutput !== undefined) run.output = runOutput;
  return run;
}

/** The whole-document import: the reference the streaming import (otlp-stream-import.ts) is tested against. */
export function parseOtlp(text: string, issues: ForeignIssue[]): ForeignRun[] {
  const located = parseRequests(text, issues);
  const traces = new Map<string, OtlpTrace>();
  for (const item of located) {
    const found = spanStep(item, issues);
    if (!found) continue;
    const { traceId, spanId, step } = found;
    let trace = traces.get(traceId);
    if (!trace) traces.set(traceId, (trace = { steps: [], spanToStep: new Map(), resource: item.resource }));
    trace.spanToStep.set(spanId, step.id);
    trace.steps.push(step);
  }
  const runs: ForeignRun[] = [];
  for (const [traceId, trace] of traces) runs.push(traceRun(traceId, trace, traces.size));
  return runs;
}

/** A value a Traceback export wrote as JSON text; undefined when absent or damaged. */
function exportedJson(value: Json | undefined): Json | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    return JSON.parse(value) as Json;
  } catch {
    return undefined;
  }
}
