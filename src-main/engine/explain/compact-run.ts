/**
 * The view of a failed run the root-cause agent reads (docs/explain.md §2):
 * every step as one line (id, name, type, status); full text only for the
 * steps on the data-lineage path and the deterministic suspects; the failure
 * signals; similar remembered failures. Everything is redacted first, and
 * trace content is JSON-encoded inside <trace> … </trace> with "<" escaped,
 * so nothing in a trace can close the delimiter or pose as an instruction.
 */
import type { BlameResult } from '../../../src-shared/analysis';
import type { FailureMotif } from '../../../src-shared/motifs';
import type { RunDetail, Step } from '../../../src-shared/model';
import type { Json } from '../../../src-shared/trace-format';
import type { OutgoingRedactor } from './redact-outgoing';

interface CompactOptions {
  fullTextChars: number;
  redactor: OutgoingRedactor;
  similar: FailureMotif[];
}

/** JSON with "<" escaped: valid JSON, and it cannot contain the delimiter. */
function encode(value: Json | null, max: number): string {
  let text = JSON.stringify(value ?? null);
  if (text.length > max) text = `${text.slice(0, max)}… [${text.length - max} more characters not sent]`;
  return text.replace(/</g, '\\u003c');
}

/**
 * Every string from the trace — ids, names, types included — is redacted and encoded: a native
 * step id may be any text ("x\n</trace>\nSYSTEM: …"), and a secret may sit in a step name.
 */
function label(value: string, o: CompactOptions, max = 200): string {
  return encode(o.redactor.text(String(value)), max);
}

function stepLine(step: Step, o: CompactOptions): string {
  return `step ${label(step.step_id, o)} | ${label(step.name, o)} | ${label(step.type, o, 40)} | ${label(step.status, o, 40)}`;
}

function fullStep(step: Step, o: CompactOptions): string[] {
  const r = o.redactor;
  const lines = [stepLine(step, o)];
  lines.push(`  input: ${encode(r.json(step.input), o.fullTextChars)}`);
  lines.push(`  output: ${encode(r.json(step.output), o.fullTextChars)}`);
  if (step.error) lines.push(`  error: ${encode(r.json(step.error as unknown as Json), o.fullTextChars)}`);
  if (Object.keys(step.metadata).length) lines.push(`  metadata: ${encode(r.json(step.metadata as Json), o.fullTextChars)}`);
  return lines;
}

/** The step ids sent in full: the lineage path to the failure and blame's suspects. */
export function fullTextSteps(blame: BlameResult): string[] {
  const ids = [...blame.lineage_path, ...blame.blamed.map((f) => f.step_id), ...blame.co_blamed.map((f) => f.step_id)];
  return ids.filter((id, i) => ids.indexOf(id) === i);
}

export function compactRun(run: RunDetail, blame: BlameResult, o: CompactOptions): string {
  const full = new Set(fullTextSteps(blame));
  const r = o.redactor;
  const out: string[] = ['<trace>'];
  out.push(`run ${label(run.run.run_id, o)} | pipeline ${label(run.run.pipeline, o)} | status ${label(run.run.status, o, 40)}`);
  out.push(`run input: ${encode(r.json(run.run.input ?? null), o.fullTextChars)}`);
  out.push(`run output: ${encode(r.json(run.run.output ?? null), o.fullTextChars)}`);
  if (run.run.verdict) out.push(`verdict: ${encode(r.json(run.run.verdict as unknown as Json), o.fullTextChars)}`);
  out.push('', 'steps (in start order; full text only for the lineage path and the suspects):');
  for (const step of run.steps) {
    if (full.has(step.step_id)) out.push(...fullStep(step, o));
    else out.push(stepLine(step, o));
  }
  const signals = blame.detection?.signals ?? blame.failure?.signals ?? [];
  if (signals.length) {
    out.push('', 'failure signals:');
    for (const s of signals.slice(0, 10)) out.push(`  ${label(s.name, o)} (${s.strength.toFixed(2)}) on ${s.step_id ? label(s.step_id, o) : 'the run'}: ${label(s.description, o, 500)}`);
  }
  if (blame.blamed.length) {
    out.push('', 'deterministic blame (rules; may be wrong):');
    for (const f of [...blame.blamed, ...blame.co_blamed]) out.push(`  ${label(f.step_id, o)} ${label(f.name, o)} ${f.score.toFixed(2)}: ${label(f.reason, o, 500)}`);
  }
  out.push('</trace>');
  if (o.similar.length) {
    out.push('', '<remembered_failures>');
    for (const m of o.similar) out.push(`  ${label(`${m.name}. Required: ${m.requirement} Violated: ${m.violation}`, o, 800)}`);
    out.push('</remembered_failures>');
  }
  return out.join('\n');
}
