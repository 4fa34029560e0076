/**
 * Who&When (Zhang et al., ICML 2025), algorithm-generated subset: 126 failure
 * logs of multi-agent runs (../shared/datasets/whowhen-ag, MIT), each labelled
 * with the agent and the history index of the decisive mistake. Every log is
 * imported the way a user would import it (as a chat transcript through the
 * real importer) and blamed as an asserted failure, without and with the
 * ground-truth answer as the expected answer. Step accuracy: blame's top step
 * is the labelled message; agent accuracy: its speaker is the labelled agent.
 *
 * Label-free baselines are computed on the same logs in the same run, and the
 * published figures quoted from the dataset's README. This set is the
 * development set: rules are tuned on it, so its figure is not a held-out one
 * (bench/blame/heldout is). To show that fitted weights generalise, the logs
 * are also reported in two halves (odd and even ids).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BlameResult } from '../../src-shared/analysis';
import type { RunDetail } from '../../src-shared/model';
import { blameRun } from '../../src-main/engine/blame/blame-run';
import { foldRecords } from '../../src-main/engine/ingest/native/fold-records';
import { detectForeignFormat, parseForeignFile } from '../../src-main/engine/ingest/foreign/index';
import { DEFAULT_SETTINGS, type Settings } from '../../src-main/engine/scoring/settings';

const HERE = dirname(fileURLToPath(import.meta.url));
const WHOWHEN_DIR = join(HERE, '..', '..', '..', 'shared', 'datasets', 'whowhen-ag');

interface WhoWhenMessage {
  role?: string;
  name?: string;
  content: string;
}

export interface WhoWhenLog {
  id: number;
  question: string;
  groundTruth: string;
  history: WhoWhenMessage[];
  mistakeAgent: string;
  mistakeStep: number;
  detail: RunDetail;
}

/** The log as a user would hand it to `tb import`: the file as published, read by the chat-transcript importer. */
function importLog(id: number, text: string): WhoWhenLog {
  const raw = JSON.parse(text) as Record<string, unknown>;
  const history = raw.history as WhoWhenMessage[];
  const name = `${id}.json`;
  const format = detectForeignFormat(text.slice(0, 64 * 1024), name);
  if (format !== 'chat-transcript') throw new Error(`${name}: detected as ${format}, not a chat transcript`);
  const { records, errors } = parseForeignFile(text, format, name);
  const bad = errors.find((e) => e.level === 'error');
  if (bad) throw new Error(`${name}: line ${bad.line}: ${bad.message}`);
  const [detail] = foldRecords(records, { final: true });
  if (!detail || detail.steps.length !== history.length) throw new Error(`${name}: expected ${history.length} steps`);
  return {
    id,
    question: String(raw.question ?? ''),
    groundTruth: String(raw.ground_truth ?? ''),
    history,
    mistakeAgent: String(raw.mistake_agent ?? ''),
    mistakeStep: Number(raw.mistake_step),
    detail,
  };
}

export function loadWhoWhen(dir = WHOWHEN_DIR): WhoWhenLog[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => /^\d+\.json$/.test(f))
    .map((f) => importLog(Number(f.replace('.json', '')), readFileSync(join(dir, f), 'utf8')))
    .sort((a, b) => a.id - b.id);
}

/** History index of a step: the transcript importer numbers messages in order (step ids m0, m1, …). */
function historyIndex(log: WhoWhenLog, stepId: string | undefined): number {
  if (!stepId) return -1;
  return log.detail.steps.findIndex((s) => s.step_id === stepId);
}

/** The label-free rule from the dataset's README: the first message after the question that is not from a code terminal. */
function firstNonTerminal(log: WhoWhenLog): number {
  for (let i = 1; i < log.history.length; i++) if (!/terminal/i.test(log.history[i].name ?? '')) return i;
  return 0;
}

interface Score {
  step: number;
  agent: number;
  n: number;
}

function pct(x: Score, k: 'step' | 'agent'): string {
  return x.n === 0 ? '–' : `${((100 * x[k]) / x.n).toFixed(1)}%`;
}

export interface WhoWhenReport {
  lines: string[];
  without: Score;
  withTruth: Score;
  baseline: Score;
  /** Runs the detector called failed unassisted (no assertion, no expected answer). */
  detected: number;
  detectedWithTruth: number;
  n: number;
}

export function benchWhoWhen(settings: Settings = DEFAULT_SETTINGS): WhoWhenReport {
  const logs = loadWhoWhen();
  const lines: string[] = [];
  const zero = (): Score => ({ step: 0, agent: 0, n: 0 });
  const without = zero();
  const withTruth = zero();
  const baseline = zero();
  const halves = { odd: { without: zero(), withTruth: zero() }, even: { without: zero(), withTruth: zero() } };
  let detected = 0;
  let detectedWithTruth = 0;
  const tally = (s: Score, log: WhoWhenLog, idx: number): void => {
    s.n++;
    if (idx === log.mistakeStep) s.step++;
    if (idx >= 0 && log.history[idx]?.name === log.mistakeAgent) s.agent++;
  };
  for (const log of logs) {
    const half = log.id % 2 === 1 ? halves.odd : halves.even;
    tally(baseline, log, firstNonTerminal(log));
    const plain: BlameResult = blameRun(log.detail, { settings, toolStats: {} });
    if (!plain.healthy) detected++;
    const a = blameRun(log.detail, { settings, toolStats: {}, asserted: true });
    tally(without, log, historyIndex(log, a.blamed[0]?.step_id));
    tally(half.without, log, historyIndex(log, a.blamed[0]?.step_id));
    const withExpected = blameRun(log.detail, { settings, toolStats: {}, expected: log.groundTruth });
    if (!withExpected.healthy) detectedWithTruth++;
    const b = withExpected.healthy ? blameRun(log.detail, { settings, toolStats: {}, expected: log.groundTruth, asserted: true }) : withExpected;
    tally(withTruth, log, historyIndex(log, b.blamed[0]?.step_id));
    tally(half.withTruth, log, historyIndex(log, b.blamed[0]?.step_id));
  }
  if (logs.length === 0) {
    lines.push(`Who&When: data set not found at ${WHOWHEN_DIR}; skipped`);
    return { lines, without, withTruth, baseline, detected, detectedWithTruth, n: 0 };
  }
  lines.push(`Who&When algorithm-generated subset: ${logs.length} failure logs (development set: rules were tuned on it)`);
  lines.push('method                                         step     agent');
  lines.push(`Traceback, asserted failure, no answer given   ${pct(without, 'step').padStart(6)}   ${pct(without, 'agent').padStart(6)}`);
  lines.push(`Traceback, with the ground-truth answer        ${pct(withTruth, 'step').padStart(6)}   ${pct(withTruth, 'agent').padStart(6)}`);
  lines.push(`  odd ids / even ids (no answer)               ${pct(halves.odd.without, 'step')} / ${pct(halves.even.without, 'step')}   ${pct(halves.odd.without, 'agent')} / ${pct(halves.even.without, 'agent')}`);
  lines.push(`  odd ids / even ids (with answer)             ${pct(halves.odd.withTruth, 'step')} / ${pct(halves.even.withTruth, 'step')}   ${pct(halves.odd.withTruth, 'agent')} / ${pct(halves.even.withTruth, 'agent')}`);
  lines.push(`baseline: first message after the question     ${pct(baseline, 'step').padStart(6)}   ${pct(baseline, 'agent').padStart(6)}   (same run; README: 28.6% / 51.6%)`);
  lines.push('published: GPT-4o all-at-once 25.5% step at best; A2P (2025) 47.5% step');
  lines.push(`failure detector, unassisted: ${detected}/${logs.length} recognised as failed; with the expected answer: ${detectedWithTruth}/${logs.length}`);
  const goal = without.step / without.n >= 0.35 && withTruth.step / withTruth.n >= 0.35 && without.agent / without.n >= 0.6 && withTruth.agent / withTruth.n >= 0.6;
  lines.push(`Who&When goal (step ≥ 35%, agent ≥ 60%, both settings): ${goal ? 'met' : 'NOT met'}`);
  return { lines, without, withTruth, baseline, detected, detectedWithTruth, n: logs.length };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const l of benchWhoWhen().lines) console.log(l);
}
