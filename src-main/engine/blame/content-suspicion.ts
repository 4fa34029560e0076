/**
 * Content suspicion: for a failed run, how likely each step that produced
 * content is to be the decisive mistake, from features a person can check in
 * the trace — never from step names or wording. The features:
 *  - answer_origin: the final answer's distinctive values (numbers, dates,
 *    ids, ...) first appear in this step's output — or in the output of a
 *    tool that executed what this step wrote (the tool was faithful, the
 *    writer was not);
 *  - error_writer: this step wrote the input of the first call whose output
 *    is an error (a traceback, a non-zero exit code, an error payload);
 *  - ungrounded: values this step states that nothing it received or nothing
 *    earlier in the run held (made up, or computed in its head);
 *  - acts: the step's output is an action (code to run, tool calls) rather
 *    than commentary;
 *  - length: how much content the step produced;
 *  - position: how late the step came among the candidates (causes come
 *    before their symptoms).
 * They are combined by a linear score whose weights are in the settings
 * (`blame.suspicion.weights`), fitted on the Who&When development set by
 * bench/blame/fit-suspicion.ts (a conditional logit: one choice per run).
 */
import { hasToolCalls, llmText } from '../text/json-text';
import type { BlameWork } from './finding';
import { NOT_SEEN, RUN_INPUT } from './lineage';
import type { Value } from './value-features';
import { valuesOf } from './value-features';
import { derivable } from './rules-lineage';
import { numbersIn } from './rules-faithful-executor';
import { F_OUTPUT, F_SYNTHETIC, S_ERROR, T_AGENT, T_GENERIC, T_LLM, T_LOOKUP, T_PROMPT } from './step-codes';

export const SUSPICION_FEATURES = ['answer_origin', 'error_writer', 'ungrounded', 'acts', 'length', 'position'] as const;
export type SuspicionFeature = (typeof SUSPICION_FEATURES)[number];

export interface StepSuspicion {
  pos: number;
  features: Record<SuspicionFeature, number>;
  score: number;
  /** Values this step stated first and received from nowhere (for the reason and evidence). */
  ungroundedValues: Value[];
  /** The answer values whose first appearance made this step the answer's origin. */
  originValues: Value[];
  /** The failing call whose input this step wrote (error_writer), or -1. */
  failedCall: number;
}

const CONTENT_TYPES = T_LLM | T_AGENT | T_GENERIC | T_PROMPT;
/** Kinds a model can state wrongly; capitalised names are too common in prose to count as facts on their own. */
const FACT_KINDS = new Set(['number', 'date', 'id', 'email', 'url']);
const CODE_FENCE = /```|^(?:def |class |import |from \S+ import |SELECT |const |function )/m;
/** Does this text hold code (a fenced block, or a line that starts a definition, an import or a query)? */
export function looksLikeCode(text: string): boolean {
  return CODE_FENCE.test(text.length > 50_000 ? text.slice(0, 50_000) : text);
}

/** Candidates scanned for values at most (the latest ones are kept when a run has more). */
const MAX_CANDIDATES = 2000;

/** Steps that produced content of their own: live, not a container of other steps, with output. */
function contentSteps(w: BlameWork): number[] {
  const g = w.graph;
  const out: number[] = [];
  for (let p = 0; p < g.steps.length; p++) {
    if (!g.live[p] || (g.types[p] & CONTENT_TYPES) === 0 || (g.facts[p] & F_OUTPUT) === 0) continue;
    if (hasLiveChild(g, p)) continue;
    if (g.facts[p] & F_SYNTHETIC) continue;
    out.push(p);
  }
  return out.length > MAX_CANDIDATES ? out.slice(out.length - MAX_CANDIDATES) : out;
}

function hasLiveChild(g: BlameWork['graph'], p: number): boolean {
  for (let i = 0, k = g.children.count(p); i < k; i++) if (g.live[g.children.at(p, i)]) return true;
  return false;
}

function textOf(w: BlameWork, p: number): string {
  const s = w.graph.steps[p];
  return s.type === 'llm' ? llmText(s.output) || w.lineage.outTextOf(p) : w.lineage.outTextOf(p);
}

/** The writer of a lookup's input: the latest content step it drew on, else the content step just before it. */
function writerOf(w: BlameWork, p: number, candidates: Set<number>): number {
  let best = -1;
  for (const c of w.lineage.inProducers.of(p)) if (c >= 0 && candidates.has(c) && c > best) best = c;
  if (best >= 0) return best;
  for (let c = p - 1; c >= 0; c--) if (candidates.has(c)) return c;
  return -1;
}

function isErrorShaped(w: BlameWork, p: number): boolean {
  if (w.graph.statuses[p] === S_ERROR) return true;
  const checks = w.assess[p].checks;
  for (let i = 0; i < checks.length; i++) if (checks[i].hard && checks[i].name === 'tool.error_payload') return true;
  return false;
}

/** Rows per prepared run: an asserted failure asks twice (findings, then the filled ranking). */
const computed = new WeakMap<BlameWork, StepSuspicion[]>();

export function suspicionOf(w: BlameWork): StepSuspicion[] {
  let rows = computed.get(w);
  if (!rows) computed.set(w, (rows = computeSuspicion(w)));
  return rows;
}

function computeSuspicion(w: BlameWork): StepSuspicion[] {
  const g = w.graph;
  const lin = w.lineage;
  const cfg = w.settings.blame.suspicion;
  const cands = contentSteps(w);
  if (cands.length === 0) return [];
  const candSet = new Set(cands);
  const rows = new Map<number, StepSuspicion>();
  cands.forEach((p, i) => {
    const text = textOf(w, p);
    const features: Record<SuspicionFeature, number> = {
      answer_origin: 0,
      error_writer: 0,
      ungrounded: 0,
      acts: looksLikeCode(text) || hasToolCalls(g.steps[p].output) ? 1 : 0,
      length: Math.min(1, text.length / cfg.length_saturation),
      position: cands.length > 1 ? i / (cands.length - 1) : 0,
    };
    rows.set(p, { pos: p, features, score: 0, ungroundedValues: [], originValues: [], failedCall: -1 });
  });

  // ungrounded: stated first here, and not in what the step received.
  // Numbers as written, scale words included ("1 million" is 1000000).
  const requestNumbers = numbersIn(lin.runInputText);
  for (const p of cands) {
    const row = rows.get(p)!;
    const received = lin.inHashesOf(p);
    let given: number[] | null = null;
    for (const v of lin.outValuesOf(p)) {
      if (!FACT_KINDS.has(v.kind) || received.has(v.h)) continue;
      if (v.kind === 'number' && v.raw.replace(/\D/g, '').length < 2) continue;
      // A number computed from the numbers the step was given ("1 million" → 1000000) is derived, not made up.
      if (v.kind === 'number') {
        given ??= [...numbersIn(lin.inTextOf(p).slice(0, 20_000)), ...requestNumbers];
        if (derivable(Number(v.key.slice(7)), given, w.settings.blame.number_tolerance)) continue;
      }
      if (lin.firstSeen.get(v.h, NOT_SEEN) !== p) continue;
      if (!row.ungroundedValues.some((u) => u.key === v.key)) row.ungroundedValues.push(v);
    }
    row.features.ungrounded = Math.min(1, row.ungroundedValues.length / cfg.ungrounded_saturation);
  }

  // error_writer: the first error-shaped call, and the content step that wrote its input.
  for (let p = 0; p < g.steps.length; p++) {
    if (!g.live[p] || (g.types[p] & T_LOOKUP) === 0 || !isErrorShaped(w, p)) continue;
    const writer = writerOf(w, p, candSet);
    if (writer >= 0) {
      rows.get(writer)!.features.error_writer = 1;
      rows.get(writer)!.failedCall = p;
    }
    break;
  }

  // answer_origin: where the final answer's own values first appear.
  const finalText = w.detail.run.output !== null ? llmText(w.detail.run.output) : lin.finalProducer >= 0 ? textOf(w, lin.finalProducer) : '';
  const requestKeys = new Set(lin.runInputValues.map((v) => v.key));
  let origin = Number.POSITIVE_INFINITY;
  let originValues: Value[] = [];
  for (const v of valuesOf(finalText)) {
    if (!FACT_KINDS.has(v.kind) || requestKeys.has(v.key)) continue;
    const first = lin.firstSeen.get(v.h, NOT_SEEN);
    if (first === NOT_SEEN || first === RUN_INPUT) continue;
    if (first < origin) {
      origin = first;
      originValues = [v];
    } else if (first === origin) originValues.push(v);
  }
  if (Number.isFinite(origin)) {
    const at = g.types[origin] & T_LOOKUP ? writerOf(w, origin, candSet) : origin;
    const row = rows.get(at);
    if (row) {
      row.features.answer_origin = 1;
      row.originValues = originValues;
    }
  }

  const weights = cfg.weights as Record<SuspicionFeature, number>;
  for (const row of rows.values()) {
    let s = 0;
    for (const f of SUSPICION_FEATURES) s += (weights[f] ?? 0) * row.features[f];
    row.score = s;
  }
  return [...rows.values()];
}
