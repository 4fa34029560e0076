/**
 * LangChain / LangSmith run trees → ForeignRuns. Accepts a root run with
 * nested `child_runs` (what LangChain's tracers hold and LangSmith's run
 * tree download gives), an array of such roots, or a flat list of runs
 * linked by `parent_run_id` (LangSmith's runs export). Times may be epoch
 * ms or ISO strings (LangSmith writes ISO without a zone, meaning UTC).
 */
import type { Json, StepType, TokenUsage, TraceError } from '../../../../src-shared/trace-format';
import { isObject, messageFromLangChain, messagesJson, simplifyLangChain, type ChatMessage } from '../foreign/chat-messages';
import type { ForeignIssue, ForeignRun, ForeignStep } from '../foreign/foreign-run';
import { assignTraces, childPath, rootStep, sortRunSteps, tieOrderOf, topPath, type TopShape } from './run-tree-order';
import { documentErrorIssue, firstJsonSyntaxError, valueLinesAt } from '../foreign/json-text-places';
import { usableTimeMs } from '../../../../src-shared/usable-time';
import { renamedCopyIssue, renameRepeatedIds } from './repeated-run-ids';
import { assignOwn, ownValue, setOwn } from '../../../../src-shared/own-property';

export type LcRun = Record<string, Json>;

const RUN_TYPES: Record<string, StepType> = {
  llm: 'llm',
  chat_model: 'llm',
  retriever: 'retrieval',
  embedding: 'retrieval',
  tool: 'tool',
  prompt: 'prompt',
  chain: 'generic',
  parser: 'generic',
  agent: 'agent',
};

export function looksLikeLangChainRun(value: unknown): boolean {
  return isObject(value) && typeof value.run_type === 'string' && (typeof value.id === 'string' || typeof value.name === 'string');
}

export function timeMs(value: Json | undefined): number | null {
  // A time a Date cannot hold (1e300) is no time: the run is named and skipped as with none (src-shared/usable-time.ts).
  if (typeof value === 'number') return usableTimeMs(value);
  if (typeof value !== 'string' || value === '') return null;
  const iso = /[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value}Z`;
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return null;
  // Date.parse keeps milliseconds only; LangSmith writes microseconds.
  const micro = /\.\d{3}(\d{1,3})/.exec(value);
  return micro ? usableTimeMs(ms + Number(micro[1].padEnd(3, '0')) / 1000) : ms;
}

/** LangChain tracers store errors as "message\n\nError: message\n    at …". */
function errorOf(raw: Json | undefined): TraceError | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  const text = typeof raw === 'string' ? raw : JSON.stringify(raw);
  const split = text.indexOf('\n\n');
  const message = split >= 0 ? text.slice(0, split) : text;
  const stack = split >= 0 ? text.slice(split + 2) : undefined;
  const typeMatch = stack ? /^([A-Za-z_$][\w$.]*(?:Error|Exception|Error\w*)):/.exec(stack) : /^([A-Za-z_$][\w$.]*(?:Error|Exception)):/.exec(message);
  const error: TraceError = { type: typeMatch ? typeMatch[1] : 'Error', message };
  if (stack) error.stack = stack;
  const status = /^([45]\d\d) [A-Za-z]/.exec(message);
  if (status) error.status = Number(status[1]);
  return error;
}

function generationMessage(outputs: Json | undefined): { message: ChatMessage | null; text: string | null; generation: Record<string, Json> | null } {
  if (!isObject(outputs) || !Array.isArray(outputs.generations)) return { message: null, text: null, generation: null };
  const first = outputs.generations.flat(2).find(isObject) as Record<string, Json> | undefined;
  if (!first) return { message: null, text: null, generation: null };
  const message = isObject(first.message) ? messageFromLangChain(first.message) : null;
  return { message, text: typeof first.text === 'string' ? first.text : null, generation: first };
}

function llmFacts(run: LcRun): { input?: Json; output?: Json; model?: string; usage?: TokenUsage; finish?: string } {
  const inputs = run.inputs;
  let input: Json | undefined;
  if (isObject(inputs) && Array.isArray(inputs.messages)) {
    // Chat models receive a batch of message lists; a batch of one is the common case.
    const batch = (inputs.messages.length && Array.isArray(inputs.messages[0]) ? inputs.messages : [inputs.messages]) as Json[][];
    const lists: Json[] = batch.map((list) =>
      list.map((m) => {
        const message = isObject(m) ? messageFromLangChain(m) : null;
        return message ? messagesJson([message])[0] : simplifyLangChain(m);
      }),
    );
    input = lists.length === 1 ? { messages: lists[0] } : { batches: lists };
  } else if (inputs !== undefined) input = simplifyLangChain(inputs);

  const { message, text, generation } = generationMessage(run.outputs);
  const output: Json | undefined = message ? messagesJson([message])[0] : text !== null ? text : run.outputs !== undefined ? simplifyLangChain(run.outputs) : undefined;

  const kwargs = generation && isObject(generation.message) && isObject(generation.message.kwargs) ? generation.message.kwargs : {};
  const responseMetadata = isObject(kwargs.response_metadata) ? kwargs.response_metadata : {};
  const usageMetadata = isObject(kwargs.usage_metadata) ? kwargs.usage_metadata : null;
  const llmOutput = isObject(run.outputs) && isObject(run.outputs.llmOutput) ? run.outputs.llmOutput : {};
  const tokenUsage = isObject(llmOutput.tokenUsage) ? llmOutput.tokenUsage : isObject(responseMetadata.tokenUsage) ? responseMetadata.tokenUsage : null;
  const usage: TokenUsage = {};
  const n = (v: Json | undefined) => (typeof v === 'number' ? v : undefined);
  const inTok = n(usageMetadata?.input_tokens) ?? n(tokenUsage?.promptTokens);
  const outTok = n(usageMetadata?.output_tokens) ?? n(tokenUsage?.completionTokens);
  const total = n(usageMetadata?.total_tokens) ?? n(tokenUsage?.totalTokens);
  if (inTok !== undefined) usage.input_tokens = inTok;
  if (outTok !== undefined) usage.output_tokens = outTok;
  if (total !== undefined) usage.total_tokens = total;

  const extra = isObject(run.extra) ? run.extra : {};
  const invocation = isObject(extra.invocation_params) ? extra.invocation_params : {};
  const meta = isObject(extra.metadata) ? extra.metadata : {};
  const model = [responseMetadata.model_name, invocation.model, invocation.model_name, meta.ls_model_name].find((v): v is string => typeof v === 'string' && v !== '');
  const info = generation && isObject(generation.generationInfo) ? generation.generationInfo : {};
  const finish = [responseMetadata.finish_reason, info.finish_reason].find((v): v is string => typeof v === 'string');
  return { input, output, model, usage: Object.keys(usage).length ? usage : undefined, finish };
}

/**
 * Whether a run cannot become a step (no id, or no start time), reported at its path. Its children are
 * still read: they name it as their parent, which then is missing.
 */
export function skippedRun(run: LcRun, path: string, line: number, issues: ForeignIssue[]): boolean {
  const id = typeof run.id === 'string' && run.id !== '' ? run.id : null;
  if (id && timeMs(run.start_time) !== null) return false;
  issues.push({ line, level: 'error', message: `${path}: ${!id ? 'no "id"' : 'no valid "start_time"'}; run skipped with its children` });
  return true;
}

/** One LangChain run as a step (its child_runs are not read: they are steps of their own). The whole-document parser and the streaming import both map runs here. */
export function toStep(run: LcRun, parentId: string | null, path: string, line: number, issues: ForeignIssue[]): ForeignStep | null {
  if (skippedRun(run, path, line, issues)) return null;
  const id = run.id as string;
  const start = timeMs(run.start_time)!;
  const runType = typeof run.run_type === 'string' ? run.run_type : 'chain';
  const type = ownValue(RUN_TYPES, runType) ?? 'generic';
  const error = errorOf(run.error);
  const startMetadata: Record<string, Json> = { run_type: runType };
  const endMetadata: Record<string, Json> = {};
  const extra = isObject(run.extra) ? run.extra : {};
  if (isObject(extra.metadata)) assignOwn(startMetadata, extra.metadata);
  // Everything LangChain recorded, except the children (they are steps of their own).
  const attributes: Record<string, Json> = {};
  for (const [k, v] of Object.entries(run)) if (k !== 'child_runs') setOwn(attributes, k, v);
  startMetadata.attributes = attributes;

  let input: Json | undefined;
  let output: Json | undefined;
  let model: string | undefined;
  let usage: TokenUsage | undefined;
  if (type === 'llm') {
    const f = llmFacts(run);
    ({ input, output, model, usage } = f);
    if (f.finish) endMetadata.finish_reason = f.finish;
  } else {
    input = run.inputs !== undefined ? simplifyLangChain(run.inputs) : undefined;
    output = run.outputs !== undefined && run.outputs !== null ? simplifyLangChain(run.outputs) : undefined;
    if (type === 'retrieval' && isObject(output) && Array.isArray(output.documents)) output = output.documents;
    if (type === 'retrieval' && isObject(input) && typeof input.query === 'string') input = input.query;
    // A tool's result arrives wrapped as {output: ToolMessage}; the message content is the result.
    if (type === 'tool' && isObject(output) && isObject(output.output) && typeof output.output.role === 'string' && 'content' in output.output) {
      if (typeof output.output.tool_call_id === 'string') startMetadata.tool_call_id = output.output.tool_call_id;
      output = output.output.content;
    }
    if (type === 'tool' && typeof extra.tool_call_id === 'string') startMetadata.tool_call_id = extra.tool_call_id;
  }
  const end = timeMs(run.end_time);
  return {
    id,
    parentId,
    name: typeof run.name === 'string' && run.name !== '' ? run.name : runType,
    type,
    start,
    end,
    status: error ? 'error' : 'ok',
    ...(input !== undefined ? { input } : {}),
    ...(output !== undefined ? { output } : {}),
    ...(error ? { error } : {}),
    ...(model ? { model } : {}),
    ...(usage ? { usage } : {}),
    startMetadata,
    endMetadata,
    position: { line, path },
  };
}

/** The line on which each `"id": "…"` value first appears, for messages about a pretty-printed file. */
function idLines(text: string): Map<string, number> {
  const lines = new Map<string, number>();
  const re = /"id"\s*:\s*"([^"]*)"|\n/g;
  let line = 1;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[0] === '\n') line++;
    else if (!lines.has(m[1])) lines.set(m[1], line);
  }
  return lines;
}

/** A value's place in the document: the key or index that holds it, below the place above (null: the document). */
type Place = { up: Place; key: string | number } | null;

function placeKeys(at: Place): (string | number)[] {
  const keys: (string | number)[] = [];
  for (let p = at; p; p = p.up) keys.push(p.key);
  return keys.reverse();
}

/** A value where a run should be that is not one, named at the line it starts on. */
export function notRunIssue(path: string, line: number): ForeignIssue {
  return { line, level: 'error', message: `${path}: not a LangChain run (no "run_type"); skipped` };
}

type FlatRun = { run: LcRun; parentId: string | null; path: string; nestedIn: number; at: Place };
type FlatStep = { f: FlatRun; step: ForeignStep; trace: string | undefined };

/**
 * Copies of a run id in other trees given ids of their own (repeated-run-ids.ts), their children following them,
 * each named at the line its run starts on. `stepOf`: which of `steps` each of `flat` became (-1: not a step).
 */
function renameCopies(text: string, flat: FlatRun[], steps: FlatStep[], stepOf: Int32Array, issues: ForeignIssue[]): void {
  const taken = new Set<string>();
  for (const f of flat) if (typeof f.run.id === 'string') taken.add(f.run.id);
  for (const s of steps) {
    if (s.step.parentId !== null) taken.add(s.step.parentId);
    if (s.trace !== undefined) taken.add(s.trace);
  }
  const copies = renameRepeatedIds<string>(
    {
      count: steps.length,
      id: (i) => steps[i].step.id,
      parent: (i) => steps[i].step.parentId,
      recordedTrace: (i) => steps[i].trace,
      nestedIn: (i) => (steps[i].f.nestedIn === -1 ? -1 : stepOf[steps[i].f.nestedIn]),
    },
    (id, k) => `${id}~${k}`,
    (id) => taken.has(id),
  );
  if (!copies.renamed.length) return;
  const lines = valueLinesAt(text, copies.renamed.map((r) => placeKeys(steps[r.step].f.at)));
  // A step's line is where its id first appears: for a new id, where the copy that got it starts.
  const lineOfId = new Map(copies.renamed.map((r, k) => [r.to, lines[k] ?? 1]));
  for (const r of copies.renamed) issues.push(renamedCopyIssue(r.from, r.to, lineOfId.get(r.to)!));
  for (const [i, id] of copies.ids) {
    steps[i].step.id = id;
    steps[i].step.position.line = lineOfId.get(id)!;
  }
  for (const [i, parent] of copies.parents) steps[i].step.parentId = parent;
  for (const [i, trace] of copies.traces) steps[i].trace = trace;
}

export function parseLangChain(text: string, fileName: string, issues: ForeignIssue[]): ForeignRun[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    // JSON.parse words some errors without a position: the scanner finds the line and column.
    const at = firstJsonSyntaxError(text);
    issues.push(at ? documentErrorIssue(at) : { line: 1, level: 'error', message: `not valid JSON (${(error as Error).message})` });
    return [];
  }
  const shape: TopShape = Array.isArray(doc) ? 'array' : isObject(doc) && Array.isArray(doc.runs) ? 'runs' : 'single';
  const top: unknown[] = Array.isArray(doc) ? doc : isObject(doc) && Array.isArray(doc.runs) ? doc.runs : [doc];
  // Flatten nested child_runs; every run keeps its parent's id, and which of `flat` holds it (-1 at the top).
  const flat: FlatRun[] = [];
  // An explicit stack, not recursion: child_runs may nest thousands deep. Every level is kept; a path
  // deeper than PATH_DEPTH is shortened (paths only locate a run in messages). `at` is the value's place as
  // keys, spelt out only for a value that is not a run (its message names the line it starts on).
  const stack: { value: unknown; parentId: string | null; path: string; depth: number; at: Place; nestedIn: number }[] = [];
  const topPlace: Place | null = shape === 'runs' ? { up: null, key: 'runs' } : null;
  for (let i = top.length - 1; i >= 0; i--) stack.push({ value: top[i], parentId: null, path: topPath(shape, i), depth: 0, at: shape === 'single' ? null : { up: topPlace, key: i }, nestedIn: -1 });
  const notRuns: { path: string; keys: (string | number)[] }[] = [];
  while (stack.length) {
    const { value, parentId, path, depth, at, nestedIn } = stack.pop()!;
    if (!looksLikeLangChainRun(value)) {
      notRuns.push({ path, keys: placeKeys(at) });
      continue;
    }
    const run = value as LcRun;
    const explicitParent = typeof run.parent_run_id === 'string' && run.parent_run_id !== '' ? run.parent_run_id : null;
    flat.push({ run, parentId: parentId ?? explicitParent, path, nestedIn, at });
    const holder = flat.length - 1;
    if (!Array.isArray(run.child_runs)) continue;
    const children: Place = { up: at, key: 'child_runs' };
    for (let i = run.child_runs.length - 1; i >= 0; i--) {
      stack.push({ value: run.child_runs[i], parentId: typeof run.id === 'string' ? run.id : null, path: childPath(path, depth, i), depth: depth + 1, at: { up: children, key: i }, nestedIn: holder });
    }
  }
  if (notRuns.length) {
    const lines = valueLinesAt(text, notRuns.map((r) => r.keys));
    notRuns.forEach((r, i) => issues.push(notRunIssue(r.path, lines[i] ?? 1)));
  }

  const lines = idLines(text);
  const lineOf = (id: Json | undefined) => (typeof id === 'string' ? (lines.get(id) ?? 1) : 1);
  const steps: FlatStep[] = [];
  // Which of `steps` each of `flat` became (-1: not a step).
  const stepOf = new Int32Array(flat.length).fill(-1);
  flat.forEach((f, k) => {
    const step = toStep(f.run, f.parentId, f.path, lineOf(f.run.id), issues);
    const trace = typeof f.run.trace_id === 'string' && f.run.trace_id !== '' ? f.run.trace_id : undefined;
    if (step) stepOf[k] = steps.push({ f, step, trace }) - 1;
  });
  renameCopies(text, flat, steps, stepOf, issues);
  const traceIds = assignTraces({
    count: steps.length,
    id: (i) => steps[i].step.id,
    parent: (i) => steps[i].step.parentId,
    recordedTrace: (i) => steps[i].trace,
  });
  const members = new Map<string, number[]>();
  traceIds.forEach((traceId, i) => {
    const list = members.get(traceId);
    if (list) list.push(i);
    else members.set(traceId, [i]);
  });
  // Runs that start in the same millisecond keep LangChain's own start order
  // (dotted_order, or execution_order), whatever order the file lists them in.
  const tieById = new Map(steps.map((e) => [e.step.id, tieOrderOf(e.f.run)]));
  const id = (i: number) => steps[i].step.id;
  const parent = (i: number) => steps[i].step.parentId;
  return [...members].map(([traceId, list]) => {
    const sorted = sortRunSteps(list, (i) => steps[i].step.start, (i) => tieById.get(id(i))!);
    const root = rootStep(sorted, id, parent);
    return {
      runId: traceId,
      pipeline: root !== undefined ? steps[root].step.name : 'langchain run',
      format: 'langchain',
      steps: sorted.map((i) => steps[i].step),
      extra: { source_file_name: fileName },
      finished: true,
    };
  });
}
