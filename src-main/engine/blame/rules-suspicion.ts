/**
 * Rule content-suspicion: in a failed run, the steps whose own content most
 * looks like the decisive mistake (content-suspicion.ts), as findings. They
 * carry at most `blame.suspicion.strength_max`, below the rules that show a
 * mechanism (an error's origin, a wrong argument executed faithfully), so
 * they decide the ranking where no such rule speaks — content errors with no
 * error signal — and add candidates beside the rules otherwise.
 */
import { quoteStep } from '../text/evidence-quote';
import { suspicionOf, type StepSuspicion } from './content-suspicion';
import { evidenceList, q, stepLabel, type BlameWork, type Finding } from './finding';


function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

function reasonOf(w: BlameWork, r: StepSuspicion): { reason: string; evidence: Finding['evidence'] } {
  const g = w.graph;
  const step = g.steps[r.pos];
  const parts: string[] = [];
  const evidence: (Finding['evidence'][number] | null)[] = [];
  if (r.features.error_writer > 0 && r.failedCall >= 0) {
    const call = g.steps[r.failedCall];
    const check = w.assess[r.failedCall].checks.find((c) => c.hard && c.name === 'tool.error_payload');
    parts.push(`wrote the input of ${stepLabel(w, r.failedCall)}, the first call that failed${check ? ` (${check.explanation})` : ''}`);
    evidence.push((check?.evidence as Finding['evidence'][number] | undefined) ?? quoteStep(call, 'output'));
  }
  if (r.features.answer_origin > 0 && r.originValues.length > 0) {
    parts.push(`is where ${r.originValues.slice(0, 2).map((v) => q(v.raw, 30)).join(', ')}, which the final answer states, first appeared`);
    evidence.push(quoteStep(step, 'output', r.originValues[0].raw));
  }
  if (r.ungroundedValues.length > 0) {
    parts.push(`stated ${r.ungroundedValues.slice(0, 3).map((v) => q(v.raw, 30)).join(', ')}, which nothing it received held`);
    evidence.push(quoteStep(step, 'output', r.ungroundedValues[0].raw));
  }
  if (parts.length === 0) parts.push('produced the content the rest of the run built on, and no rule found a clearer cause');
  evidence.push(quoteStep(step, 'output'));
  return { reason: `${stepLabel(w, r.pos)} ${parts.join('; ')}.`, evidence: evidenceList(...evidence) };
}

export function suspicionFindings(w: BlameWork, others: Finding[], max = w.settings.blame.suspicion.max_suspects): Finding[] {
  const cfg = w.settings.blame.suspicion;
  // A rule that shows a mechanism (not bad content an upstream fault explains) outranks suspicion: then it adds nothing.
  if (others.some((f) => !f.dependent)) return [];
  const rows = [...suspicionOf(w)].sort((a, b) => b.score - a.score || a.pos - b.pos);
  const out: Finding[] = [];
  for (const r of rows.slice(0, max)) {
    const { reason, evidence } = reasonOf(w, r);
    out.push({
      pos: r.pos,
      rule: 'content-suspicion',
      strength: cfg.strength_max * sigmoid(r.score + cfg.bias),
      reason,
      evidence,
      dependent: others.length > 0,
    });
  }
  return out;
}
