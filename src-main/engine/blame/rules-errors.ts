/**
 * Rules error-origin, input-caused-error and unfinished.
 *
 * In a tree of failing spans the deepest error whose children are healthy is
 * the origin, and its failing ancestors are symptoms. When the origin failed
 * because of its input (classifyError: syntax or name errors in generated
 * code, invalid or unknown arguments, 4xx, "not found"), the step that
 * produced that input is the cause; when it failed for its own reasons
 * (timeout, 5xx, connection reset) or the reason is unknown, it is. An
 * iteration-limit error is a symptom of whatever kept its loop going. The
 * same rules read error payloads (`{"error": ...}`) of steps that did not
 * raise. In a run that stopped mid-way, the deepest unfinished step is
 * where it stopped.
 */
import type { TraceError } from '../../../src-shared/trace-format';
import { classifyError } from '../scoring/error-class';
import { checkNamed } from '../scoring/score-run';
import { quoteStep } from '../text/evidence-quote';
import { ancestorsOf, siblingsOf } from './run-graph';
import { evidenceList, q, stepLabel, type BlameWork, type Finding } from './finding';
import { S_ERROR, S_OK, S_RUNNING, T_GENERIC, T_LLM, T_PROMPT } from './step-codes';

export interface ErrorFindings {
  findings: Finding[];
  /** Iteration-limit errors: symptoms of whatever finding lies in their subtree. */
  budget: number[];
  /** Steps with an error payload already traced to the step that produced their input. */
  handled: Set<number>;
}

const GENERATOR_RANK: Record<string, number> = { llm: 4, generic: 3, prompt: 3, agent: 1, tool: 2, retrieval: 1 };

/** The step that produced the input of `p`: its lineage producer that is most like a generator, else the previous generator sibling. */
export function inputProducerOf(w: BlameWork, p: number): number {
  const g = w.graph;
  const lin = w.lineage;
  let best = -1;
  // An agent step with no children wrote its message itself (a chat transcript's turn): it ranks as a model call.
  const rank = (c: number): number => (g.steps[c].type === 'agent' && g.children.count(c) === 0 ? GENERATOR_RANK.llm : (GENERATOR_RANK[g.steps[c].type] ?? 0));
  const consider = (c: number): void => {
    if (c < 0 || !g.live[c] || c === p) return;
    if (best === -1) best = c;
    else {
      const rc = rank(c);
      const rb = rank(best);
      if (rc > rb || (rc === rb && c > best)) best = c;
    }
  };
  for (const c of lin.inProducers.of(p)) consider(c);
  if (best >= 0) return best;
  const sibs = siblingsOf(g, p);
  for (let i = sibs.indexOf(p) - 1; i >= 0; i--) {
    const c = sibs[i];
    if (g.live[c] && g.types[c] & (T_LLM | T_GENERIC | T_PROMPT) && g.statuses[c] === S_OK) return c;
  }
  return -1;
}

export function errorText(e: TraceError | null): string {
  if (!e) return 'an error';
  return `${e.type ? `${e.type}: ` : ''}${e.message ?? ''}`.trim();
}

export function errorFindings(w: BlameWork): ErrorFindings {
  const g = w.graph;
  const s = w.settings.blame.strength;
  const findings: Finding[] = [];
  const budget: number[] = [];
  const handled = new Set<number>();
  const errs: number[] = [];
  for (let p = 0; p < g.steps.length; p++) {
    if (g.live[p] && g.statuses[p] === S_ERROR && !w.recovered.has(p)) errs.push(p);
  }
  const hasErrBelow = new Set<number>();
  for (const e of errs) for (const a of ancestorsOf(g, e)) hasErrBelow.add(a);

  for (const o of errs) {
    if (hasErrBelow.has(o)) continue;
    const step = g.steps[o];
    const { origin, why } = classifyError(step.error);
    const errEv = quoteStep(step, 'error', (step.error?.message ?? '').split('\n')[0].slice(0, 140)) ?? quoteStep(step, 'error');
    const enclosing = ancestorsOf(g, o).filter((a) => g.steps[a].status === 'error' && !w.recovered.has(a));
    for (const a of enclosing) w.symptoms.push({ pos: a, causedBy: o, reason: `failed only because its child "${step.name}" failed` });
    if (origin === 'budget') {
      budget.push(o);
      findings.push({
        pos: o,
        rule: 'error-origin',
        strength: s.iteration_limit,
        reason: `${stepLabel(w, o)} stopped at its iteration limit (${q(errorText(step.error), 80)}) and no step inside it shows why it kept going.`,
        evidence: evidenceList(errEv),
        dependent: true,
      });
      continue;
    }
    if (origin === 'input') {
      const producer = inputProducerOf(w, o);
      if (producer >= 0) {
        findings.push(inputCaused(w, producer, o, errorText(step.error), why, errEv));
        continue;
      }
    }
    const tail = enclosing.length > 0 ? `; ${enclosing.length} enclosing step${enclosing.length > 1 ? 's' : ''} failed only because of it` : '';
    findings.push({
      pos: o,
      rule: 'error-origin',
      strength: origin === 'own' ? s.error_origin : s.error_origin_unknown,
      reason: `${stepLabel(w, o)} failed with ${q(errorText(step.error))} (${why})${tail}.`,
      evidence: evidenceList(errEv),
      dependent: false,
    });
  }

  // Error payloads: a step that returned {"error": ...} without raising.
  for (let p = 0; p < g.steps.length; p++) {
    if (!g.live[p] || w.recovered.has(p) || g.statuses[p] !== S_OK) continue;
    const c = checkNamed(w.assess[p], 'tool.error_payload');
    if (!c || !c.hard) continue;
    const quote = c.evidence?.quote ?? '';
    // A payload's error line often names its class ("KeyError: 'volume'" at the end of a traceback).
    const named = /^([A-Z][A-Za-z]*(?:Error|Exception)):?/.exec(quote);
    const { origin, why } = classifyError({ type: named ? named[1] : '', message: quote });
    if (origin !== 'input') continue;
    const producer = inputProducerOf(w, p);
    if (producer >= 0) {
      // An error inside a result that the run read and went on from is weaker evidence than an error that
      // stopped it: the writer is a candidate that content suspicion may outrank (measured on Who&When, where
      // the decisive mistake was the writer of the first failing code in 7 of 24 such runs).
      const f = inputCaused(w, producer, p, quote, why, c.evidence ?? null);
      findings.push({ ...f, strength: f.strength * w.settings.blame.payload_error_share, dependent: true });
      handled.add(p);
    }
  }

  if (w.detail.run.status === 'incomplete') {
    const unfinished: number[] = [];
    for (let p = 0; p < g.steps.length; p++) if (g.live[p] && g.statuses[p] === S_RUNNING) unfinished.push(p);
    const above = new Set<number>();
    for (const u of unfinished) for (const a of ancestorsOf(g, u)) above.add(a);
    for (const u of unfinished) {
      if (above.has(u)) continue;
      const outer = ancestorsOf(g, u).filter((a) => g.steps[a].status === 'running');
      for (const a of outer) w.symptoms.push({ pos: a, causedBy: u, reason: `never finished because "${g.steps[u].name}" never finished` });
      findings.push({
        pos: u,
        rule: 'unfinished',
        strength: s.unfinished,
        reason: `${stepLabel(w, u)} started but never finished: the run stopped while it was running${outer.length > 0 ? `, leaving ${outer.length} enclosing step${outer.length > 1 ? 's' : ''} open` : ''}.`,
        evidence: evidenceList(quoteStep(g.steps[u], 'input')),
        dependent: false,
      });
    }
  }
  return { findings, budget, handled };
}

function inputCaused(w: BlameWork, producer: number, failed: number, message: string, why: string, errEv: ReturnType<typeof quoteStep>): Finding {
  const g = w.graph;
  const lin = w.lineage;
  const outRaw = new Map(lin.outValuesOf(producer).map((v) => [v.h, v.raw]));
  const shared = lin.inValuesOf(failed).find((v) => outRaw.has(v.h));
  const prodEv = (shared ? quoteStep(g.steps[producer], 'output', outRaw.get(shared.h)) : null) ?? quoteStep(g.steps[producer], 'output');
  w.symptoms.push({ pos: failed, causedBy: producer, reason: `rejected the input that "${g.steps[producer].name}" produced` });
  const what = shared ? `the input ${q(shared.raw, 60)}` : 'the input';
  const strength = w.settings.blame.strength.input_caused_error;
  return {
    pos: producer,
    rule: 'input-caused-error',
    strength,
    reason: `${stepLabel(w, producer)} produced ${what} that made ${stepLabel(w, failed)} fail with ${q(message, 80)} (${why}).`,
    evidence: evidenceList(prodEv, errEv),
    dependent: false,
    // Annotators differ on whether the writer or the failing call is "the" location: the call stays co-blamed.
    coBlame: [
      {
        pos: failed,
        rule: 'error-origin',
        strength: strength * w.settings.blame.co_blame_call_share,
        reason: `${stepLabel(w, failed)} is where the error showed: it failed with ${q(message, 80)} on the input ${stepLabel(w, producer)} produced.`,
        evidence: evidenceList(errEv),
        dependent: false,
      },
    ],
  };
}

