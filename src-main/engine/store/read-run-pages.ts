/**
 * A run read in parts (src-shared/run-skeleton.ts): the skeleton of all its
 * steps without their payload columns, and payloads of chosen steps. The
 * skeleton query reads no input/output/metadata text at all (token usage,
 * a few numbers, is the one payload it carries), so its cost grows with the
 * number of steps, not with what they carried. Replay keys, models and the
 * replayed flag come with a step's payload: only its panel and the fork
 * editor read them, and replay keys alone were 29% of a skeleton's JSON.
 */
import type { RunSkeleton, StepColumns, StepPayload } from '../../../src-shared/run-skeleton';
import type { TokenUsage } from '../../../src-shared/trace-format';
import type { Score } from '../../../src-shared/model';
import type { ReadableDb } from './open-database';
import { readRunHead, resolveRunId } from './read-runs';
import { scoresOf } from './rows';
import { cutParentCycles } from './parent-cycles';
import { StringTable } from '../text/string-table';

// The same order as read-runs.ts STEPS_OF_RUN_SQL, so positions agree with getRun's steps; read from the covering index steps_skeleton (migration 0012).
export const SKELETON_SQL = `
SELECT step_id, parent_id, idx, name, type, status, started_at, ended_at, usage
FROM steps WHERE run_id = ? ORDER BY idx, started_at`;

/*
 * The same rows, each column as one JSON array built by SQLite: nine strings reach JavaScript instead of
 * ~900,000 values, and JSON.parse makes those values far faster than better-sqlite3 hands them over one
 * by one. At 100,000 steps (2 cores, loaded): 255–440 ms here against 900–1,180 ms for SKELETON_SQL read
 * raw. An aggregate over an ordered subquery takes the rows in that order (SQLite does not flatten an
 * ORDER BY subquery into an aggregate); a test inserts steps out of order to hold it. SQLite (3.45+) prints
 * REAL values in JSON with as many digits as round-trip, so timestamps come back exact.
 */
const SKELETON_JSON_SQL = `
SELECT json_group_array(step_id), json_group_array(parent_id), json_group_array(idx), json_group_array(name), json_group_array(type),
  json_group_array(status), json_group_array(${millis('started_at - @origin')}), json_group_array(${millis('ended_at - @origin')}), json_group_array(usage),
  min(@origin + (started_at - @origin) = started_at AND (ended_at IS NULL OR @origin + (ended_at - @origin) = ended_at))
FROM (${SKELETON_SQL.replace('run_id = ?', 'run_id = @run')})`;

/** A time offset as an INTEGER when it is whole: SQLite prints a REAL in JSON several times slower (68–94 ms a column at 100,000 steps, against 31–41), and longer ("5.0"). */
function millis(expr: string): string {
  return `iif((${expr}) = CAST((${expr}) AS INTEGER), CAST((${expr}) AS INTEGER), (${expr}))`;
}

const PAYLOAD_COLUMNS = 'step_id, input, output, error, usage, metadata, extra, replay_key, model, replayed';

interface PayloadRow {
  step_id: string;
  input: string | null;
  output: string | null;
  error: string | null;
  usage: string | null;
  metadata: string | null;
  extra: string | null;
  replay_key: string;
  model: string | null;
  replayed: number;
}

export function getRunSkeleton(db: ReadableDb, idOrPrefix: string, now = Date.now()): RunSkeleton {
  const runId = resolveRunId(db, idOrPrefix);
  // Times go as offsets from the run's start, which SQLite checks add back exactly (always so for whole
  // milliseconds, and for fractions within a factor of two of it: Sterbenz); else from 0, as they are.
  // 13-digit epoch times as offsets were ~2.6 MB less JSON at 100,000 steps. (No steps or no start: from 0.)
  const start = db.prepare('SELECT started_at FROM runs WHERE run_id = ?').pluck().get(runId) as number;
  const read = db.prepare(SKELETON_JSON_SQL).raw();
  let origin = start;
  let json = read.get({ run: runId, origin }) as (string | number | null)[];
  if (json[9] !== 1) json = read.get({ run: runId, origin: (origin = 0) }) as (string | number | null)[];
  const stepIds = JSON.parse(json[0] as string) as string[];
  const n = stepIds.length;
  const { run, scoresByStep: byStep } = readRunHead(db, runId, n, now);
  const parentIds = JSON.parse(json[1] as string) as (string | null)[];
  const indexes = JSON.parse(json[2] as string) as number[];
  const position = new Map<string, number>();
  for (let i = 0; i < n; i++) position.set(stepIds[i], i);
  const parent = new Array<number>(n);
  const parentMissing: Record<number, string> = {};
  // Parents always earlier in start order (every trace an SDK writes) cannot form a cycle: the ids only go round the cut below when one is not.
  let maybeCycle = false;
  for (let i = 0; i < n; i++) {
    const p = parentIds[i];
    const at = p === null ? -1 : (position.get(p) ?? -1);
    if (p !== null && at === -1) parentMissing[i] = p;
    if (at >= i) maybeCycle = true;
    parent[i] = at;
  }
  if (maybeCycle) {
    // As getRun does: one parent link of each cycle is cut, so every tree walk sees a forest.
    const cut = cutParentCycles(stepIds, parentIds, indexes);
    for (const i of cut) parent[i] = -1;
    if (cut.length) run.extra = { ...run.extra, $parent_cycles_broken: cut.slice(0, 100).map((i) => stepIds[i]) };
  }
  const words = new StringTable();
  const name = codesOf(JSON.parse(json[3] as string) as string[], words);
  const type = codesOf(JSON.parse(json[4] as string) as string[], words);
  const status = codesOf(JSON.parse(json[5] as string) as string[], words);
  for (let i = 0; i < n; i++) indexes[i] -= i;
  const usageText = JSON.parse(json[8] as string) as (string | null)[];
  const usage: Record<number, TokenUsage> = {};
  for (let i = 0; i < n; i++) if (usageText[i] !== null) usage[i] = JSON.parse(usageText[i]!) as TokenUsage;
  const userScores: Record<number, Score[]> = {};
  for (const [stepId, rows] of byStep) {
    const at = position.get(stepId);
    if (at !== undefined) userScores[at] = scoresOf(rows);
  }
  // Parents as distances back (0: none): a parent is mostly a few steps up, so 1–2 digits instead of 5–6.
  for (let i = 0; i < n; i++) parent[i] = parent[i] === -1 ? 0 : i - parent[i];
  const times = compactTimes(origin, JSON.parse(json[6] as string) as number[], JSON.parse(json[7] as string) as (number | null)[]);
  const steps: StepColumns = {
    step_id: stepIds,
    parent,
    parent_missing: parentMissing,
    index_offset: indexes,
    words: words.strings,
    name,
    type,
    status,
    time_origin: origin,
    ...times,
    user_scores: userScores,
    usage,
  };
  return { run, steps };
}

/**
 * Starts as the time since the previous step's start and ends as durations, when every one adds back
 * exactly (whole milliseconds always do): 6–7 digits each became 1–3 in a 7-minute run, ~0.9 MB less
 * at 100,000 steps. Otherwise the offsets from the origin, as read.
 */
function compactTimes(origin: number, startOffsets: number[], endOffsets: (number | null)[]): Pick<StepColumns, 'started_at' | 'ended_at' | 'time_deltas'> {
  const n = startOffsets.length;
  const started = new Array<number>(n);
  const ended = new Array<number | null>(n);
  let previous = origin;
  for (let i = 0; i < n; i++) {
    const start = origin + startOffsets[i];
    const end = endOffsets[i] === null ? null : origin + endOffsets[i]!;
    started[i] = start - previous;
    ended[i] = end === null ? null : end - start;
    if (previous + started[i] !== start || (end !== null && start + ended[i]! !== end)) return { time_deltas: false, started_at: startOffsets, ended_at: endOffsets };
    previous = start;
  }
  return { time_deltas: true, started_at: started, ended_at: ended };
}

/** Names, types and statuses as numbers into one list of the distinct words: 100,000 steps share a few dozen. */
function codesOf(values: string[], words: StringTable): number[] {
  const out = new Array<number>(values.length);
  for (let i = 0; i < values.length; i++) out[i] = words.intern(values[i]);
  return out;
}

/** Payloads of the named steps (unknown ids are left out), or of `count` steps from position `from` in start order. */
export function getStepPayloads(db: ReadableDb, idOrPrefix: string, which: { stepIds?: string[]; from?: number; count?: number }): StepPayload[] {
  const runId = resolveRunId(db, idOrPrefix);
  let rows: PayloadRow[];
  if (which.stepIds) {
    const one = db.prepare(`SELECT ${PAYLOAD_COLUMNS} FROM steps WHERE run_id = ? AND step_id = ?`);
    rows = which.stepIds.map((id) => one.get(runId, id) as PayloadRow | undefined).filter((r): r is PayloadRow => r !== undefined);
  } else {
    rows = db.prepare(`SELECT ${PAYLOAD_COLUMNS} FROM steps WHERE run_id = ? ORDER BY idx, started_at LIMIT ? OFFSET ?`).all(runId, which.count ?? 100, which.from ?? 0) as PayloadRow[];
  }
  return rows.map((r) => ({
    step_id: r.step_id,
    input: parse(r.input),
    output: parse(r.output),
    error: parse(r.error),
    usage: parse(r.usage),
    metadata: parse(r.metadata) ?? {},
    extra: parse(r.extra) ?? {},
    replay_key: r.replay_key,
    model: r.model,
    replayed: r.replayed === 1,
  }));
}

function parse<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}
