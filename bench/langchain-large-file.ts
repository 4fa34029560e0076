/**
 * The memory and time of the LangChain run-tree import: a generated file of
 * ~200 MB (TB_BENCH_LC_MB to change it) imported in a child process, streamed
 * (langchain/run-tree-stream-import.ts) and whole (JSON.parse of the file),
 * each printing its peak RSS (process.resourceUsage().maxRSS) and times.
 * The file is an array of root runs written as LangChain JS's tracer writes
 * them (run_type, outputs and end_time after child_runs, so a run is complete
 * only after its children): the shape that makes the stream work in rounds.
 *
 * `npx tsx bench/langchain-large-file.ts` runs it; the child is
 * bench/import-in-child.ts. TB_BENCH_LC_STREAM_ONLY=1 leaves the whole import
 * out: at 500 MB it holds ~10× the file and takes minutes, while the figure
 * the goal names (≤ 300 MB at 500 MB) is the streamed one's.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { measureImportInChild, type ChildImport } from './import-in-child';

/** Children of each root; each child has one nested model call. */
const CHILDREN = 40;
const T0 = 1_790_000_000_000;

function uuid(trace: number, i: number): string {
  const h = (trace * 1000 + i).toString(16).padStart(12, '0');
  return `0190aaaa-bbbb-7ccc-8ddd-${h}`;
}

/** One run as LangChain JS's tracer serializes it: members up to child_runs, the children, then the rest. */
function runJson(trace: number, i: number, parent: string | null, kind: 'chain' | 'tool' | 'llm', start: number, end: number, children: string[]): string {
  const id = uuid(trace, i);
  const question = `What does ledger entry ${trace}.${i} say about the quarterly totals of the northern region, and which invoices are still open?`;
  const answer = `Entry ${trace}.${i} shows ${(trace * 37 + i) % 10007} units shipped, ${(i * 13) % 97} invoices open; the quarter closed ${i % 2 ? 'above' : 'below'} plan by ${(i * 7) % 23}%.`;
  const head = {
    id,
    name: kind === 'chain' ? 'ledger_agent' : kind === 'tool' ? `lookup_${i % 5}` : 'ChatOpenAI',
    ...(parent ? { parent_run_id: parent } : {}),
    start_time: start,
    serialized: { lc: 1, type: 'not_implemented', id: ['langchain_core', 'runnables', kind === 'llm' ? 'ChatOpenAI' : 'RunnableSequence'] },
    events: [{ name: 'start', time: new Date(start).toISOString() }, { name: 'end', time: new Date(end).toISOString() }],
    inputs: kind === 'llm' ? { messages: [[{ lc: 1, type: 'constructor', id: ['langchain_core', 'messages', 'HumanMessage'], kwargs: { content: question, additional_kwargs: {}, response_metadata: {} } }]] } : { input: question },
    execution_order: i + 1,
    child_execution_order: i + 1,
    run_type: kind,
  };
  const tail = {
    extra: { metadata: { thread_id: `thread-${trace}` }, ...(kind === 'llm' ? { invocation_params: { model: 'gpt-4o-mini', temperature: 0 } } : {}) },
    tags: ['bench'],
    trace_id: uuid(trace, 0),
    dotted_order: `${new Date(start).toISOString().replace(/[-:.]/g, '')}${id}`,
    end_time: end,
    outputs:
      kind === 'llm'
        ? { generations: [[{ text: answer, message: { lc: 1, type: 'constructor', id: ['langchain_core', 'messages', 'AIMessage'], kwargs: { content: answer, usage_metadata: { input_tokens: 120 + (i % 40), output_tokens: 40 + (i % 20), total_tokens: 160 + (i % 60) }, response_metadata: { finish_reason: 'stop', model_name: 'gpt-4o-mini' } } } }]] }
        : { output: answer },
  };
  const h = JSON.stringify(head);
  const t = JSON.stringify(tail);
  return `${h.slice(0, -1)},"child_runs":[${children.join(',')}],${t.slice(1)}`;
}

function traceJson(trace: number): string {
  const base = T0 + trace * 60_000;
  const rootId = uuid(trace, 0);
  const children: string[] = [];
  for (let c = 0; c < CHILDREN; c++) {
    const i = 1 + c * 2;
    const start = base + 10 + c * 1000;
    const llm = runJson(trace, i + 1, uuid(trace, i), 'llm', start + 5, start + 800, []);
    children.push(runJson(trace, i, rootId, 'tool', start, start + 900, [llm]));
  }
  return runJson(trace, 0, null, 'chain', base, base + 10 + CHILDREN * 1000, children);
}

/** Writes roots until the file holds `mb` MB; returns how many runs it holds. */
export function writeLargeLangChain(file: string, mb: number): number {
  const fd = fs.openSync(file, 'w');
  let written = 0;
  let traces = 0;
  fs.writeSync(fd, '[');
  while (written < mb * 1e6) {
    const s = (traces ? ',' : '') + traceJson(traces);
    fs.writeSync(fd, s);
    written += Buffer.byteLength(s);
    traces += 1;
  }
  fs.writeSync(fd, ']\n');
  fs.closeSync(fd);
  return traces * (1 + 2 * CHILDREN);
}

function describe(mode: string, c: ChildImport | { failed: string }): string {
  if ('failed' in c) return `${mode}: failed (${c.failed})`;
  return `${mode}: peak RSS ${c.maxRssMb.toFixed(0)} MB, ${c.steps.toLocaleString('en')} steps, ${c.errors} error(s), ${c.cpuMs.toFixed(0)} ms CPU, ${c.wallMs.toFixed(0)} ms wall`;
}

/** The bench's lines: one generated file, imported streamed and whole. */
export function benchLangChainLargeFile(mb = Number(process.env.TB_BENCH_LC_MB ?? 200)): string[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-bench-lc-'));
  try {
    const file = path.join(dir, 'large.langchain.json');
    const runs = writeLargeLangChain(file, mb);
    const size = fs.statSync(file).size / 1e6;
    const stream = measureImportInChild(file, path.join(dir, 'stream.db'), 'stream', 'langchain');
    const lines = [`LangChain run-tree file of ${size.toFixed(0)} MB (${runs.toLocaleString('en')} runs, members after child_runs), child process each:`, `  ${describe('streamed', stream)}`];
    if (process.env.TB_BENCH_LC_STREAM_ONLY !== '1') lines.push(`  ${describe('whole-document', measureImportInChild(file, path.join(dir, 'whole.db'), 'whole', 'langchain'))}`);
    return lines;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(benchLangChainLargeFile().join('\n'));
