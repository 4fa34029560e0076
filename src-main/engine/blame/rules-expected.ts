/**
 * Rules for an expected answer (`--expected TEXT` or the verdict's expected
 * value): trace where the needed information was present and where it was
 * lost. Coverage of a field is the share of the expected values (dates, ids,
 * numbers, names) it holds, or of the expected content terms when the
 * expected text has no values; "present" means coverage ≥
 * blame.expected_present_at.
 *  - expected-lost: a step received the information and its output lost it
 *    (or it was present in an output that the next step on the way to the
 *    answer never received);
 *  - expected-never-present: no step's output ever held it: the first lookup
 *    that should have brought it in is blamed.
 */
import { excerptAround, quoteRun, quoteStep, quoteStepBest } from '../text/evidence-quote';
import { coverage, termSet } from '../text/text-terms';
import { valuesOf } from './value-features';
import { evidenceList, q, stepLabel, type BlameWork, type Finding } from './finding';
import { isAncestor } from './run-graph';
import { looksLikeCode } from './content-suspicion';
import { inputProducerOf } from './rules-errors';
import { S_OK, T_GENERIC, T_LLM, T_LOOKUP, T_PROMPT } from './step-codes';

export function expectedFindings(w: BlameWork): Finding[] {
  const expected = w.expected?.trim();
  if (!expected) return [];
  const g = w.graph;
  const lin = w.lineage;
  const at = w.settings.blame.expected_present_at;
  const eVals = valuesOf(expected);
  const eKeys = new Set(eVals.map((v) => v.h));
  const eTerms = termSet(expected, 500);
  if (eKeys.size === 0 && eTerms.size === 0) return [];
  const covOf = (have: Set<number>, text: () => string): number => {
    if (eKeys.size > 0) {
      let hit = 0;
      for (const k of eKeys) if (have.has(k)) hit++;
      return hit / eKeys.size;
    }
    return coverage(eTerms, termSet(text(), 20_000));
  };
  const outCov = (p: number): number => covOf(lin.outHashesOf(p), () => lin.outTextOf(p));
  const inCov = (p: number): number => covOf(lin.inHashesOf(p), () => lin.inTextOf(p));
  const f = lin.finalProducer;
  const finalCov = f >= 0 ? outCov(f) : 0;
  if (f >= 0 && finalCov >= at) return [];

  const n = g.steps.length;
  const held: number[] = [];
  for (let p = 0; p < n; p++) if (g.live[p] && p !== f && g.statuses[p] === S_OK && outCov(p) >= at) held.push(p);
  // A parent that only passes on its child's output is not where the information was: keep the deepest.
  const present = held.filter((p) => !held.some((c) => c !== p && isAncestor(g, p, c)));
  const st = w.settings.blame.strength;
  const expectedEv = quoteRun(w.detail.run, 'verdict', eVals[0]?.raw ?? expected.slice(0, 60));

  if (present.length === 0) {
    let source = -1;
    for (let p = 0; p < n; p++) {
      if (!g.live[p] || (g.types[p] & T_LOOKUP) === 0) continue;
      if (source === -1 || (w.slice.has(p) && !w.slice.has(source))) source = p;
    }
    // A tool that ran model-written code computed what the code said: "never present" does not say which
    // step of the model's work went wrong, so the content rules (suspicion) rank the candidates instead.
    if (source >= 0 && g.steps[source].type === 'tool' && looksLikeCode(lin.inTextOf(source)) && inputProducerOf(w, source) >= 0) return [];
    // With no lookup at all, the answer was the model's own: the content rules rank where it went wrong.
    if (source < 0) return [];
    const target = source;
    return [
      {
        pos: target,
        rule: 'expected-never-present',
        strength: st.expected_never_present,
        reason: `No step's output ever held the expected ${q(expected, 60)}; ${stepLabel(w, source)} is where it should have been brought in.`,
        evidence: evidenceList(quoteStep(g.steps[target], 'output') ?? quoteStep(g.steps[target], 'input'), expectedEv),
        dependent: false,
      },
    ];
  }

  // The sentence that held the expected information: by its values, else by its content terms.
  const quoteIn = (p: number): ReturnType<typeof quoteStep> => {
    const hit = lin.outValuesOf(p).find((v) => eKeys.has(v.h));
    return (hit ? quoteStep(g.steps[p], 'output', hit.raw) : null) ?? quoteStepBest(g.steps[p], 'output', eTerms) ?? quoteStep(g.steps[p], 'output');
  };
  // For the reason: the part of the quote around the expected value (or the expected text), on one line.
  const brief = (quote: string | undefined): string => excerptAround((quote ?? expected).replace(/\s+/g, ' '), eVals[0]?.raw ?? expected, 70);
  const presentSet = new Set(present);
  for (const p of present) {
    for (const c of lin.consumers.of(p)) {
      if (presentSet.has(c) || isAncestor(g, c, p) || !g.live[c]) continue;
      const t = g.steps[c].type;
      if (t === 'tool' || t === 'retrieval') continue;
      if (inCov(c) < at) continue;
      return [
        {
          pos: c,
          rule: 'expected-lost',
          strength: st.information_lost,
          reason: `${stepLabel(w, c)} received the expected information from ${stepLabel(w, p)} ("${brief(quoteIn(p)?.quote)}") but its output lost it.`,
          evidence: evidenceList(quoteIn(p), quoteStep(g.steps[c], 'output'), expectedEv),
          dependent: false,
        },
      ];
    }
  }
  const last = present[present.length - 1];
  for (let c = last + 1; c < n; c++) {
    if (!g.live[c] || isAncestor(g, c, last) || (g.types[c] & (T_PROMPT | T_LLM | T_GENERIC)) === 0) continue;
    if (w.slice.size > 0 && !w.slice.has(c)) continue;
    return [
      {
        pos: c,
        rule: 'expected-lost',
        strength: st.information_lost,
        reason: `${stepLabel(w, last)} held the expected information ("${brief(quoteIn(last)?.quote)}") but ${stepLabel(w, c)}, the next step on the way to the answer, never received it.`,
        evidence: evidenceList(quoteIn(last), quoteStep(g.steps[c], 'input'), expectedEv),
        dependent: false,
      },
    ];
  }
  return [];
}
