/**
 * The pieces every failure-signal source shares: how a signal is made (with
 * only the evidence that was found), and what the run's final answer says.
 */
import type { Evidence, FailureSignal } from '../../../src-shared/analysis';
import type { RunDetail, Step } from '../../../src-shared/model';
import { jsonText, llmText } from '../text/json-text';
import type { Lineage } from './lineage';
import type { RunGraph } from './run-graph';

export function signal(name: string, strength: number, description: string, step: Step | null, ...evidence: (Evidence | null)[]): FailureSignal {
  const ev = evidence.filter((e): e is Evidence => e !== null);
  return { name, strength, step_id: step?.step_id ?? null, description, ...(ev.length ? { evidence: ev } : {}) };
}

/** The text of the run's final answer: the run's output, else the final producer's. */
export function finalAnswerText(detail: RunDetail, g: RunGraph, lin: Lineage): string {
  if (detail.run.output !== null) return llmText(detail.run.output) || jsonText(detail.run.output);
  const f = lin.finalProducer;
  return f >= 0 ? llmText(g.steps[f].output) : '';
}
