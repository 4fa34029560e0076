/**
 * The held-out blame benchmark: bench/blame/heldout, written after issue 9 by
 * someone who did not read the rules, in the shapes real clients produce
 * (OTLP GenAI, OpenInference, LangChain run trees). Never used to tune rules
 * or constants: its figure is the one to trust, so it is printed first.
 *
 * Two settings:
 *  - as opened: the trace alone (plus --expected for the runs whose class is
 *    an expected answer the output lacks). Failure detection must find the
 *    failure, and blame must name the step.
 *  - asserted: the user says "this run failed" (tb blame --failed); blame
 *    must rank the culprit.
 * A hit is the labelled culprit (strict), or the culprit or one of the
 * alternates the labeller accepted (lenient).
 */
import type { BlameResult, BlamedStep } from '../../src-shared/analysis';
import type { RunDetail } from '../../src-shared/model';
import { blameRun } from '../../src-main/engine/blame/blame-run';
import { DEFAULT_SETTINGS, type Settings } from '../../src-main/engine/scoring/settings';
import { findLabelledStep, loadHeldout, stepMatches, type HeldoutCase } from './heldout/load-heldout';
import { detectorLine, newDetectorTally, tallyDetector, type DetectorTally } from './detector-tally';

interface ClassTally {
  n: number;
  strict1: number;
  lenient1: number;
  lenient3: number;
  assertedLenient1: number;
  assertedLenient3: number;
  detected: number;
}

const newTally = (): ClassTally => ({ n: 0, strict1: 0, lenient1: 0, lenient3: 0, assertedLenient1: 0, assertedLenient3: 0, detected: 0 });

function isCulprit(c: HeldoutCase, detail: RunDetail, b: BlamedStep | undefined): boolean {
  if (!b) return false;
  const step = findLabelledStep(detail, c.culprit, c.culpritOccurrence ?? 0);
  return step?.step_id === b.step_id;
}

function isAccepted(c: HeldoutCase, detail: RunDetail, b: BlamedStep | undefined): boolean {
  if (!b) return false;
  if (isCulprit(c, detail, b)) return true;
  const step = detail.steps.find((s) => s.step_id === b.step_id);
  if (!step) return false;
  // An alternate names a step; a culprit name that repeats without an occurrence accepts any of them.
  return c.alternates.some((a) => stepMatches(step, a)) || (c.culpritOccurrence === undefined && stepMatches(step, c.culprit));
}

function top3(r: BlameResult): BlamedStep[] {
  return [...r.blamed.slice(0, 3), ...r.co_blamed];
}

export interface HeldoutReport {
  lines: string[];
  failures: number;
  lenient1: number;
  strict1: number;
  assertedLenient1: number;
  healthy: number;
  falseAlarms: number;
  detector: DetectorTally;
}

export function benchHeldout(settings: Settings = DEFAULT_SETTINGS): HeldoutReport {
  const cases = loadHeldout();
  const byClass = new Map<string, ClassTally>();
  const total = newTally();
  let healthy = 0;
  let falseAlarms = 0;
  const detector = newDetectorTally();
  const misses: string[] = [];
  for (const c of cases) {
    const failedLabel = c.culprit !== '';
    const expected = c.cls === 'expected-missing' ? c.expected : undefined;
    const r = blameRun(c.detail, { settings, toolStats: {}, ...(expected ? { expected } : {}) });
    tallyDetector(detector, failedLabel, r.detection?.status ?? (r.healthy ? 'healthy' : 'failed'));
    if (!failedLabel) {
      healthy++;
      if (!r.healthy) {
        falseAlarms++;
        misses.push(`  FALSE ALARM ${c.file}: ${r.failure?.description ?? ''} → ${r.blamed[0]?.name ?? '(none)'} [${r.blamed[0]?.rule ?? ''}]`);
      }
      continue;
    }
    const a = blameRun(c.detail, { settings, toolStats: {}, asserted: true, ...(expected ? { expected } : {}) });
    const t = byClass.get(c.cls) ?? newTally();
    byClass.set(c.cls, t);
    for (const x of [t, total]) {
      x.n++;
      if (!r.healthy) x.detected++;
      if (isCulprit(c, c.detail, r.blamed[0])) x.strict1++;
      if (isAccepted(c, c.detail, r.blamed[0])) x.lenient1++;
      if (top3(r).some((b) => isAccepted(c, c.detail, b))) x.lenient3++;
      if (isAccepted(c, c.detail, a.blamed[0])) x.assertedLenient1++;
      if (top3(a).some((b) => isAccepted(c, c.detail, b))) x.assertedLenient3++;
    }
    if (!isAccepted(c, c.detail, a.blamed[0])) {
      misses.push(
        `  MISS ${c.file} [${c.cls}]: expected ${c.culprit}; as opened: ${r.healthy ? `healthy (${r.detection?.status})` : (r.blamed[0] ? `${r.blamed[0].name} (${r.blamed[0].rule})` : 'nothing')}; asserted: ${a.blamed.slice(0, 3).map((b) => `${b.name} (${b.rule} ${b.score})`).join(', ')}`,
      );
    }
  }
  const pct = (a: number, b: number) => (b === 0 ? '   –  ' : `${((100 * a) / b).toFixed(0).padStart(4)}% `);
  const lines: string[] = [];
  lines.push(`HELD-OUT (bench/blame/heldout: ${cases.length} traces in real-client shapes, written after the rules, never tuned on)`);
  lines.push('class                  fails detected | opened: hit@1 strict hit@1  hit@3 | asserted: hit@1  hit@3');
  for (const [name, t] of [...[...byClass.entries()].sort(), ['TOTAL', total] as [string, ClassTally]]) {
    lines.push(
      `${name.padEnd(22)} ${String(t.n).padStart(5)} ${pct(t.detected, t.n)}   |         ${pct(t.lenient1, t.n)}  ${pct(t.strict1, t.n)} ${pct(t.lenient3, t.n)}|          ${pct(t.assertedLenient1, t.n)} ${pct(t.assertedLenient3, t.n)}`,
    );
  }
  lines.push(`healthy look-alikes: ${healthy}, false alarms: ${falseAlarms}`);
  lines.push(detectorLine('held-out failure detector', detector));
  lines.push(...misses);
  return { lines, failures: total.n, lenient1: total.lenient1, strict1: total.strict1, assertedLenient1: total.assertedLenient1, healthy, falseAlarms, detector };
}
