/**
 * Lineage rules: bad content is blamed where it originated, not where it was
 * faithfully passed on.
 *  - wrong-argument: a lookup (tool or retrieval) received a value that the
 *    request does not contain, introduced by a model or code step (not by a
 *    lookup result), while the request's value of the same kind (date, id,
 *    number, name, ...) reached no lookup at all.
 *  - information-lost: a value from the request reached a step whose output
 *    dropped it and fed the lookups, and no lookup ever received it (a plan
 *    that filtered away part of the request).
 *  - dropped-context / lossy-filter: a step received passages relevant to the
 *    question and its output keeps none of them (a prompt that drops the
 *    context, a reranker that keeps the wrong ones).
 *  - unused-context: a retrieval returned relevant passages that flowed
 *    nowhere; the next prompt or LLM step that should have used them is blamed.
 *  - fabrication: the final answer states a value (number, date, id, e-mail,
 *    URL) that neither the request nor any earlier step supplied.
 */
import { quoteRun, quoteStep } from '../text/evidence-quote';
import { checkNamed } from '../scoring/score-run';
import { isObj, llmText, passagesOf } from '../text/json-text';
import { shinglesOf, valuesOf, type Value } from './value-features';
import type { Evidence } from '../../../src-shared/analysis';
import { evidenceList, q, stepLabel, type BlameWork, type Finding } from './finding';
import { NOT_SEEN, RUN_INPUT } from './lineage';
import { isAncestor } from './run-graph';
import { S_OK, T_AGENT, T_GENERIC, T_LLM, T_LOOKUP, T_PROMPT, T_RETRIEVAL } from './step-codes';

const GENERATOR_TYPES = T_LLM | T_GENERIC | T_PROMPT | T_AGENT;

function lookupInputHashes(w: BlameWork): { has(h: number): boolean } {
  return w.lineage.lookupInputHashes;
}

export function wrongArgumentFindings(w: BlameWork): Finding[] {
  const g = w.graph;
  const lin = w.lineage;
  const req = lin.runInputValues;
  if (req.length === 0) return [];
  const reqHashes = new Set(req.map((v) => v.h));
  const used = lookupInputHashes(w);
  const unusedByKind = new Map<string, Value>();
  for (const v of req) if (!used.has(v.h) && !unusedByKind.has(v.kind)) unusedByKind.set(v.kind, v);
  if (unusedByKind.size === 0) return [];
  // Candidates: values in lookup inputs that the request lacks, of a kind whose request value no lookup got.
  const candidates: { t: number; v: Value; u: Value }[] = [];
  for (let t = 0; t < g.steps.length; t++) {
    if (!g.live[t] || (g.types[t] & T_LOOKUP) === 0) continue;
    for (const v of lin.inValuesOf(t)) {
      const u = unusedByKind.get(v.kind);
      if (u && !reqHashes.has(v.h)) candidates.push({ t, v, u });
    }
  }
  if (candidates.length === 0) return [];
  // One pass over all outputs: where does each candidate value appear?
  const wanted = new Set(candidates.map((c) => c.v.h));
  const sources = new Map<number, number[]>();
  for (let p = 0; p < g.steps.length; p++) {
    if (!g.live[p]) continue;
    for (const h of lin.outHashesOf(p)) {
      if (!wanted.has(h)) continue;
      const list = sources.get(h);
      if (list) list.push(p);
      else sources.set(h, [p]);
    }
  }
  const out: Finding[] = [];
  const blamed = new Set<number>();
  const done = new Set<number>();
  for (const { t, v, u } of candidates) {
    if (done.has(t)) continue;
    {
      // Earlier steps whose output holds v; none may be a lookup (then data supplied it, not a model).
      let intro = -1;
      let fromData = false;
      for (const p of sources.get(v.h) ?? []) {
        if (p >= t) break;
        if (g.types[p] & T_LOOKUP) fromData = true;
        else if (intro === -1 && g.types[p] & GENERATOR_TYPES && !lin.inHashesOf(p).has(v.h)) intro = p;
      }
      if (fromData || intro === -1 || blamed.has(intro)) continue;
      blamed.add(intro);
      out.push({
        pos: intro,
        rule: 'wrong-argument',
        strength: w.settings.blame.strength.wrong_argument,
        reason: `${stepLabel(w, intro)} introduced ${q(v.raw, 60)} into the input of ${stepLabel(w, t)}, but the request asks about ${q(u.raw, 60)}, which no lookup ever received.`,
        evidence: evidenceList(quoteStep(g.steps[intro], 'output', v.raw), quoteStep(g.steps[t], 'input', v.raw), quoteRun(w.detail.run, 'input', u.raw)),
        dependent: false,
      });
      done.add(t);
    }
  }
  return out;
}

/**
 * The first generator step that received value hash `h` in its input, dropped it from its output and fed a
 * lookup; -1 if none. A function of its own with plain loops, not the loop's body: the body's closure (over the
 * step) made V8 allocate a context for every step the loop visited (as in droppedContextAt).
 */
function stepThatLost(w: BlameWork, h: number): number {
  const g = w.graph;
  const lin = w.lineage;
  for (let p = 0; p < g.steps.length; p++) {
    if (!g.live[p] || (g.types[p] & GENERATOR_TYPES) === 0 || p === lin.finalProducer || g.statuses[p] !== S_OK) continue;
    if (!lin.inHashesOf(p).has(h) || lin.outHashesOf(p).has(h)) continue;
    if (feedsLookup(w, p)) return p;
  }
  return -1;
}

/** Does a lookup that is not one of p's ancestors consume p's output? */
function feedsLookup(w: BlameWork, p: number): boolean {
  const g = w.graph;
  const consumers = w.lineage.consumers;
  for (let i = 0, k = consumers.count(p); i < k; i++) {
    const c = consumers.at(p, i);
    if ((g.types[c] & T_LOOKUP) !== 0 && !isAncestor(g, c, p)) return true;
  }
  return false;
}

export function informationLostFindings(w: BlameWork): Finding[] {
  const g = w.graph;
  const lin = w.lineage;
  const req = lin.runInputValues;
  if (req.length === 0) return [];
  let anyLookup = false;
  for (let p = 0; p < g.steps.length; p++) if (g.live[p] && g.types[p] & T_LOOKUP) anyLookup = true;
  if (!anyLookup) return [];
  const used = lookupInputHashes(w);
  const finalHashes = lin.finalProducer >= 0 ? lin.outHashesOf(lin.finalProducer) : new Set<number>();
  // Lost values grouped by the step that lost them.
  const lostAt = new Map<number, Value[]>();
  const seen = new Set<number>();
  for (const u of req) {
    if (used.has(u.h) || finalHashes.has(u.h) || seen.has(u.h)) continue;
    seen.add(u.h);
    const p = stepThatLost(w, u.h);
    if (p < 0) continue;
    const list = lostAt.get(p);
    if (list) list.push(u);
    else lostAt.set(p, [u]);
  }
  const out: Finding[] = [];
  for (const [p, lost] of lostAt) {
    // Names first: a dropped entity says more than a dropped number.
    lost.sort((x, y) => (x.kind === 'name' ? 0 : 1) - (y.kind === 'name' ? 0 : 1));
    const list = lost.slice(0, 3).map((u) => q(u.raw, 40)).join(', ');
    out.push({
      pos: p,
      rule: 'information-lost',
      strength: w.settings.blame.strength.information_lost,
      reason: `${stepLabel(w, p)} received ${list} from the request but its output, which drove the lookups, drops ${lost.length > 1 ? 'them' : 'it'}, and no lookup ever received ${lost.length > 1 ? 'them' : 'it'}.`,
      evidence: evidenceList(quoteStep(g.steps[p], 'input', lost[0].raw), quoteStep(g.steps[p], 'output')),
      dependent: false,
    });
  }
  return out;
}

function questionOf(w: BlameWork, input: unknown): string {
  if (isObj(input as never)) {
    const o = input as Record<string, unknown>;
    for (const k of ['question', 'query', 'q', 'user_question', 'task', 'request']) if (typeof o[k] === 'string') return o[k] as string;
  }
  return w.lineage.runInputText;
}

function contained(passage: string, outSet: Set<number>, outNorm: string, k: number, keptAt: number): boolean {
  const sh = shinglesOf(passage, k, 4000, Number.POSITIVE_INFINITY);
  if (sh.length < 3) return outNorm.includes(passage.replace(/\s+/g, ' ').trim().toLowerCase());
  let hit = 0;
  for (const h of sh) if (outSet.has(h)) hit++;
  return hit / sh.length >= keptAt;
}

export function droppedContextFindings(w: BlameWork): Finding[] {
  const g = w.graph;
  const out: Finding[] = [];
  for (let p = 0; p < g.steps.length; p++) {
    if (!g.live[p] || g.statuses[p] !== S_OK || (g.types[p] & (T_PROMPT | T_GENERIC | T_RETRIEVAL)) === 0) continue;
    const passages = passagesOf(g.steps[p].input);
    if (!passages || passages.length === 0) continue;
    const f = droppedContextAt(w, p, passages);
    if (f) out.push(f);
  }
  return out;
}

/**
 * The dropped-context finding of step p, which received `passages`, if any. A function of its own, not the
 * loop's body: the body's closures (the sort's comparator) made V8 allocate a context for every step the loop
 * visited, skipped or not: 72 bytes × 100,000 steps, 7.2 MB of garbage per blame (allocation profile of the
 * synthetic run).
 */
function droppedContextAt(w: BlameWork, p: number, passages: string[]): Finding | null {
  const rel = w.settings.scoring.retrieval.relevant_at;
  const k = w.settings.lineage.shingle_tokens;
  const s = w.graph.steps[p];
  const question = questionOf(w, s.input);
  const scores = w.relevance.score(question, passages);
  const outText = w.lineage.outTextOf(p);
  const outSet = new Set(shinglesOf(outText, k, 1_000_000, Number.POSITIVE_INFINITY));
  const outNorm = outText.replace(/\s+/g, ' ').toLowerCase();
  let keptMax = 0;
  const dropped: number[] = [];
  passages.forEach((text, i) => {
    const kept = contained(text, outSet, outNorm, k, w.settings.blame.context_kept_at);
    if (kept) keptMax = Math.max(keptMax, scores[i]);
    else if (scores[i] >= rel) dropped.push(i);
  });
  if (dropped.length === 0 || keptMax >= rel) return null;
  dropped.sort((a, b) => scores[b] - scores[a]);
  const top = dropped[0];
  const listOut = passagesOf(s.output) !== null;
  const rule = listOut ? 'lossy-filter' : 'dropped-context';
  return {
    pos: p,
    rule,
    strength: w.settings.blame.strength.dropped_context,
    reason: `${stepLabel(w, p)} received ${dropped.length} passage${dropped.length > 1 ? 's' : ''} relevant to the question (best ${q(passages[top], 70)}, relevance ${scores[top].toFixed(2)}) but its output keeps none of them${listOut ? ' and keeps less relevant ones instead' : ''}.`,
    evidence: evidenceList(quoteStep(s, 'input', passages[top].trim().slice(0, 120)), quoteStep(s, 'output')),
    dependent: false,
  };
}

export function unusedContextFindings(w: BlameWork): Finding[] {
  const g = w.graph;
  const lin = w.lineage;
  const out: Finding[] = [];
  const rel = w.settings.scoring.retrieval.relevant_at;
  // Positions of prompt and LLM steps that could have used a retrieval, in order.
  const users: number[] = [];
  for (let p = 0; p < g.steps.length; p++) {
    if (g.live[p] && g.types[p] & (T_PROMPT | T_LLM) && (w.slice.size === 0 || w.slice.has(p))) users.push(p);
  }
  // Unused retrievals grouped by the step that should have used them: one finding per such step.
  const byTarget = new Map<number, { r: number; evidence: Evidence | undefined; explanation: string | undefined; count: number }>();
  for (let r = 0; r < g.steps.length; r++) {
    if (!g.live[r] || g.types[r] !== T_RETRIEVAL || g.statuses[r] !== S_OK || lin.consumers.count(r) > 0) continue;
    const relCheck = checkNamed(w.assess[r], 'retrieval.relevance');
    if (!relCheck || relCheck.value < rel) continue;
    let lo = 0;
    let hi = users.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (users[mid] <= r) lo = mid + 1;
      else hi = mid;
    }
    let target = -1;
    for (let i = lo; i < users.length; i++) {
      if (!isAncestor(g, r, users[i])) {
        target = users[i];
        break;
      }
    }
    if (target < 0) continue;
    const seen = byTarget.get(target);
    if (seen) seen.count++;
    else byTarget.set(target, { r, evidence: relCheck.evidence, explanation: relCheck.explanation, count: 1 });
  }
  for (const [target, { r, evidence, explanation, count }] of byTarget) {
    const more = count > 1 ? ` (and ${count - 1} more retrieval${count > 2 ? 's' : ''} like it)` : '';
    out.push({
      pos: target,
      rule: 'unused-context',
      strength: w.settings.blame.strength.unused_context,
      reason: `${stepLabel(w, r)} found relevant passages (${explanation})${more} but none of them reached ${stepLabel(w, target)}, the next step on the way to the answer.`,
      evidence: evidenceList(evidence, quoteStep(g.steps[target], 'input')),
      dependent: false,
    });
  }
  return out;
}

const FABRICABLE = new Set(['number', 'date', 'id', 'email', 'url']);
/** Step types whose output can be an answer in words (an agent or chain step may write the answer itself). */
const ANSWERING = new Set(['llm', 'agent', 'generic']);

/**
 * A number the answer computed from the numbers it was given is derived, not
 * made up: one of them rescaled (×/÷ 100, 1,000, 10^6, 10^9: "18.4 million"
 * from 18400000, "41.7%" from 0.417), or two of them combined by a sum,
 * difference, product or ratio ("100 EUR at 1.31 is 131 USD"), within 0.5%.
 * At most 60 input numbers are paired.
 */
export function derivable(x: number, inputs: number[], tolerance: number): boolean {
  const near = (a: number, b: number): boolean => Math.abs(a - b) <= Math.max(tolerance * Math.abs(b), 1e-9);
  const xs = inputs.slice(0, 60);
  for (const a of xs) for (const f of [100, 1e3, 1e6, 1e9]) if (near(a / f, x) || near(a * f, x)) return true;
  for (let i = 0; i < xs.length; i++) {
    for (let j = 0; j < xs.length; j++) {
      const a = xs[i];
      const b = xs[j];
      if (i < j && (near(a + b, x) || near(a * b, x))) return true;
      if (i !== j && (near(a - b, x) || (b !== 0 && near(a / b, x)))) return true;
    }
  }
  return false;
}

/**
 * Values (numbers, dates, ids, e-mails, URLs) that step `f` states in its
 * text and that neither the request, nor its own input, nor any earlier step
 * supplied — and, for numbers, that no one operation on the numbers it was
 * given derives.
 */
export function madeUpValues(w: BlameWork, f: number, text: string): Value[] {
  const lin = w.lineage;
  const inKeys = new Set(lin.inValuesOf(f).map((v) => v.key));
  const numbers = [...lin.inValuesOf(f), ...lin.runInputValues].filter((v) => v.kind === 'number').map((v) => Number(v.key.slice(7)));
  const made: Value[] = [];
  for (const v of valuesOf(text)) {
    if (!FABRICABLE.has(v.kind) || inKeys.has(v.key)) continue;
    const first = lin.firstSeen.get(v.h, NOT_SEEN);
    if (first !== NOT_SEEN && (first === RUN_INPUT || first < f)) continue;
    if (v.kind === 'number' && derivable(Number(v.key.slice(7)), numbers, w.settings.blame.number_tolerance)) continue;
    if (!made.some((m) => m.key === v.key)) made.push(v);
  }
  return made;
}

/** The final producer's text when it is an answer in words (tool-call arguments and ids are not answers). */
export function finalAnswerOf(w: BlameWork): { pos: number; text: string } | null {
  const g = w.graph;
  const f = w.lineage.finalProducer;
  if (f < 0 || !ANSWERING.has(g.steps[f].type) || g.steps[f].status !== 'ok' || w.detail.run.output === null) return null;
  const text = llmText(g.steps[f].output);
  return text.trim() === '' ? null : { pos: f, text };
}

export function fabricationFindings(w: BlameWork): Finding[] {
  const g = w.graph;
  const answer = finalAnswerOf(w);
  if (!answer) return [];
  const f = answer.pos;
  const made = madeUpValues(w, f, answer.text);
  if (made.length === 0) return [];
  const list = made.slice(0, 3).map((v) => q(v.raw, 40)).join(', ');
  return [
    {
      pos: f,
      rule: 'fabrication',
      strength: w.settings.blame.strength.fabrication,
      reason: `${stepLabel(w, f)} stated ${list} in the final answer, ${made.length > 1 ? 'values' : 'a value'} that neither the request nor any earlier step supplied.`,
      evidence: evidenceList(...made.slice(0, 3).map((v) => quoteStep(g.steps[f], 'output', v.raw))),
      dependent: true,
    },
  ];
}

