/**
 * A failure motif derived, without a model, from a confirmed cause: the step
 * an experiment proved (its output replaced by the fixed one made the run
 * pass) and the failing run's evidence. The motif is abstract: it keeps the
 * words of the task that the fix depends on and the value the step wrongly
 * produced, never numbers or the run's other values (docs/motifs.md §2).
 */
import type { BlameResult, Evidence } from '../../../src-shared/analysis';
import type { ExperimentSummary } from '../../../src-shared/experiments';
import type { FailureMotif } from '../../../src-shared/motifs';
import type { RunDetail, Step } from '../../../src-shared/model';
import type { Json } from '../../../src-shared/trace-format';
import { jsonText, stringLeaves } from '../text/json-text';
import { stemTerm, STOPWORDS, termSet } from '../text/text-terms';
import { newMotifId } from './motif-store';
import { outgoingRedactor } from '../explain/redact-outgoing';

export interface ConfirmedCause {
  source: RunDetail;
  step: Step;
  /** The output that made the run pass (the passing run's, or the verified edit's). */
  fixedOutput: Json;
  blame: BlameResult | null;
  experiment: ExperimentSummary | null;
  origin: 'blame' | 'agent';
  /** The agent's one-sentence hypothesis, when it wrote the motif. */
  hypothesis?: string;
}

const HAS_DIGIT = /\d/;
/** Longer leaves are prose, not a value a guard can look for. */
const CUE_MAX = 80;

/** The step's name without an occurrence suffix ("planner#0" → "planner"). */
export function stepSignature(step: Pick<Step, 'name'>): string {
  return step.name.replace(/#\d+$/, '');
}

/** The first leaf (by path) whose text differs between the failing and the fixed output, skipping numbers (run-specific values). */
function firstDifferingLeaf(failing: Json | null, fixed: Json): { path: string; wrong: string; right: string } | null {
  const wrong = new Map(stringLeaves(failing).map((l) => [l.path, l.text]));
  for (const leaf of stringLeaves(fixed)) {
    const w = wrong.get(leaf.path);
    if (w === undefined || w === leaf.text) continue;
    if (HAS_DIGIT.test(leaf.text) || HAS_DIGIT.test(w) || leaf.text.length > CUE_MAX || w.length > CUE_MAX) continue;
    return { path: leaf.path, wrong: w, right: leaf.text };
  }
  return null;
}

/** Words of the task (verbatim, in order, once each) whose stems occur in `value`: what the fix depends on. */
function taskWordsSupporting(task: string, value: string): string[] {
  const wanted = termSet(value);
  const out: string[] = [];
  const seen = new Set<string>();
  for (const w of task.match(/[\p{L}]+(?:['’]\p{L}+)?/gu) ?? []) {
    const lower = w.toLowerCase();
    if (STOPWORDS.has(lower)) continue;
    const stem = stemTerm(lower);
    if (!wanted.has(stem) || seen.has(stem)) continue;
    seen.add(stem);
    out.push(lower);
  }
  return out;
}

function evidenceFor(c: ConfirmedCause, wrong: string | null): Evidence[] {
  const found = [...(c.blame?.blamed ?? []), ...(c.blame?.co_blamed ?? [])].find((f) => f.step_id === c.step.step_id)?.evidence ?? [];
  const out = found.slice(0, 3);
  if (wrong && !out.some((e) => e.quote.includes(wrong))) out.push({ step_id: c.step.step_id, field: 'output', quote: wrong });
  return out;
}

function proofOf(e: ExperimentSummary | null): FailureMotif['proof'] {
  if (!e || e.treatment.rate === null || e.control.rate === null) return null;
  return { experiment_id: e.experiment_id, treatment_pass_rate: e.treatment.rate, control_pass_rate: e.control.rate, p_value: e.p_value };
}

/** Longest text a motif field keeps: the export format caps names at 500 characters (motif-file.ts). */
const MOTIF_TEXT_MAX = 480;

/**
 * A motif is shared (`tb motifs export`) and read by the SDKs into prompts, so what it copies from
 * the trace is passed through the same secret redaction as anything sent to a model, and capped.
 */
function cleanMotif(m: FailureMotif): FailureMotif {
  const r = outgoingRedactor([], []);
  const t = (v: string) => {
    const red = r.text(v);
    return red.length > MOTIF_TEXT_MAX ? `${red.slice(0, MOTIF_TEXT_MAX)}…` : red;
  };
  return {
    ...m,
    name: t(m.name),
    requirement: t(m.requirement),
    violation: t(m.violation),
    recommendation: t(m.recommendation),
    task_cue: t(m.task_cue),
    violation_cue: t(m.violation_cue),
    evidence: m.evidence.map((e) => ({ ...e, quote: t(e.quote) })),
    fix: m.fix ? { ...m.fix, summary: t(m.fix.summary) } : m.fix,
  };
}

export function deriveMotif(c: ConfirmedCause, now = Date.now()): FailureMotif {
  return cleanMotif(deriveRawMotif(c, now));
}

function deriveRawMotif(c: ConfirmedCause, now: number): FailureMotif {
  const sig = stepSignature(c.step);
  const task = jsonText(c.source.run.input ?? null, 20_000);
  const leaf = firstDifferingLeaf(c.step.output, c.fixedOutput);
  const failure = c.blame?.failure;
  const base = {
    motif_id: newMotifId(),
    step_signature: sig,
    step_type: c.step.type,
    failure_kind: failure?.kind ?? null,
    signals: (failure?.signals ?? []).map((s) => s.name).filter((n, i, all) => all.indexOf(n) === i).slice(0, 10),
    proof: proofOf(c.experiment),
    origin: c.origin,
    source_run_id: c.source.run.run_id,
    learned_from_run: c.source.run.run_id,
    pipeline: c.source.run.pipeline,
    created_at: now,
  };
  if (leaf) {
    const field = leaf.path || 'output';
    const cueWords = taskWordsSupporting(task, leaf.right);
    const cue = cueWords.join(' ');
    const when = cue ? `When the task says "${cue}", ` : '';
    return {
      ...base,
      name: `${sig} set ${field} to "${leaf.wrong}" instead of "${leaf.right}"`,
      requirement: `${when}${sig}'s ${field} must be "${leaf.right}".`,
      violation: `${sig} set ${field} to "${leaf.wrong}".`,
      recommendation: `Use "${leaf.right}" for ${field}${cue ? ` when the task asks about "${cue}"` : ''}; "${leaf.wrong}" made the run fail.`,
      task_cue: cue,
      violation_cue: leaf.wrong,
      evidence: evidenceFor(c, leaf.wrong),
      fix: { kind: 'output', summary: `${field}: "${leaf.wrong}" → "${leaf.right}"` },
    };
  }
  // No single value differs (free text): the task words the fixed output uses and the failing one lacks.
  const fixedText = jsonText(c.fixedOutput, 20_000);
  const failingTerms = termSet(jsonText(c.step.output, 20_000));
  const missing = taskWordsSupporting(task, fixedText).filter((w) => !failingTerms.has(stemTerm(w))).slice(0, 6);
  const cue = missing.join(' ');
  const reason = c.hypothesis ?? c.blame?.blamed.find((f) => f.step_id === c.step.step_id)?.reason ?? `${sig} produced an output that made the run fail`;
  return {
    ...base,
    name: `${sig} left out ${cue ? `"${cue}"` : 'what the task asked for'}`,
    requirement: cue ? `When the task says "${cue}", ${sig}'s output must address it.` : `${sig}'s output must address the task.`,
    violation: reason,
    recommendation: cue ? `Make ${sig} address "${cue}" explicitly.` : `Check ${sig}'s output against the task.`,
    task_cue: cue,
    violation_cue: '',
    evidence: evidenceFor(c, null),
    fix: { kind: 'output', summary: `replace ${sig}'s output (the fixed one uses ${cue ? `"${cue}"` : 'other text'})` },
  };
}
