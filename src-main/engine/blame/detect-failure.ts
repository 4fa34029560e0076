/**
 * Failure detection: did this run fail? Answered from the trace alone, apart
 * from "which step caused it" (DESIGN.md §6). Every signal has a name, a
 * strength in [0, 1] (`failure.strength.*` in the settings) and the step it
 * was seen on; the run is
 *  - failed when the strongest signal reaches `failure.failed_at`,
 *  - unknown when it reaches `failure.unknown_at` (blame stays quiet, the
 *    signals are shown),
 *  - healthy otherwise.
 * A passing verdict makes the run healthy whatever the heuristics say (the
 * user's oracle outranks us); the user asserting a failure makes it failed.
 */
import type { Evidence, FailureDetection, FailureSignal } from '../../../src-shared/analysis';
import { quoteRun, quoteStep } from '../text/evidence-quote';
import { finalAnswerSignals } from './final-answer-signals';
import { signal } from './failure-signal';
import type { BlameWork } from './finding';
import { isFailed } from './recovery';
import { errorText } from './rules-errors';
import { checkNamed } from '../scoring/score-run';
import { F_UPSTREAM_ERROR, S_ERROR, S_RUNNING } from './step-codes';
import type { TraceError } from '../../../src-shared/trace-format';

/** What the detector reads: the prepared blame work (graph, checks, lineage, loops) and whether the user asserted the failure. */
export type DetectionInput = BlameWork & { asserted: boolean };

/** An error's first line, as blame's reasons write it. */
function errorLine(e: TraceError | null): string {
  return errorText(e).split('\n')[0].slice(0, 200);
}

/** Whether a live step is still running. */
function anyUnfinished(g: DetectionInput['graph']): boolean {
  for (let p = 0; p < g.steps.length; p++) if (g.live[p] && g.statuses[p] === S_RUNNING) return true;
  return false;
}

/** Signals from what the user and the run itself recorded: verdicts, scores, errors, an unfinished run. */
function recordedSignals(x: DetectionInput): FailureSignal[] {
  const { detail, graph: g, assess, recovered, settings } = x;
  const st = settings.failure.strength;
  const run = detail.run;
  const out: FailureSignal[] = [];
  if (run.verdict && !run.verdict.pass) {
    out.push(signal('verdict', st.verdict, `the oracle failed the run${run.verdict.detail ? `: ${run.verdict.detail}` : ''}`, null, quoteRun(run, 'verdict', run.verdict.detail)));
  }
  if (run.status === 'error') out.push(signal('run-error', st.run_error, `the run ended in error${run.error ? `: ${errorLine(run.error)}` : ''}`, null, quoteRun(run, 'error', run.error?.message)));
  if (run.status === 'incomplete' && anyUnfinished(g)) {
    out.push(signal('incomplete', st.incomplete, 'the run stopped while steps were still running', null));
  }
  const low = (run.user_scores ?? []).find((s) => s.value < settings.scoring.unhealthy_below);
  if (low) out.push(signal('user-score', st.user_score, `the user scored the run "${low.name}" ${low.value}${low.explanation ? ` (${low.explanation})` : ''}`, null));
  for (let p = 0; p < assess.length; p++) {
    if (!g.live[p] || recovered.has(p) || !isFailed(assess[p], g.statuses[p], settings)) continue;
    const s = g.steps[p];
    if (g.statuses[p] === S_ERROR) {
      out.push(signal('unrecovered-error', st.unrecovered_error, `step "${s.name}" failed with ${errorLine(s.error)} and nothing recovered from it`, s, quoteStep(s, 'error')));
      break;
    }
  }
  for (let p = 0; p < assess.length; p++) {
    if (!g.live[p] || recovered.has(p) || g.statuses[p] === S_ERROR || !isFailed(assess[p], g.statuses[p], settings)) continue;
    const worst = assess[p].checks.filter((c) => c.hard).sort((a, b) => a.value - b.value)[0];
    const inSlice = x.slice.has(p);
    const errorPayload = worst?.name === 'tool.error_payload';
    // A hard check on a step the answer rests on fails the run; an error payload anywhere does too (nothing recovered from it).
    if (!inSlice && !errorPayload) continue;
    const evidence = worst?.evidence ? (worst.evidence as Evidence) : null;
    out.push(
      signal(
        errorPayload ? 'error-payload' : 'bad-output',
        errorPayload ? st.error_payload : st.bad_output,
        `${inSlice ? 'the final output rests on ' : ''}step "${g.steps[p].name}", which ${worst?.explanation ?? 'failed a check'}`,
        g.steps[p],
        evidence,
      ),
    );
    break;
  }
  return out;
}

/** Error text that a tracing client left in a later step's input or output, with no errored step to explain it. */
function hiddenErrorSignals(x: DetectionInput): FailureSignal[] {
  const g = x.graph;
  for (let p = 0; p < g.steps.length; p++) {
    if (!g.live[p] || (g.facts[p] & F_UPSTREAM_ERROR) === 0) continue;
    const quote = g.steps[p].metadata.upstream_error;
    const text = Array.isArray(quote) ? String(quote[0]) : String(quote);
    return [
      signal(
        'hidden-error',
        x.settings.failure.strength.hidden_error,
        `step "${g.steps[p].name}" quotes an error that no recorded step raised ("${text.slice(0, 100)}"): a failing call left no trace`,
        g.steps[p],
        quoteStep(g.steps[p], 'input', text) ?? quoteStep(g.steps[p], 'output', text),
      ),
    ];
  }
  return [];
}

/** Loops and sampled choices that disagree, on steps the answer rests on. */
function behaviourSignals(x: DetectionInput): FailureSignal[] {
  const { graph: g, assess, settings } = x;
  const st = settings.failure.strength;
  const out: FailureSignal[] = [];
  const loop = x.loops[0];
  if (loop) {
    const first = loop.occurrences[0];
    out.push(signal('no-progress', st.no_progress, `"${loop.name}" repeated ${loop.occurrences.length} times with the same content`, g.steps[first], quoteStep(g.steps[first], 'input')));
  }
  for (let p = 0; p < assess.length; p++) {
    if (!g.live[p] || (x.slice.size > 0 && !x.slice.has(p))) continue;
    const c = checkNamed(assess[p], 'llm.consistency');
    if (c && c.value < settings.scoring.llm.consistency_floor) {
      out.push(signal('samples-disagree', st.samples_disagree, `the sampled choices of step "${g.steps[p].name}" disagree (${c.explanation})`, g.steps[p], quoteStep(g.steps[p], 'output')));
      break;
    }
  }
  return out;
}

function decide(signals: FailureSignal[], x: DetectionInput): FailureDetection {
  const f = x.settings.failure;
  const sorted = [...signals].sort((a, b) => b.strength - a.strength);
  const top = sorted[0];
  const run = x.detail.run;
  if (x.asserted) {
    return {
      status: 'failed',
      kind: 'asserted',
      description: `the user marked the run as failed${x.expected ? ` (expected: ${x.expected.slice(0, 120)})` : ''}${top ? `; also ${top.description}` : ''}`,
      signals: sorted,
      asserted: true,
    };
  }
  if (run.verdict?.pass) {
    return { status: 'healthy', kind: null, description: 'the oracle passed the run', signals: sorted, asserted: false };
  }
  if (!top || top.strength < f.unknown_at) return { status: 'healthy', kind: null, description: 'no failure signal', signals: sorted, asserted: false };
  if (top.strength < f.failed_at) return { status: 'unknown', kind: top.name, description: `possibly failed: ${top.description}`, signals: sorted, asserted: false };
  return { status: 'failed', kind: top.name, description: top.description, signals: sorted, asserted: false };
}

export function detectFailure(x: DetectionInput): FailureDetection {
  const signals = [...recordedSignals(x), ...hiddenErrorSignals(x), ...finalAnswerSignals(x), ...behaviourSignals(x)];
  return decide(signals, x);
}
