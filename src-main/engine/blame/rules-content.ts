/**
 * Content rules for failures with no error signal:
 *  - plan-ignored: a step wrote a plan (an enumerated list of steps), and
 *    one of its items left no trace in anything that ran after it — no later
 *    step's name or input, and not the final answer. The step that acted on
 *    the plan (the first content step after it that consumed it) skipped it.
 *  - wrong-tool: a tool was called whose name and arguments share nothing
 *    with the request or with what its caller received — a tool chosen for
 *    another question. The step that issued the call is blamed.
 * Words are compared as stemmed content terms (text-terms.ts); nothing here
 * knows any tool, domain or phrasing.
 */
import { quoteStep } from '../text/evidence-quote';
import { jsonText, llmText } from '../text/json-text';
import { toolNameOf } from '../scoring/score-tool';
import { termSet, wordsOf } from '../text/text-terms';
import { evidenceList, q, stepLabel, type BlameWork, type Finding } from './finding';
import { inputProducerOf } from './rules-errors';
import { isAncestor } from './run-graph';

const CONTENT = new Set(['llm', 'agent', 'generic', 'prompt']);
/** A line that starts a list item: "1.", "2)", "- ", "* ", "Step 3:". */
const LIST_ITEM = /^\s*(?:\d{1,2}[.)]|[-*•]|step\s+\d{1,2}\s*[:.)-])\s+(.+)$/gim;
const MIN_PLAN_ITEMS = 2;
const MAX_PLAN_ITEMS = 12;
const MAX_TOOLS_CHECKED = 200;
const MAX_PLAN_STEPS = 50;

/** The items of an enumerated plan in `text`, with their content terms. */
function planItems(text: string): { text: string; terms: Set<string> }[] {
  const items: { text: string; terms: Set<string> }[] = [];
  LIST_ITEM.lastIndex = 0;
  let m: RegExpExecArray | null;
  const head = text.length > 20_000 ? text.slice(0, 20_000) : text;
  while ((m = LIST_ITEM.exec(head)) !== null && items.length <= MAX_PLAN_ITEMS) {
    const terms = termSet(m[1], 60);
    if (terms.size >= 2) items.push({ text: m[1].trim(), terms });
  }
  return items.length >= MIN_PLAN_ITEMS && items.length <= MAX_PLAN_ITEMS ? items : [];
}

/** Everything that ran after step `p` (names and inputs), and the final answer, as terms. */
function laterTerms(w: BlameWork, p: number): Set<string> {
  const g = w.graph;
  const out = new Set<string>();
  let budget = 200_000;
  for (let c = p + 1; c < g.steps.length && budget > 0; c++) {
    if (!g.live[c] || isAncestor(g, c, p)) continue;
    const s = g.steps[c];
    const text = `${s.name} ${s.type === 'tool' || s.type === 'retrieval' ? jsonText(s.input, 4000) : ''} ${s.type === 'tool' || s.type === 'retrieval' ? '' : llmText(s.output).slice(0, 4000)}`;
    budget -= text.length;
    for (const t of termSet(text, 2000)) out.add(t);
  }
  for (const t of termSet(llmText(w.detail.run.output), 5000)) out.add(t);
  return out;
}

export function planIgnoredFindings(w: BlameWork): Finding[] {
  const g = w.graph;
  const share = w.settings.blame.plan_item_done_at;
  // Plans are written before the work: only the first MAX_PLAN_STEPS content steps are read for one.
  let read = 0;
  for (let p = 0; p < g.steps.length && read < MAX_PLAN_STEPS; p++) {
    const s = g.steps[p];
    if (!g.live[p] || !CONTENT.has(s.type) || s.status !== 'ok') continue;
    read++;
    const text = llmText(s.output);
    if (!text.includes('\n')) continue;
    const items = planItems(text);
    if (items.length === 0) continue;
    // The step that acted on the plan: the first later content step that consumed it.
    const actor = w.lineage.consumers.of(p).filter((c) => c > p && g.live[c] && CONTENT.has(g.steps[c].type) && !isAncestor(g, c, p)).sort((a, b) => a - b)[0];
    if (actor === undefined) continue;
    const later = laterTerms(w, p);
    const skipped = items.find((it) => {
      let hit = 0;
      for (const t of it.terms) if (later.has(t)) hit++;
      return hit / it.terms.size < share;
    });
    if (!skipped) continue;
    return [
      {
        pos: actor,
        rule: 'plan-ignored',
        strength: w.settings.blame.strength.plan_ignored,
        reason: `${stepLabel(w, p)} planned ${q(skipped.text, 80)}, but nothing that ran after it, nor the answer, did that; ${stepLabel(w, actor)} acted on the plan and skipped it.`,
        evidence: evidenceList(quoteStep(s, 'output', skipped.text), quoteStep(g.steps[actor], 'output')),
        // Plans are often carried out in other words than they were written in (measured on Who&When: this rule
        // alone named the labelled step in 0 of 25 runs), so it is weak evidence that content suspicion may outrank.
        dependent: true,
      },
    ];
  }
  return [];
}

export function wrongToolFindings(w: BlameWork): Finding[] {
  const g = w.graph;
  const request = termSet(w.lineage.runInputText, 5000);
  if (request.size < 2) return [];
  // The first MAX_TOOLS_CHECKED tool calls: a tool chosen for another question shows early, and a 100k-step run stays cheap.
  const receivedBy = new Map<number, Set<string>>();
  let checked = 0;
  for (let p = 0; p < g.steps.length && checked < MAX_TOOLS_CHECKED; p++) {
    const s = g.steps[p];
    if (!g.live[p] || s.type !== 'tool' || s.status !== 'ok') continue;
    checked++;
    const caller = inputProducerOf(w, p);
    if (caller < 0 || !CONTENT.has(g.steps[caller].type)) continue;
    const call = termSet(`${wordsOf(toolNameOf(s)).join(' ')} ${toolNameOf(s).replace(/[_-]+/g, ' ')} ${jsonText(s.input, 4000)}`, 400);
    if (call.size < 2) continue;
    let shared = 0;
    for (const t of call) if (request.has(t)) shared++;
    if (shared > 0) continue;
    // Nor anything the caller itself received (a follow-up call may rightly use a value from an earlier result).
    let received = receivedBy.get(caller);
    if (!received) receivedBy.set(caller, (received = termSet(w.lineage.inTextOf(caller), 20_000)));
    let fromCaller = 0;
    for (const t of call) if (received.has(t)) fromCaller++;
    if (fromCaller > 0) continue;
    return [
      {
        pos: caller,
        rule: 'wrong-tool',
        strength: w.settings.blame.strength.wrong_tool,
        reason: `${stepLabel(w, caller)} called tool "${toolNameOf(s)}" with arguments that share nothing with the request or with what it received: a tool chosen for another question.`,
        evidence: evidenceList(quoteStep(s, 'input'), quoteStep(g.steps[caller], 'output')),
        dependent: false,
      },
    ];
  }
  return [];
}
