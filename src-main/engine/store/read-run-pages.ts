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
import type { ReadableDb } from './open-database';
import { readRunHead, resolveRunId } from './read-runs';
import { scoresOf } from './rows';
import { cutParentCycles } from './parent-cycles';

// The same order as read-runs.ts STEPS_OF_RUN_SQL, so positions agree with getRun's steps; read from the covering index steps_skeleton (migration 0012).
export const SKELETON_SQL = `
SELECT step_id, parent_id, idx, name, type, status, started_at, ended_at, usage
FROM steps WHERE run_id = ? ORDER BY idx, started_at`;
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
  // Rows as arrays, straight into columns: an object per row was a third of the read at 100,000 steps.
  const rows = db.prepare(SKELETON_SQL).raw().all(runId) as unknown[][];
  const n = rows.length;
  const { run, scoresByStep: byStep } = readRunHead(db, runId, n, now);
  const steps: StepColumns = {
    step_id: new Array(n),
    parent_id: new Array(n),
    index: new Array(n),
    name: new Array(n),
    type: new Array(n),
    status: new Array(n),
    started_at: new Array(n),
    ended_at: new Array(n),
    user_scores: {},
    usage: {},
  };
  const usage = steps.usage!;
  for (let i = 0; i < n; i++) {
    const r = rows[i];
    steps.step_id[i] = r[0] as string;
    steps.parent_id[i] = r[1] as string | null;
    steps.index[i] = r[2] as number;
    steps.name[i] = r[3] as string;
    steps.type[i] = r[4] as StepColumns['type'][number];
    steps.status[i] = r[5] as StepColumns['status'][number];
    steps.started_at[i] = r[6] as number;
    steps.ended_at[i] = r[7] as number | null;
    if (r[8] !== null) usage[i] = JSON.parse(r[8] as string) as TokenUsage;
  }
  // As getRun does: one parent link of each cycle is cut, so every tree walk sees a forest.
  const cut = cutParentCycles(steps.step_id, steps.parent_id, steps.index);
  if (cut.length) run.extra = { ...run.extra, $parent_cycles_broken: cut.slice(0, 100).map((i) => steps.step_id[i]) };
  if (byStep.size) {
    for (let i = 0; i < n; i++) {
      const scored = byStep.get(steps.step_id[i]);
      if (scored) steps.user_scores[i] = scoresOf(scored);
    }
  }
  return { run, steps };
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
