/**
 * Planted faults: take a healthy run and inject one known fault
 * mechanically, producing a labelled failure. Each injector edits a deep
 * copy of the run, lets the fault's content flow downstream the way it would
 * in the pipeline (removed passages disappear from later inputs, a wrong
 * value replaces the right one in later steps), and marks the run failed
 * (a failing verdict, or an error status for a failing tool). It returns
 * null when the run has no step the fault applies to.
 */
import type { RunDetail, Step } from '../../src-shared/model';
import type { Json } from '../../src-shared/trace-format';
import { jsonText, passagesOf } from '../../src-main/engine/text/json-text';
import { valuesOf } from '../../src-main/engine/blame/value-features';

export interface Planted {
  fault: string;
  detail: RunDetail;
  expected: string;
}

function replaceStrings(v: Json | null, from: string, to: string): Json | null {
  if (typeof v === 'string') return v.split(from).join(to);
  if (Array.isArray(v)) return v.map((x) => replaceStrings(x, from, to) as Json);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, Json> = {};
    for (const k of Object.keys(v)) out[k] = replaceStrings(v[k], from, to) as Json;
    return out;
  }
  return v;
}

function labelOf(d: RunDetail, s: Step): string {
  return d.steps.filter((x) => x.name === s.name).length > 1 ? s.replay_key : s.name;
}

function propagate(d: RunDetail, after: number, from: string, to: string): void {
  for (const s of d.steps) {
    if (s.index <= after) continue;
    s.input = replaceStrings(s.input, from, to);
    s.output = replaceStrings(s.output, from, to);
  }
  d.run.output = replaceStrings(d.run.output, from, to);
}

function failWithAnswer(d: RunDetail, answer: string, detail: string): void {
  const finalLlm = [...d.steps].reverse().find((s) => s.type === 'llm' && s.status === 'ok');
  if (finalLlm) {
    const old = jsonText(finalLlm.output);
    finalLlm.output = answer;
    for (const s of d.steps) if (s.index > finalLlm.index && old) s.output = replaceStrings(s.output, old, answer);
  }
  d.run.output = answer;
  d.run.verdict = { pass: false, detail: `planted fault: ${detail}` };
}

function clone(d: RunDetail, suffix: string): RunDetail {
  const c = structuredClone(d);
  c.run.run_id = `${d.run.run_id}+${suffix}`;
  c.run.pipeline = `${d.run.pipeline}+${suffix}`;
  for (const s of c.steps) s.run_id = c.run.run_id;
  return c;
}

function plantEmptyRetrieval(base: RunDetail): Planted | null {
  const d = clone(base, 'empty-retrieval');
  const target = d.steps.find((s) => s.type === 'retrieval' && s.status === 'ok' && (passagesOf(s.output)?.length ?? 0) > 0);
  if (!target) return null;
  for (const p of passagesOf(target.output) ?? []) if (p.length >= 20) propagate(d, target.index, p, '');
  target.output = [];
  failWithAnswer(d, "I don't have enough information to answer that.", 'empty retrieval');
  return { fault: 'empty-retrieval', detail: d, expected: labelOf(d, target) };
}

function perturb(kind: string, raw: string): string | null {
  if (kind === 'name') return raw === 'Springfield' ? 'Riverside' : 'Springfield';
  if (kind === 'date') return raw.replace(/\d{4}/, (y) => String(Number(y) - 1));
  if (kind === 'number') return String(Number(raw.replace(/,/g, '')) + 7);
  if (kind === 'id') return raw.replace(/\d(?=\D*$)/, (c) => String((Number(c) + 3) % 10));
  return null;
}

function plantWrongArgument(base: RunDetail): Planted | null {
  const d = clone(base, 'wrong-argument');
  const request = valuesOf(jsonText(d.run.input)).filter((v) => v.kind !== 'email' && v.kind !== 'url');
  for (const t of d.steps) {
    if ((t.type !== 'tool' && t.type !== 'retrieval') || t.status !== 'ok') continue;
    const input = jsonText(t.input);
    const v = request.find((r) => input.includes(r.raw));
    if (!v) continue;
    const producer = [...d.steps].reverse().find((s) => s.index < t.index && s.type === 'llm' && jsonText(s.output).includes(v.raw));
    if (!producer) continue;
    const wrong = perturb(v.kind, v.raw);
    if (!wrong || wrong === v.raw) continue;
    producer.output = replaceStrings(producer.output, v.raw, wrong);
    t.input = replaceStrings(t.input, v.raw, wrong);
    propagate(d, t.index - 1, v.raw, wrong);
    // The request itself keeps the right value: only steps from the producer on carry the wrong one.
    d.run.verdict = { pass: false, detail: `planted fault: wrong argument ${wrong} instead of ${v.raw}` };
    return { fault: 'wrong-argument', detail: d, expected: labelOf(d, producer) };
  }
  return null;
}

function promptStep(d: RunDetail): Step | undefined {
  return d.steps.find((s) => s.type === 'prompt' && s.status === 'ok' && typeof s.output === 'string' && (passagesOf(s.input)?.length ?? 0) > 0);
}

function plantTruncatedPrompt(base: RunDetail): Planted | null {
  const d = clone(base, 'truncated-prompt');
  const target = promptStep(d);
  if (!target) return null;
  const full = target.output as string;
  const cut = full.slice(0, Math.floor(full.length * 0.25));
  target.output = cut;
  propagate(d, target.index, full, cut);
  failWithAnswer(d, 'I am not sure.', 'truncated prompt');
  return { fault: 'truncated-prompt', detail: d, expected: labelOf(d, target) };
}

function plantDroppedContext(base: RunDetail): Planted | null {
  const d = clone(base, 'dropped-context');
  const target = promptStep(d);
  if (!target) return null;
  const full = target.output as string;
  let out = full;
  for (const p of passagesOf(target.input) ?? []) out = out.split(p).join('');
  if (out === full) return null;
  target.output = out;
  propagate(d, target.index, full, out);
  failWithAnswer(d, 'I am not sure.', 'dropped context');
  return { fault: 'dropped-context', detail: d, expected: labelOf(d, target) };
}

function plantFailingTool(base: RunDetail): Planted | null {
  const d = clone(base, 'failing-tool');
  const target = d.steps.find((s) => (s.type === 'tool' || s.type === 'retrieval') && s.status === 'ok');
  if (!target) return null;
  const ancestors = new Set<string>();
  let p = target.parent_id;
  while (p) {
    ancestors.add(p);
    p = d.steps.find((s) => s.step_id === p)?.parent_id ?? null;
  }
  target.status = 'error';
  target.output = null;
  target.error = { type: 'TimeoutError', message: 'planted: the call timed out after 30 s' };
  d.steps = d.steps.filter((s) => s.index <= target.index || ancestors.has(s.step_id));
  for (const s of d.steps) {
    if (!ancestors.has(s.step_id)) continue;
    s.status = 'error';
    s.output = null;
    s.error = { type: 'PipelineError', message: 'aborted after a failed step' };
  }
  d.run.status = 'error';
  d.run.output = null;
  d.run.error = { type: 'PipelineError', message: 'aborted after a failed step' };
  d.run.verdict = null;
  d.run.steps = d.steps.length;
  return { fault: 'failing-tool', detail: d, expected: labelOf(d, target) };
}

const INJECTORS = [plantEmptyRetrieval, plantWrongArgument, plantTruncatedPrompt, plantDroppedContext, plantFailingTool];

export function plantAll(bases: RunDetail[]): Planted[] {
  const out: Planted[] = [];
  for (const b of bases) for (const inject of INJECTORS) {
    const p = inject(b);
    if (p) out.push(p);
  }
  return out;
}
