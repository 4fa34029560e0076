/**
 * Known pitfalls and the guard's matcher (docs/motifs.md §4–5): the failure
 * motifs Traceback learned, read from the exported motif file, matched
 * against a task before the prompt is sent (`pitfalls`, `withPitfalls`) and
 * against a proposed call before it runs (`guardCheck`).
 *
 * The grounding gate: a motif applies only when one sentence of the task,
 * quoted verbatim, holds at least `threshold` of the motif's task cue words
 * (by a light stem, so "population" and "populous" meet). No quote, no
 * warning. A task whose own sentence also names the value the motif warns
 * against (it asks for "metro population") gets no warning either. The
 * guard fires only with both quotes: the task's, and the violating value
 * found verbatim in the proposed call. The Python SDK (tracebackai/pitfalls.py)
 * implements the same rules; offline, no key, no dependency.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { traceContext, type RunState } from './run-state.js';

/** The fields of a motif the matcher reads (the file holds more: see src-shared/motifs.ts). */
export interface KnownMotif {
  motif_id: string;
  name: string;
  requirement: string;
  violation: string;
  recommendation: string;
  task_cue: string;
  violation_cue: string;
  step_signature: string;
}

export interface Pitfall {
  motif_id: string;
  name: string;
  /** The sentence of the task that makes the motif apply, verbatim. */
  task_quote: string;
  /** Share of the motif's cue words found in that sentence. */
  coverage: number;
  requirement: string;
  watch: string;
  recommendation: string;
}

export interface GuardFinding extends Pitfall {
  /** The violating value, verbatim from the proposed call. */
  call_quote: string;
}

export interface PitfallOptions {
  /** Only motifs learned at a step of this name ("planner", or "planner#0"). */
  step?: string;
  /** Motifs to use instead of the file. */
  motifs?: KnownMotif[];
  /** The motif file; default $TRACEBACK_MOTIFS, else $TRACEBACK_HOME/motifs.json (home default ~/.traceback). */
  file?: string;
  /** Share of cue words a task sentence must hold; default: the file's thresholds (the app's settings), else 0.70 for pitfalls, 0.80 for the guard. */
  threshold?: number;
}

const PITFALL_THRESHOLD = 0.7;
const GUARD_THRESHOLD = 0.8;

const STOPWORDS = new Set(
  'a an and are as at be been by do does for from has have in is it its of on or that the their them there these they this those to was were what when which who will with whose'.split(' '),
);
const SUFFIXES = ['ations', 'ation', 'ments', 'ment', 'ness', 'ous', 'ings', 'ing', 'ed', 's', 'ly'];
const WORD = /[\p{L}\p{N}]+/gu;

/** A light stem: the same rules in Python, so both SDKs match alike. */
function stem(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  for (const suffix of SUFFIXES) if (word.endsWith(suffix) && word.length - suffix.length >= 4) return word.slice(0, -suffix.length);
  return word;
}

function terms(text: string): string[] {
  const out: string[] = [];
  for (const w of text.toLowerCase().match(WORD) ?? []) if (!STOPWORDS.has(w) && !out.includes(stem(w))) out.push(stem(w));
  return out;
}

/** Sentences (or clauses) of the task as verbatim substrings. */
function sentences(task: string): string[] {
  return (task.match(/[^.!?;\n]+[.!?;]?/g) ?? []).map((s) => s.trim()).filter(Boolean);
}

interface MotifSet {
  motifs: KnownMotif[];
  /** The app's thresholds (its settings), when the file carries them. */
  thresholds?: { pitfall: number; guard: number };
}

const cache = new Map<string, { mtimeMs: number; set: MotifSet }>();

function motifFile(opts: PitfallOptions): string {
  if (opts.file) return opts.file;
  if (process.env.TRACEBACK_MOTIFS) return process.env.TRACEBACK_MOTIFS;
  return path.join(process.env.TRACEBACK_HOME || path.join(os.homedir(), '.traceback'), 'motifs.json');
}

function readMotifFile(file?: string): MotifSet {
  const f = motifFile({ file });
  let stat: fs.Stats;
  try {
    stat = fs.statSync(f);
  } catch {
    return { motifs: [] };
  }
  const hit = cache.get(f);
  if (hit && hit.mtimeMs === stat.mtimeMs) return hit.set;
  let parsed: { format?: unknown; motifs?: unknown; thresholds?: { pitfall?: unknown; guard?: unknown } };
  try {
    parsed = JSON.parse(fs.readFileSync(f, 'utf8')) as typeof parsed;
  } catch (err) {
    throw new Error(`${f}: not valid JSON (${(err as Error).message})`);
  }
  if (parsed.format !== 'traceback-motifs' || !Array.isArray(parsed.motifs)) throw new Error(`${f}: not a Traceback motif file (tb motifs export writes one)`);
  const motifs = (parsed.motifs as KnownMotif[]).filter((m) => typeof m?.task_cue === 'string' && typeof m.motif_id === 'string');
  const t = parsed.thresholds;
  const set: MotifSet = { motifs, ...(t && typeof t.pitfall === 'number' && typeof t.guard === 'number' ? { thresholds: { pitfall: t.pitfall, guard: t.guard } } : {}) };
  cache.set(f, { mtimeMs: stat.mtimeMs, set });
  return set;
}

/** The motifs of the file (none when it does not exist); a file that is not a motif file is an error naming it. */
export function loadMotifs(file?: string): KnownMotif[] {
  return readMotifFile(file).motifs;
}

/** The best-supported sentence of the task for a motif, or null when none reaches the threshold. */
function support(task: string, m: KnownMotif, threshold: number): { quote: string; coverage: number } | null {
  const cue = terms(m.task_cue);
  if (cue.length === 0) return null;
  const against = terms(m.violation_cue);
  let best: { quote: string; coverage: number } | null = null;
  for (const s of sentences(task)) {
    const have = new Set(terms(s));
    const coverage = cue.filter((t) => have.has(t)).length / cue.length;
    // The task itself asks for the value the motif warns against: not this motif's case.
    if (against.length && against.every((t) => have.has(t))) continue;
    if (coverage >= threshold && (!best || coverage > best.coverage)) best = { quote: s, coverage };
  }
  return best;
}

/** The motifs to match (by step) and the threshold: the option, else the app's (from the file), else the default. */
function candidates(opts: PitfallOptions, kind: 'pitfall' | 'guard'): { motifs: KnownMotif[]; threshold: number } {
  const set = opts.motifs ? { motifs: opts.motifs } : readMotifFile(opts.file);
  const step = opts.step?.replace(/#\d+$/, '');
  const threshold = opts.threshold ?? set.thresholds?.[kind] ?? (kind === 'pitfall' ? PITFALL_THRESHOLD : GUARD_THRESHOLD);
  return { motifs: step ? set.motifs.filter((m) => m.step_signature === step) : set.motifs, threshold };
}

function pitfallOf(m: KnownMotif, s: { quote: string; coverage: number }): Pitfall {
  return { motif_id: m.motif_id, name: m.name, task_quote: s.quote, coverage: Math.round(s.coverage * 1000) / 1000, requirement: m.requirement, watch: m.violation, recommendation: m.recommendation };
}

// The task each run last asked about: the guard's default task (guard.ts).
const tasks = new WeakMap<RunState, string>();

/** Tells the guard which task this run works on (pitfalls and withPitfalls do it too). */
export function setGuardTask(task: string): void {
  const run = traceContext.getStore()?.run;
  if (run) tasks.set(run, task);
}

export function rememberedTask(run: RunState): string | undefined {
  return tasks.get(run);
}

/** The motifs that apply to a task, each with the verbatim sentence of the task that makes it apply. */
export function pitfalls(task: string, opts: PitfallOptions = {}): Pitfall[] {
  setGuardTask(task);
  const out: Pitfall[] = [];
  const { motifs, threshold } = candidates(opts, 'pitfall');
  for (const m of motifs) {
    const s = support(task, m, threshold);
    if (s) out.push(pitfallOf(m, s));
  }
  return out.sort((a, b) => b.coverage - a.coverage);
}

/** `prompt` with a KNOWN PITFALLS block before it; unchanged when no motif applies to `task`. */
export function withPitfalls(prompt: string, task: string, opts: PitfallOptions = {}): string {
  const found = pitfalls(task, opts);
  if (found.length === 0) return prompt;
  const lines = ['KNOWN PITFALLS (failures seen before in this pipeline; each applies because of the quoted words of the task):'];
  found.forEach((p, i) => {
    lines.push(`${i + 1}. ${p.name}`);
    lines.push(`   Why it applies: the task says "${p.task_quote}".`);
    lines.push(`   What went wrong before: ${p.watch}`);
    lines.push(`   Recommendation: ${p.recommendation}`);
  });
  return `${lines.join('\n')}\n\n${prompt}`;
}

function textOf(proposed: unknown): string {
  if (typeof proposed === 'string') return proposed;
  try {
    return JSON.stringify(proposed) ?? '';
  } catch {
    return String(proposed);
  }
}

/** Where `needle` occurs in `text` as a whole value (not inside a longer word), case-insensitively; the text found, or null. */
function findWhole(text: string, needle: string): string | null {
  if (!needle) return null;
  const lower = text.toLowerCase();
  const n = needle.toLowerCase();
  for (let i = lower.indexOf(n); i !== -1; i = lower.indexOf(n, i + 1)) {
    const before = i === 0 ? '' : text[i - 1];
    const after = text[i + n.length] ?? '';
    if (!/[\p{L}\p{N}_]/u.test(before) && !/[\p{L}\p{N}_]/u.test(after)) return text.slice(i, i + n.length);
  }
  return null;
}

/** The motifs a proposed call (arguments or code) repeats, for a task they apply to: both quotes, or nothing. */
export function guardCheck(task: string, proposed: unknown, opts: PitfallOptions = {}): GuardFinding[] {
  const text = textOf(proposed);
  const out: GuardFinding[] = [];
  const { motifs, threshold } = candidates(opts, 'guard');
  for (const m of motifs) {
    const callQuote = findWhole(text, m.violation_cue);
    if (!callQuote) continue;
    const s = support(task, m, threshold);
    if (s) out.push({ ...pitfallOf(m, s), call_quote: callQuote });
  }
  return out;
}
