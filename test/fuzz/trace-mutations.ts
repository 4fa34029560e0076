/**
 * A seeded generator of mutated trace files in every format Traceback reads
 * (issue 12 §7): native JSON Lines, OTLP/JSON (one document, and JSON Lines),
 * LangChain run trees (nested and flat) and chat transcripts. The same seed
 * gives the same files, so a failure found at any size is reproduced by its
 * seed and case number.
 *
 * Two kinds of case:
 * - `lines`: native files where chosen lines are made invalid in ways that
 *   are certain to be invalid (a cut JSON text, a required field of the wrong
 *   type, not an object). The oracle knows every good line and every bad one.
 * - `bytes` and `structure`: any format, damaged at the byte level (flips,
 *   cuts, invalid UTF-8, BOM, NUL, deep nesting) or in its JSON structure
 *   (parent cycles, repeated ids, wrong types, huge strings). The oracle is
 *   that the import neither throws nor hangs and names the file in every problem.
 */
import { mulberry32 } from '../../src-main/demo/seeded-random';
import { syntheticRunRecords, toJsonl } from '../support/synthetic-trace';
import type { TraceRecord } from '../../src-shared/trace-format';

export type FuzzFormat = 'native' | 'otlp-json' | 'otlp-jsonl' | 'langchain-tree' | 'langchain-flat' | 'chat-transcript';
export const FUZZ_FORMATS: FuzzFormat[] = ['native', 'otlp-json', 'otlp-jsonl', 'langchain-tree', 'langchain-flat', 'chat-transcript'];

/** What a good native line must leave in the store. */
export type GoodLine =
  | { kind: 'run-start'; run_id: string; pipeline: string }
  | { kind: 'step-start'; run_id: string; step_id: string; name: string }
  | { kind: 'step-end'; run_id: string; step_id: string; status: 'ok' | 'error' }
  | { kind: 'verdict'; run_id: string; pass: boolean }
  | { kind: 'other'; run_id: string };

export interface FuzzCase {
  index: number;
  /** File name, with an extension the inbox watcher accepts. */
  name: string;
  format: FuzzFormat;
  kind: 'lines' | 'bytes' | 'structure';
  mutation: string;
  bytes: Buffer;
  /** `lines` cases only: 1-based line → what it must leave; and the lines that must be reported. */
  goodLines?: Map<number, GoodLine>;
  badLines?: number[];
}

type Rng = () => number;
const int = (r: Rng, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];

const NASTY_STRINGS = ['\u001b[31mred\u001b[0m', 'cr\roverwrite', '\u202eevil', 'nul\u0000byte', '\ud800', '😀'.repeat(50), '', ' ', '"quoted"', '\\', 'x'.repeat(70_000), '{"nested":"json"}', '../../etc/passwd', '<script>alert(1)</script>'];

function nastyValue(r: Rng): unknown {
  switch (int(r, 0, 9)) {
    case 0:
      return null;
    case 1:
      return pick(r, [0, -1, 1e308, -1e308, 2 ** 53 + 1, 0.1]);
    case 2:
      return pick(r, NASTY_STRINGS);
    case 3:
      return [];
    case 4:
      return {};
    case 5: {
      // Deep nesting (built iteratively, stringified by the caller's JSON.stringify only up to a safe depth).
      let v: unknown = 'bottom';
      for (let i = 0, n = int(r, 100, 3000); i < n; i++) v = [v];
      return v;
    }
    case 6:
      return true;
    case 7:
      return Array.from({ length: int(r, 1, 50) }, () => pick(r, NASTY_STRINGS));
    case 8:
      return { __proto__: { polluted: true }, constructor: 'x' };
    default:
      return 'a'.repeat(int(r, 1, 200));
  }
}

// ---- base documents ----------------------------------------------------------------------------

function nativeBase(r: Rng, prefix: string): TraceRecord[] {
  const runs = int(r, 1, 3);
  const out: TraceRecord[] = [];
  for (let i = 0; i < runs; i++) {
    const runId = `${prefix}-r${i}`;
    const recs = syntheticRunRecords({ runId, steps: int(r, 1, 25), pipeline: `fuzz-${int(r, 0, 3)}`, unfinished: r() < 0.2, failAt: r() < 0.3 ? 0 : undefined });
    if (r() < 0.5) recs.push({ type: 'verdict', run_id: runId, pass: r() < 0.5, detail: 'fuzz' } as TraceRecord);
    if (r() < 0.3) recs.push({ type: 'score', run_id: runId, name: 'quality', value: r() } as TraceRecord);
    out.push(...recs);
  }
  return out;
}

const hex = (n: number, bytes: number) => (n >>> 0).toString(16).padStart(bytes * 2, '0').slice(-bytes * 2);

function otlpSpans(r: Rng, traceNo: number): Record<string, unknown>[] {
  const n = int(r, 1, 40);
  const t0 = 1_700_000_000_000_000_000;
  return Array.from({ length: n }, (_, i) => {
    const kind = pick(r, ['llm', 'tool', 'chain', 'retriever']);
    return {
      traceId: hex(traceNo, 4).padStart(32, '0'),
      spanId: hex(i + 1, 8),
      ...(i > 0 ? { parentSpanId: hex(int(r, 1, i), 8) } : {}),
      name: `${kind} ${i}`,
      kind: int(r, 0, 5),
      startTimeUnixNano: String(t0 + i * 1_000_000),
      endTimeUnixNano: r() < 0.1 ? '0' : String(t0 + i * 1_000_000 + 500_000),
      attributes: [
        { key: 'openinference.span.kind', value: { stringValue: kind.toUpperCase() } },
        { key: 'input.value', value: { stringValue: `question ${i}` } },
        { key: 'output.value', value: { stringValue: `answer ${i}` } },
        ...(kind === 'llm' ? [{ key: 'gen_ai.usage.input_tokens', value: { intValue: String(int(r, 1, 999)) } }] : []),
      ],
      status: r() < 0.2 ? { code: 2, message: 'Error: boom' } : { code: 1 },
    };
  });
}

const otlpRequest = (spans: Record<string, unknown>[]) => ({
  resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'fuzz' } }] }, scopeSpans: [{ scope: { name: 'fuzz' }, spans }] }],
});

function langchainRun(r: Rng, id: string, depth: number): Record<string, unknown> {
  const children = depth > 0 ? Array.from({ length: int(r, 0, 3) }, (_, i) => langchainRun(r, `${id}.${i}`, depth - 1)) : [];
  const type = pick(r, ['chain', 'llm', 'tool', 'retriever']);
  return {
    id,
    name: `${type}-${id}`,
    run_type: type,
    start_time: `2026-01-01T00:00:${String(int(r, 0, 59)).padStart(2, '0')}Z`,
    end_time: '2026-01-01T00:01:00Z',
    inputs: { input: `in ${id}` },
    outputs: type === 'llm' ? { generations: [[{ text: `out ${id}` }]] } : { output: `out ${id}` },
    ...(r() < 0.1 ? { error: 'ValueError: bad' } : {}),
    child_runs: children,
  };
}

function flatten(run: Record<string, unknown>, parent: string | null, out: Record<string, unknown>[]): void {
  // Iterative: bases are shallow, but this file practices what it tests.
  const stack: [Record<string, unknown>, string | null][] = [[run, parent]];
  while (stack.length) {
    const [node, p] = stack.pop()!;
    const { child_runs, ...rest } = node;
    out.push({ ...rest, ...(p ? { parent_run_id: p } : {}) });
    for (const c of (child_runs as Record<string, unknown>[]) ?? []) stack.push([c, node.id as string]);
  }
}

function chatBase(r: Rng): unknown {
  const n = int(r, 1, 12);
  return Array.from({ length: n }, (_, i) =>
    i % 3 === 2
      ? { role: 'tool', name: 'search', content: `result ${i}` }
      : { role: i % 3 === 0 ? 'user' : 'assistant', content: `message ${i}`, ...(i % 3 === 1 && r() < 0.5 ? { tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'search', arguments: '{"q":"x"}' } }] } : {}) },
  );
}

function baseDocument(r: Rng, format: Exclude<FuzzFormat, 'native'>, prefix: string): { text: string; doc: unknown } {
  const traceNo = int(r, 1, 2 ** 31);
  switch (format) {
    case 'otlp-json': {
      const doc = otlpRequest(otlpSpans(r, traceNo));
      return { doc, text: JSON.stringify(doc) };
    }
    case 'otlp-jsonl': {
      const spans = otlpSpans(r, traceNo);
      const docs = [];
      for (let i = 0; i < spans.length; i += 5) docs.push(otlpRequest(spans.slice(i, i + 5)));
      return { doc: docs, text: docs.map((d) => JSON.stringify(d)).join('\n') + '\n' };
    }
    case 'langchain-tree': {
      const doc = langchainRun(r, `${prefix}-lc`, int(r, 0, 4));
      return { doc, text: JSON.stringify(doc) };
    }
    case 'langchain-flat': {
      const flat: Record<string, unknown>[] = [];
      flatten(langchainRun(r, `${prefix}-lf`, int(r, 1, 4)), null, flat);
      return { doc: flat, text: JSON.stringify(flat) };
    }
    case 'chat-transcript': {
      const doc = chatBase(r);
      return { doc, text: JSON.stringify(doc) };
    }
  }
}

// ---- mutations -------------------------------------------------------------------------------

/** A line made certainly invalid, and how. */
function breakLine(r: Rng, line: string, rec: Record<string, unknown>): { text: string; how: string } {
  switch (int(r, 0, 4)) {
    case 0:
      // A proper prefix of a JSON object text is never valid JSON.
      return { text: line.slice(0, int(r, 1, line.length - 1)), how: 'cut' };
    case 1:
      return { text: JSON.stringify({ ...rec, run_id: pick(r, [42, null, '', [], {}]) }), how: 'run_id of the wrong type' };
    case 2:
      return { text: JSON.stringify([rec]), how: 'not an object' };
    case 3:
      return { text: `\u0000${line}`, how: 'a NUL before the record' };
    default:
      return { text: JSON.stringify({ ...rec, type: undefined }), how: 'no type' };
  }
}

function goodLineOf(rec: Record<string, unknown>): GoodLine {
  const run_id = rec.run_id as string;
  switch (rec.type) {
    case 'run-start':
      return { kind: 'run-start', run_id, pipeline: rec.pipeline as string };
    case 'step-start':
      return { kind: 'step-start', run_id, step_id: rec.step_id as string, name: rec.name as string };
    case 'step-end':
      return { kind: 'step-end', run_id, step_id: rec.step_id as string, status: rec.status as 'ok' | 'error' };
    case 'verdict':
      return { kind: 'verdict', run_id, pass: rec.pass as boolean };
    default:
      return { kind: 'other', run_id };
  }
}

function linesCase(r: Rng, index: number, prefix: string): FuzzCase {
  const recs = nativeBase(r, prefix) as unknown as Record<string, unknown>[];
  const lines = recs.map((x) => JSON.stringify(x));
  const bad = new Set<number>();
  const k = int(r, 1, Math.max(1, Math.floor(lines.length / 3)));
  for (let i = 0; i < k; i++) bad.add(int(r, 0, lines.length - 1));
  // A run-start of the first run broken would leave later records of that run under "(unknown pipeline)": still kept.
  const goodLines = new Map<number, GoodLine>();
  const hows: string[] = [];
  const out = lines.map((line, i) => {
    if (!bad.has(i)) {
      goodLines.set(i + 1, goodLineOf(recs[i]));
      return line;
    }
    const b = breakLine(r, line, recs[i]);
    hows.push(b.how);
    return b.text;
  });
  const crlf = r() < 0.2;
  const text = out.join(crlf ? '\r\n' : '\n') + (r() < 0.9 ? '\n' : '');
  return {
    index,
    name: `${prefix}.jsonl`,
    format: 'native',
    kind: 'lines',
    mutation: `${bad.size} broken line(s): ${[...new Set(hows)].join(', ')}${crlf ? '; CRLF' : ''}`,
    bytes: Buffer.from(text),
    goodLines,
    badLines: [...bad].map((i) => i + 1).sort((a, b) => a - b),
  };
}

function byteMutation(r: Rng, bytes: Buffer): { bytes: Buffer; how: string } {
  const b = Buffer.from(bytes);
  switch (int(r, 0, 8)) {
    case 0: {
      const n = int(r, 1, 20);
      for (let i = 0; i < n && b.length; i++) b[int(r, 0, b.length - 1)] ^= 1 << int(r, 0, 7);
      return { bytes: b, how: `${n} bit flip(s)` };
    }
    case 1:
      return { bytes: b.subarray(0, int(r, 0, b.length)), how: 'cut short' };
    case 2: {
      const at = int(r, 0, b.length);
      return { bytes: Buffer.concat([b.subarray(0, at), Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xe2, 0x82]), b.subarray(at)]), how: 'invalid UTF-8 inserted' };
    }
    case 3:
      return { bytes: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), b]), how: 'BOM' };
    case 4: {
      const at = int(r, 0, b.length);
      const n = int(r, 100, 6000);
      return { bytes: Buffer.concat([b.subarray(0, at), Buffer.from('['.repeat(n)), b.subarray(at)]), how: `${n} brackets inserted` };
    }
    case 5: {
      const from = int(r, 0, b.length);
      const to = Math.min(b.length, from + int(r, 1, 2000));
      return { bytes: Buffer.concat([b.subarray(0, to), b.subarray(from, to), b.subarray(to)]), how: 'a slice repeated' };
    }
    case 6: {
      const at = int(r, 0, b.length);
      return { bytes: Buffer.concat([b.subarray(0, at), Buffer.alloc(int(r, 1, 64)), b.subarray(at)]), how: 'NUL bytes' };
    }
    case 7:
      return { bytes: Buffer.from(b.toString('latin1').replace(/\n/g, '\r\n'), 'latin1'), how: 'CRLF' };
    default:
      return { bytes: Buffer.concat([Buffer.from('x'.repeat(int(r, 1, 200_000)) + '\n'), b]), how: 'a junk first line' };
  }
}

/** Every object and array in a JSON value, found without recursion (with its parent, to replace it). */
function containers(doc: unknown): { parent: Record<string, unknown> | unknown[]; key: string | number; value: unknown }[] {
  const out: { parent: Record<string, unknown> | unknown[]; key: string | number; value: unknown }[] = [];
  const stack: unknown[] = [doc];
  while (stack.length && out.length < 5000) {
    const v = stack.pop();
    if (typeof v !== 'object' || v === null) continue;
    const entries: [string | number, unknown][] = Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v);
    for (const [k, x] of entries) {
      out.push({ parent: v as Record<string, unknown>, key: k, value: x });
      stack.push(x);
    }
  }
  return out;
}

function structureMutation(r: Rng, format: FuzzFormat, doc: unknown): { doc: unknown; how: string } {
  const all = containers(doc);
  const parents = all.filter((c) => typeof c.value === 'object' && c.value !== null && !Array.isArray(c.value)) as { value: Record<string, unknown> }[];
  switch (int(r, 0, 5)) {
    case 0: {
      // Parent cycles: point some nodes' parents at other nodes (OTLP parentSpanId, LangChain parent_run_id).
      const withId = parents.map((p) => p.value).filter((o) => typeof o.spanId === 'string' || typeof o.id === 'string');
      for (let i = 0, n = int(r, 1, 4); i < n && withId.length > 1; i++) {
        const a = pick(r, withId);
        const b = pick(r, withId);
        if (typeof a.spanId === 'string') a.parentSpanId = b.spanId;
        else a.parent_run_id = b.id;
        if (typeof b.spanId === 'string') b.parentSpanId = a.spanId;
        else b.parent_run_id = a.id;
      }
      return { doc, how: 'parent cycles' };
    }
    case 1: {
      const withId = parents.map((p) => p.value).filter((o) => typeof o.spanId === 'string' || typeof o.id === 'string' || typeof o.step_id === 'string');
      for (let i = 0, n = int(r, 1, 5); i < n && withId.length > 1; i++) {
        const a = pick(r, withId);
        const b = pick(r, withId);
        for (const k of ['spanId', 'id', 'step_id']) if (k in a && k in b) a[k] = b[k];
      }
      return { doc, how: 'repeated ids' };
    }
    default: {
      const n = int(r, 1, 6);
      for (let i = 0; i < n && all.length; i++) {
        const c = pick(r, all);
        (c.parent as Record<string | number, unknown>)[c.key] = nastyValue(r);
      }
      return { doc, how: `${n} value(s) replaced by hostile ones (${format})` };
    }
  }
}

/** JSON.stringify that survives the deep values nastyValue makes (they are cut to a safe depth, marked). */
function safeStringify(v: unknown): string {
  try {
    return JSON.stringify(v);
  } catch {
    return JSON.stringify(v, (_k, x) => (Array.isArray(x) && x.length === 1 && Array.isArray(x[0]) ? '[deep]' : x));
  }
}

const EXT: Record<FuzzFormat, string> = { native: 'jsonl', 'otlp-json': 'json', 'otlp-jsonl': 'jsonl', 'langchain-tree': 'json', 'langchain-flat': 'json', 'chat-transcript': 'json' };

/** The `index`-th case of the corpus for `seed`: each case has its own generator, so any case is made alone. */
export function fuzzCase(seed: number, index: number): FuzzCase {
  const r = mulberry32((seed * 0x9e3779b1 + index * 0x85ebca6b) >>> 0);
  const format = FUZZ_FORMATS[index % FUZZ_FORMATS.length];
  const prefix = `f${seed}-${index}`;
  if (format === 'native' && r() < 0.6) return linesCase(r, index, prefix);
  const kind: FuzzCase['kind'] = r() < 0.5 ? 'bytes' : 'structure';
  let text: string;
  let doc: unknown;
  if (format === 'native') {
    const recs = nativeBase(r, prefix);
    doc = recs;
    text = toJsonl(recs);
  } else ({ text, doc } = baseDocument(r, format, prefix));
  const name = `${prefix}.${EXT[format]}`;
  if (kind === 'bytes') {
    const m = byteMutation(r, Buffer.from(text));
    return { index, name, format, kind, mutation: m.how, bytes: m.bytes };
  }
  const m = structureMutation(r, format, doc);
  const out = format === 'native' || format === 'otlp-jsonl' ? (m.doc as unknown[]).map(safeStringify).join('\n') + '\n' : safeStringify(m.doc);
  return { index, name, format, kind, mutation: m.how, bytes: Buffer.from(out) };
}
