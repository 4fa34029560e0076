/**
 * Rule faithful-executor (and its fallback wrong-result): bad content is
 * blamed where it was made, not where it was faithfully computed.
 *
 * The oracle names the wrong content: values that the answer states and that
 * a clause of the verdict's detail rejects (a clause with "wrong",
 * "incorrect", "not", "got", "instead", ...: "wrongly includes Dunmore,
 * Lenhal"), and values of the answer of a kind the expected answer has that
 * the expected answer lacks.
 * Values the request itself holds are never wrong content. When such a value
 * first enters the run in the output of a tool that succeeded and did not
 * receive it, the tool computed it from its arguments, so:
 *  - if the arguments hold something that neither the request nor an
 *    upstream lookup supplied (a column, a filter, a number of their own),
 *    the step that first stated it is blamed: a model's plan or a code step
 *    that the tool executed faithfully (`faithful-executor`); the tool is
 *    named in the reason as the point where the content entered and becomes
 *    a symptom;
 *  - if everything in the arguments is supported, the tool returned wrong
 *    data for right arguments and is blamed itself (`wrong-result`).
 * Support is lexical: stemmed content words, and numbers with their scale
 * words ("1 million" supports 1000000).
 */
import type { Evidence } from '../../../src-shared/analysis';
import type { Json } from '../../../src-shared/trace-format';
import { quoteRun, quoteStep } from '../text/evidence-quote';
import { jsonText, stringLeaves } from '../text/json-text';
import { STOPWORDS, stemTerm, termSet, wordsOf } from '../text/text-terms';
import { evidenceList, q, stepLabel, type BlameWork, type Finding } from './finding';
import { NOT_SEEN, upstreamOf } from './lineage';
import { isFailed } from './recovery';
import { ancestorsOf } from './run-graph';
import { valuesOf, type Value } from './value-features';

const LOOKUP = new Set(['tool', 'retrieval']);
const GENERATOR_RANK: Record<string, number> = { llm: 4, generic: 3, prompt: 3, agent: 1 };
/** Words of query syntax (filters, SQL) that a faithful translation of any request may add. */
const ARG_SYNTAX = new Set(
  'asc desc gte lte true false null none and or not select from where group order limit offset join inner outer left right like ilike between having distinct count sum avg min max case when then else end union'.split(
    ' ',
  ),
);
const MAX_WRONG = 20;
/**
 * Words by which an oracle's detail rejects what follows or precedes them
 * ("wrongly includes X", "got X", "X is not ..."): `blame.rejecting_words`
 * in the settings, each a word or a regular-expression fragment.
 */
const rejectingCache = new WeakMap<string[], RegExp>();
function rejectingPattern(words: string[]): RegExp {
  let re = rejectingCache.get(words);
  if (!re) {
    const ok = words.filter((x) => {
      try {
        new RegExp(x);
        return true;
      } catch {
        return false;
      }
    });
    re = ok.length ? new RegExp(`\\b(?:${ok.join('|')})\\b`, 'i') : /(?!)/;
    rejectingCache.set(words, re);
  }
  return re;
}
const MAX_SUPPORT_LOOKUPS = 50;

const SCALE: Record<string, number> = { thousand: 1e3, k: 1e3, million: 1e6, m: 1e6, mn: 1e6, billion: 1e9, bn: 1e9, b: 1e9, trillion: 1e12 };
const NUMBER = /(\d[\d,]*(?:\.\d+)?)(?:\s*(thousand|million|billion|trillion|bn|mn|k|m|b)\b)?/gi;
const LEAF_NUMBER = /\d[\d,]*(?:\.\d+)?/g;
const ISO_DATE = /\b(\d{4})-(\d{2})-(\d{2})\b/g;
const MONTH_YEAR = /\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(\d{4})\b/gi;
const MONTH_NUMBER: Record<string, string> = { jan: '01', feb: '02', mar: '03', apr: '04', may: '05', jun: '06', jul: '07', aug: '08', sep: '09', oct: '10', nov: '11', dec: '12' };

/** Days and months a text names: "2024-03-05" and "March 5, 2024" give "2024-03-05" and "2024-03"; "March 2024" gives "2024-03". */
function datesIn(text: string): Set<string> {
  const out = new Set<string>();
  for (const v of valuesOf(text)) {
    if (v.kind !== 'date') continue;
    out.add(v.key.slice(5));
    out.add(v.key.slice(5, 12));
  }
  MONTH_YEAR.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = MONTH_YEAR.exec(text)) !== null) out.add(`${m[2]}-${MONTH_NUMBER[m[1].toLowerCase()]}`);
  return out;
}

/** Numbers of a text, each also rescaled by the scale word after it ("1.5 million" gives 1.5 and 1500000). */
export function numbersIn(text: string): number[] {
  const out: number[] = [];
  NUMBER.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = NUMBER.exec(text)) !== null) {
    const x = Number(m[1].replace(/,/g, ''));
    if (!Number.isFinite(x)) continue;
    out.push(x);
    const scale = m[2] ? SCALE[m[2].toLowerCase()] : undefined;
    if (scale) out.push(x * scale);
  }
  return out;
}

/** Equal within the relative `blame.number_tolerance` (rounded figures still match). */
function near(a: number, b: number, tolerance: number): boolean {
  return Math.abs(a - b) <= Math.max(tolerance * Math.abs(b), 1e-9);
}

/** What the oracle names as wrong: values the answer states that the verdict calls out or the expected answer lacks. */
function wrongValues(w: BlameWork): Value[] {
  const run = w.detail.run;
  const f = w.lineage.finalProducer;
  const answerText = run.output !== null ? jsonText(run.output) : f >= 0 ? w.lineage.outTextOf(f) : '';
  if (answerText.trim() === '') return [];
  const answer = valuesOf(answerText);
  if (answer.length === 0) return [];
  const exclude = new Set(w.lineage.runInputValues.map((v) => v.h));
  const expected = w.expected ? valuesOf(w.expected) : [];
  for (const v of expected) exclude.add(v.h);
  const named = new Set<number>();
  const detail = run.verdict && !run.verdict.pass && run.verdict.detail ? run.verdict.detail : '';
  // A detail may state the right answer too ("Pune is in Asia/Kolkata"): only clauses that reject something name wrong content.
  const rejecting = rejectingPattern(w.settings.blame.rejecting_words);
  for (const clause of detail.split(/[.;!?\n]+/)) if (rejecting.test(clause)) for (const v of valuesOf(clause)) named.add(v.h);
  const expectedKinds = new Set(expected.map((v) => v.kind));
  // A failing detail that states a value the answer lacks states the right answer ("the list price is $299"):
  // the answer's values of that kind are what it rejects, as with an expected answer.
  const answerKeys = new Set(answer.map((v) => v.key));
  for (const v of valuesOf(detail)) if (!answerKeys.has(v.key) && !exclude.has(v.h)) expectedKinds.add(v.kind);
  const out: Value[] = [];
  const seen = new Set<number>();
  for (const v of answer) {
    if (exclude.has(v.h) || seen.has(v.h)) continue;
    if (!named.has(v.h) && !expectedKinds.has(v.kind)) continue;
    seen.add(v.h);
    out.push(v);
    if (out.length >= MAX_WRONG) break;
  }
  return out;
}

interface Unsupported {
  /** The argument token that holds it, as written ("lifetime_spend" for "lifetime"). */
  shown: string;
  /** A needle that is verbatim in the argument and in the stating step's output. */
  word: string;
  number: number | null;
}

/** The identifier-like token of `text` that holds `word` ("metro" → "metro_population"), as written. */
function tokenAround(text: string, word: string): string {
  const i = text.toLowerCase().indexOf(word);
  if (i < 0 || text.length !== text.toLowerCase().length) return word;
  const part = /[\p{L}\p{N}_.-]/u;
  let a = i;
  let b = i + word.length;
  while (a > 0 && i - a < 40 && part.test(text[a - 1])) a--;
  while (b < text.length && b - i < 40 && part.test(text[b])) b++;
  return text.slice(a, b).replace(/^[.-]+|[.-]+$/g, '');
}

/** Identifier-like tokens (snake_case, with digits, dates) say more about a wrong argument than plain words. */
function specificity(u: Unsupported): number {
  return /[_\d-]/.test(u.shown) ? 0 : 1;
}

/** Words and numbers of the tool's arguments that neither the request nor an upstream lookup supplied. */
function unsupportedArguments(w: BlameWork, tool: number, upstream: Set<number>): Unsupported[] {
  const g = w.graph;
  const lin = w.lineage;
  const texts = [lin.runInputText];
  let lookups = 0;
  for (const p of [...upstream].sort((a, b) => a - b)) {
    if (lookups >= MAX_SUPPORT_LOOKUPS) break;
    if (g.live[p] && LOOKUP.has(g.steps[p].type)) {
      texts.push(lin.outTextOf(p));
      lookups++;
    }
  }
  const supportText = texts.join('\n');
  const terms = termSet(supportText, 50_000);
  const numbers = numbersIn(supportText);
  const dates = datesIn(supportText);
  const out: Unsupported[] = [];
  const seen = new Set<string>();
  for (const leaf of stringLeaves(g.steps[tool].input as Json)) {
    let text = leaf.text;
    const shown = (word: string): string => tokenAround(leaf.text, word);
    // A date is supported by the same day, or by its month when the request names only the month ("March 2024").
    if (text.includes('-')) {
      ISO_DATE.lastIndex = 0;
      let d: RegExpExecArray | null;
      while ((d = ISO_DATE.exec(leaf.text)) !== null) {
        if (!seen.has(d[0]) && !dates.has(d[0]) && !dates.has(`${d[1]}-${d[2]}`)) out.push({ shown: d[0], word: d[0], number: null });
        seen.add(d[0]);
      }
      text = text.replace(ISO_DATE, ' ');
    }
    LEAF_NUMBER.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = LEAF_NUMBER.exec(text)) !== null) {
      const raw = m[0];
      // Single digits ("top 3", a page number) are too common to say anything.
      if (seen.has(raw) || (!raw.includes('.') && raw.replace(/\D/g, '').length < 2)) continue;
      seen.add(raw);
      const x = Number(raw.replace(/,/g, ''));
      if (!numbers.some((n) => near(n, x, w.settings.blame.number_tolerance))) out.push({ shown: shown(raw), word: raw, number: x });
    }
    for (const word of wordsOf(text, 200)) {
      if (seen.has(word) || word.length <= 2 || /^\d+$/.test(word) || STOPWORDS.has(word) || ARG_SYNTAX.has(word)) continue;
      seen.add(word);
      if (!terms.has(stemTerm(word))) out.push({ shown: shown(word), word, number: null });
    }
  }
  return out;
}

/** The step that first stated one of the unsupported arguments: the earliest upstream non-lookup step whose output holds it. */
function originOf(w: BlameWork, tool: number, upstream: Set<number>, unsupported: Unsupported[]): { pos: number; arg: Unsupported } | null {
  const g = w.graph;
  const lin = w.lineage;
  for (const p of [...upstream].sort((a, b) => a - b)) {
    if (!g.live[p] || LOOKUP.has(g.steps[p].type) || g.steps[p].status !== 'ok' || p >= tool) continue;
    const text = lin.outTextOf(p);
    if (text === '') continue;
    const words = new Set(wordsOf(text, 20_000));
    const nums = unsupported.some((u) => u.number !== null) ? numbersIn(text) : [];
    for (const u of unsupported) {
      const stated = u.number !== null ? nums.some((n) => near(n, u.number!, w.settings.blame.number_tolerance)) : /^[\p{L}\p{N}]+$/u.test(u.word) ? words.has(u.word) : text.includes(u.word);
      if (stated) return { pos: p, arg: u };
    }
  }
  // Nothing upstream states it: the producer the lineage names, most like a generator.
  let best = -1;
  const consider = (c: number): void => {
    if (c < 0 || c >= tool || !g.live[c] || LOOKUP.has(g.steps[c].type)) return;
    if (best === -1 || (GENERATOR_RANK[g.steps[c].type] ?? 0) > (GENERATOR_RANK[g.steps[best].type] ?? 0)) best = c;
  };
  for (const c of lin.inProducers.of(tool)) consider(c);
  if (best === -1 && lin.fromParent[tool]) for (const a of ancestorsOf(g, tool)) for (const c of lin.inProducers.of(a)) consider(c);
  return best === -1 ? null : { pos: best, arg: unsupported[0] };
}

export function faithfulExecutorFindings(w: BlameWork): Finding[] {
  const wrong = wrongValues(w);
  if (wrong.length === 0) return [];
  const g = w.graph;
  const lin = w.lineage;
  // Where each wrong value first entered the run: only tools that succeeded and did not receive it.
  const byTool = new Map<number, Value[]>();
  for (const v of wrong) {
    const p = lin.firstSeen.get(v.h, NOT_SEEN);
    if (p < 0 || !g.live[p] || g.steps[p].type !== 'tool' || g.steps[p].status !== 'ok') continue;
    if (w.recovered.has(p) || isFailed(w.assess[p], g.statuses[p], w.settings) || lin.inHashesOf(p).has(v.h) || !lin.outHashesOf(p).has(v.h)) continue;
    const list = byTool.get(p);
    if (list) list.push(v);
    else byTool.set(p, [v]);
  }
  const out: Finding[] = [];
  const blamed = new Set<number>();
  const st = w.settings.blame.strength;
  const run = w.detail.run;
  for (const [tool, values] of [...byTool].sort((a, b) => b[1].length - a[1].length || a[0] - b[0])) {
    const list = values.slice(0, 3).map((v) => q(v.raw, 40)).join(', ');
    // Who rejected it: a failing verdict, else the expected answer the user gave (which lacks it).
    const byOracle = run.verdict !== null && !run.verdict.pass;
    const rejected = (): Evidence | null =>
      (byOracle ? quoteRun(run, 'verdict', values.find((v) => run.verdict?.detail?.includes(v.raw))?.raw ?? values[0].raw) : null) ?? quoteRun(run, 'output', values[0].raw);
    const upstream = upstreamOf(g, lin, tool, 5_000);
    const unsupported = unsupportedArguments(w, tool, upstream);
    const origin = unsupported.length > 0 ? originOf(w, tool, upstream, unsupported) : null;
    if (origin === null) {
      if (blamed.has(tool)) continue;
      blamed.add(tool);
      out.push({
        pos: tool,
        rule: 'wrong-result',
        strength: st.expected_never_present,
        reason:
          unsupported.length === 0
            ? `${stepLabel(w, tool)} returned ${list}, which ${byOracle ? 'the oracle rejected' : 'the expected answer does not hold'}, for arguments that the request supports: the wrong content entered the run here.`
            : `${stepLabel(w, tool)} returned ${list}, which ${byOracle ? 'the oracle rejected' : 'the expected answer does not hold'}; no earlier step produced its arguments, so the wrong content entered the run here.`,
        evidence: evidenceList(quoteStep(g.steps[tool], 'output', values[0].raw), quoteStep(g.steps[tool], 'input'), rejected()),
        dependent: false,
      });
      continue;
    }
    const { pos, arg } = origin;
    if (blamed.has(pos)) continue;
    blamed.add(pos);
    const shownArgs = [arg, ...unsupported.filter((u) => u !== arg)].sort((a, b) => specificity(a) - specificity(b));
    const argList = [...new Set(shownArgs.map((u) => u.shown))].slice(0, 3).map((t) => q(t, 40)).join(', ');
    const needle = shownArgs.map((u) => u.shown).find((t) => quoteStep(g.steps[pos], 'output', t) !== null) ?? arg.word;
    w.symptoms.push({
      pos: tool,
      causedBy: pos,
      reason: `executed faithfully the arguments that step ${g.steps[pos].step_id} produced (${argList}); its result brought in ${list}`,
    });
    out.push({
      pos,
      rule: 'faithful-executor',
      strength: st.wrong_argument,
      reason: `${stepLabel(w, pos)} produced the arguments of ${stepLabel(w, tool)} (${argList}: not in the request); the tool executed them faithfully and brought in ${list}, which ${byOracle ? 'the oracle rejected' : 'the expected answer does not hold'}.`,
      evidence: evidenceList(
        quoteStep(g.steps[pos], 'output', needle),
        quoteStep(g.steps[tool], 'input', needle) ?? quoteStep(g.steps[tool], 'input', arg.word),
        quoteStep(g.steps[tool], 'output', values[0].raw),
        rejected(),
      ),
      dependent: false,
    });
  }
  return out;
}
