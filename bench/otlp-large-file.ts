/**
 * The memory figure of the OTLP import: a generated OTLP/JSON document of
 * ~500 MB (TB_BENCH_OTLP_MB to shrink it) imported in a child process, whose
 * peak RSS (process.resourceUsage().maxRSS) is the figure. One trace, so the
 * whole-run rules see every span: the worst case for memory. The child is
 * bench/import-in-child.ts.
 */
import fs from 'node:fs';
import { measureImportInChild, type ChildImport, type ChildRunner } from './import-in-child';

const KINDS = ['CHAIN', 'LLM', 'TOOL', 'RETRIEVER'] as const;

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}

/**
 * One span as OpenInference instrumentation writes it; parents form a tree 8 wide, in one trace, or with
 * `ownTrace` each span is a trace of its own (a collector's batch of many short requests).
 */
function spanJson(i: number, ownTrace = false): string {
  const kind = KINDS[i % KINDS.length];
  const start = 1_700_000_000_000_000_000n + BigInt(i) * 1_000_000n;
  const attributes: { key: string; value: { stringValue?: string; intValue?: number } }[] = [
    { key: 'openinference.span.kind', value: { stringValue: kind } },
    { key: 'input.value', value: { stringValue: JSON.stringify({ step: i, question: `what does record ${i} of the ledger say about the quarterly totals?` }) } },
    { key: 'input.mime_type', value: { stringValue: 'application/json' } },
    { key: 'output.value', value: { stringValue: JSON.stringify({ answer: `record ${i} shows a total of ${(i * 37) % 10007} units, up from the previous quarter` }) } },
    { key: 'output.mime_type', value: { stringValue: 'application/json' } },
  ];
  if (kind === 'LLM') {
    attributes.push({ key: 'llm.model_name', value: { stringValue: 'gpt-4o-mini' } }, { key: 'llm.token_count.prompt', value: { intValue: 100 + (i % 50) } }, { key: 'llm.token_count.completion', value: { intValue: 20 + (i % 30) } });
  }
  return JSON.stringify({
    traceId: ownTrace ? hex(i + 1, 32) : 'a1b2c3d4e5f60718293a4b5c6d7e8f90',
    spanId: hex(i + 1, 16),
    ...(i > 0 && !ownTrace ? { parentSpanId: hex(Math.floor((i - 1) / 8) + 1, 16) } : {}),
    name: `${kind.toLowerCase()}-${i % 13}`,
    kind: 1,
    startTimeUnixNano: String(start),
    endTimeUnixNano: String(start + 500_000n),
    attributes,
    status: { code: 1 },
  });
}

/** Writes the document a megabyte at a time; returns how many spans it holds. `ownTrace`: each span its own trace. */
export function writeLargeOtlp(file: string, mb: number, ownTrace = false): number {
  const fd = fs.openSync(file, 'w');
  const target = mb * 1e6;
  let written = 0;
  const write = (s: string) => {
    fs.writeSync(fd, s);
    written += Buffer.byteLength(s);
  };
  write('{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"ledger-agent"}}]},"scopeSpans":[{"scope":{"name":"openinference.instrumentation.langchain","version":"0.1.0"},"spans":[');
  let spans = 0;
  let chunk: string[] = [];
  let chunkBytes = 0;
  while (written + chunkBytes < target) {
    const s = spanJson(spans, ownTrace);
    chunk.push(spans === 0 ? s : ',' + s);
    chunkBytes += s.length + 1;
    spans += 1;
    if (chunkBytes > 1e6) {
      write(chunk.join(''));
      chunk = [];
      chunkBytes = 0;
    }
  }
  write(chunk.join('') + ']}]}]}\n');
  fs.closeSync(fd);
  return spans;
}

/** Imports `file` in a fresh process (streaming or whole-document path) and returns its peak RSS and times. */
export function importInChild(file: string, dbFile: string, mode: 'stream' | 'whole', runner: ChildRunner = 'bundled'): ChildImport | { failed: string } {
  return measureImportInChild(file, dbFile, mode, 'otlp', runner);
}
