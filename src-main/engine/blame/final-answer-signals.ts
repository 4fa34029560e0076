/**
 * Failure signals read from the run's final answer and the steps that
 * shaped it: an empty answer, an answer that gives up or refuses, a
 * guardrail that replaced the answer with a block message, an expected
 * answer the output lacks, values stated that nothing upstream supplied,
 * and an answer that shares nothing with the question.
 */
import type { Evidence, FailureSignal } from '../../../src-shared/analysis';
import type { Step } from '../../../src-shared/model';
import { quoteRun, quoteStep } from '../text/evidence-quote';
import { hasToolCalls, isObj, jsonText, llmText } from '../text/json-text';
import { coverage, termSet } from '../text/text-terms';
import type { DetectionInput } from './detect-failure';
import { finalAnswerText, signal } from './failure-signal';
import { finalAnswerOf, madeUpValues } from './rules-lineage';
import { valuesOf, type Value } from './value-features';
import { F_GUARDRAIL_MARKED, S_OK, T_LOOKUP } from './step-codes';

function compile(patterns: string[]): RegExp[] {
  const out: RegExp[] = [];
  for (const p of patterns) {
    try {
      out.push(new RegExp(p, 'iu'));
    } catch {
      // Invalid user patterns are reported when the settings load.
    }
  }
  return out;
}

// By list: the settings' own arrays, so a settings object's patterns are compiled once and let go with it.
const compiled = new WeakMap<string[], RegExp[]>();
export function patternsOf(list: string[]): RegExp[] {
  let r = compiled.get(list);
  if (!r) compiled.set(list, (r = compile(list)));
  return r;
}

const joined = new WeakMap<string[], WeakMap<string[], RegExp[]>>();
/**
 * The patterns of two lists, `a`'s first. Joined into a new array on each call, they missed the cache every
 * blame: each compiled them again (~7% of the blame of a three-step run, profiled) and left one more entry behind.
 */
export function patternsOfBoth(a: string[], b: string[]): RegExp[] {
  let byB = joined.get(a);
  if (!byB) joined.set(a, (byB = new WeakMap()));
  let r = byB.get(b);
  if (!r) byB.set(b, (r = [...patternsOf(a), ...patternsOf(b)]));
  return r;
}

/** The first match of any pattern in the first 4,000 characters, as the text matched. */
export function firstMatch(text: string, patterns: RegExp[]): string | null {
  const head = text.slice(0, 4000);
  for (const re of patterns) {
    const m = re.exec(head);
    if (m) return m[0];
  }
  return null;
}

/**
 * Which steps are guardrail / moderation steps: by their span kind or metadata (F_GUARDRAIL_MARKED, read once
 * with the graph), or by their name, tested once per distinct name rather than once per step.
 */
function guardrailTest(g: DetectionInput['graph'], namePatterns: RegExp[]): (p: number) => boolean {
  // Per name id: 0 not tested yet, 1 a guardrail's name, 2 not.
  const byName = new Uint8Array(g.names.length);
  return (p) => {
    if (g.facts[p] & F_GUARDRAIL_MARKED) return true;
    const id = g.nameIds[p];
    if (byName[id] === 0) {
      const name = g.names[id];
      let hit = false;
      for (let i = 0; i < namePatterns.length && !hit; i++) hit = namePatterns[i].test(name);
      byName[id] = hit ? 1 : 2;
    }
    return byName[id] === 1;
  };
}

/** Does a guardrail's output say it blocked, flagged or replaced the content? */
function blockedBy(step: Step, refusal: RegExp[]): string | null {
  const out = step.output;
  if (isObj(out)) {
    for (const k of ['blocked', 'flagged', 'tripwire_triggered', 'rejected']) if (out[k] === true) return k;
    for (const k of ['action', 'decision', 'verdict', 'status']) {
      const v = out[k];
      if (typeof v === 'string' && /^(?:block(?:ed)?|deny|denied|reject(?:ed)?|refuse[d]?|flag(?:ged)?)$/i.test(v)) return v;
    }
  }
  const text = llmText(out) || jsonText(out);
  const inText = jsonText(step.input);
  const m = firstMatch(text, refusal);
  return m && firstMatch(inText, refusal) === null ? m : null;
}

/** Whether the expected answer is in `text`: verbatim (as a word), else most of its values, else most of its terms. */
function holdsExpected(text: string, expected: string, presentAt: number): boolean {
  const norm = (t: string) => t.toLowerCase().replace(/\s+/g, ' ').trim();
  const e = norm(expected);
  const t = norm(text);
  if (e === '') return true;
  const escaped = e.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  if (new RegExp(`(?:^|[^\\p{L}\\p{N}])${escaped}(?:$|[^\\p{L}\\p{N}])`, 'u').test(t)) return true;
  const ev = valuesOf(expected);
  if (ev.length > 0) {
    const have = new Set(valuesOf(text).map((v) => v.key));
    return ev.filter((v) => have.has(v.key)).length / ev.length >= presentAt;
  }
  const terms = termSet(expected, 500);
  return terms.size > 0 && coverage(terms, termSet(text, 50_000)) >= presentAt;
}

/**
 * A value of the same kind as a made-up one, which a lookup (tool or
 * retrieval) upstream of the answer returned and the answer does not state:
 * the answer had the data and said something else.
 */
function contradictingLookupValue(x: DetectionInput, f: number, made: Value[]): { pos: number; value: string; by: string } | null {
  const g = x.graph;
  const kinds = new Set(made.map((v) => v.kind));
  const stated = new Set(valuesOf(llmText(g.steps[f].output)).map((v) => v.key));
  for (const p of [...x.lineage.inProducers.of(f), ...upstreamLookups(x, f)]) {
    if (p < 0 || !g.live[p] || (g.types[p] & T_LOOKUP) === 0) continue;
    const other = x.lineage.outValuesOf(p).find((v) => kinds.has(v.kind) && !stated.has(v.key) && (v.kind !== 'number' || v.raw.replace(/\D/g, '').length >= 2));
    if (other) return { pos: p, value: other.raw, by: `${g.steps[p].type} step "${g.steps[p].name}"` };
  }
  return null;
}

function upstreamLookups(x: DetectionInput, f: number): number[] {
  const out: number[] = [];
  for (const p of x.slice) if (p !== f && p < f) out.push(p);
  return out.sort((a, b) => b - a).slice(0, 50);
}

export function finalAnswerSignals(x: DetectionInput): FailureSignal[] {
  const { detail, graph: g, lineage: lin, settings } = x;
  const st = settings.failure.strength;
  const run = detail.run;
  const out: FailureSignal[] = [];
  const f = lin.finalProducer;
  const finalStep = f >= 0 ? g.steps[f] : null;
  const answer = finalAnswerText(detail, g, lin);
  const answerEv = (needle?: string): Evidence | null =>
    run.output !== null ? quoteRun(run, 'output', needle) : finalStep ? quoteStep(finalStep, 'output', needle) : null;

  // Empty: the run returned blank text, or its answering model call returned no text and no tool call.
  // A run that returns nothing at all (null: a side-effect pipeline, or a client that did not record it) is not empty.
  const blankRun = typeof run.output === 'string' && run.output.trim() === '';
  const blankModel = run.output === null && finalStep !== null && finalStep.type === 'llm' && finalStep.status === 'ok' && finalStep.output !== null && llmText(finalStep.output).trim() === '' && !hasToolCalls(finalStep.output);
  if (run.status !== 'error' && (blankRun || blankModel)) {
    out.push(signal('final-empty', st.final_empty, 'the run ended with an empty answer', finalStep));
  }
  if (answer.trim() !== '') {
    const gaveUp = firstMatch(answer, patternsOf(settings.failure.give_up_patterns));
    if (gaveUp) out.push(signal('final-gives-up', st.final_gives_up, `the final answer gives up: "${gaveUp}"`, finalStep, answerEv(gaveUp)));
    const refused = firstMatch(answer, patternsOf(settings.scoring.llm.refusal_patterns));
    if (refused) out.push(signal('final-refusal', st.final_refusal, `the final answer refuses: "${refused}"`, finalStep, answerEv(refused)));
  }

  // A guardrail whose block message became the answer (or that blocked on the way to it).
  const isGuardrail = guardrailTest(g, patternsOf(settings.failure.guardrail_name_patterns));
  const refusal = patternsOfBoth(settings.scoring.llm.refusal_patterns, settings.failure.give_up_patterns);
  for (let p = 0; p < g.steps.length; p++) {
    if (!g.live[p] || g.statuses[p] !== S_OK || !isGuardrail(p)) continue;
    const s = g.steps[p];
    const why = blockedBy(s, refusal);
    if (!why) continue;
    const reached = x.slice.has(p) || (answer !== '' && firstMatch(answer, refusal) !== null);
    if (!reached) continue;
    out.push(signal('guardrail-block', st.guardrail_block, `guardrail step "${s.name}" blocked or replaced the content ("${why}")`, s, quoteStep(s, 'output', why) ?? quoteStep(s, 'output')));
    break;
  }

  if (x.expected && !holdsExpected(answer, x.expected, settings.blame.expected_present_at)) {
    out.push(signal('expected-missing', st.expected_missing, `the final answer lacks the expected "${x.expected.slice(0, 120)}"`, finalStep, answerEv()));
  }

  const fa = finalAnswerOf(x);
  if (fa) {
    const made = madeUpValues(x, fa.pos, fa.text);
    if (made.length > 0) {
      const list = made.slice(0, 3).map((v) => `"${v.raw}"`).join(', ');
      // Stating a value from the model's own knowledge is normal; stating one while the data it was given said otherwise is not.
      const contradicted = contradictingLookupValue(x, fa.pos, made);
      out.push(
        signal(
          'ungrounded-fact',
          contradicted ? st.ungrounded_fact : st.ungrounded_fact_uncontradicted,
          `the final answer states ${list}, which nothing upstream supplied${contradicted ? `, while ${contradicted.by} returned "${contradicted.value}"` : ''}`,
          g.steps[fa.pos],
          quoteStep(g.steps[fa.pos], 'output', made[0].raw),
          contradicted ? quoteStep(g.steps[contradicted.pos], 'output', contradicted.value) : null,
        ),
      );
    }
  }

  // An answer that shares no content with the question (weak: creative answers may not either).
  const question = lin.runInputText;
  if (answer.trim() !== '' && question.trim() !== '') {
    const q = termSet(question, 2000);
    const a = termSet(answer, 5000);
    if (q.size >= 3 && a.size >= settings.scoring.llm.non_responsive_min_terms && coverage(q, a) === 0) {
      out.push(signal('off-topic-answer', st.off_topic_answer, 'the final answer shares no content words with the question', finalStep, answerEv()));
    }
  }
  return out;
}
