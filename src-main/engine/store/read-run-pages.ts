/**
 * A run read in parts (src-shared/run-skeleton.ts): the skeleton of all its
 * steps without their payload columns, and payloads of chosen steps. The
 * skeleton query reads no input/output/metadata text at all, so its cost
 * grows with the number of steps, not with what they carried.
 */
import type { RunSkeleton, StepColumns, StepPayload } from '../../../src-shared/run-skeleton';
import type { ReadableDb } from './open-database';
import { readRunHead, resolveRunId } from './read-runs';
import { scoresOf } from './rows';
import { breakParentCycles } from './parent-cycles';

// The same order as read-runs.ts STEPS_OF_RUN_SQL, so positions agree with getRun's steps.
const SKELETON_SQL = `
SELECT step_id, parent_id, idx, name, type, replay_key, status, started_at, ended_at, model, replayed
FROM steps WHERE run_id = ? ORDER BY idx, started_at`;
const PAYLOAD_COLUMNS = 'step_id, input, output, error, usage, metadata, extra';

interface SkeletonRow {
  step_id: string;
  parent_id: string | null;
  idx: number;
  name: string;
  type: string;
  replay_key: string;
  status: StepColumns['status'][number];
  started_at: number;
  ended_at: number | null;
  model: string | null;
  replayed: number;
}

interface PayloadRow {
  step_id: string;
  input: string | null;
  output: string | null;
  error: string | null;
  usage: string | null;
  metadata: string | null;
  extra: string | null;
}

export function getRunSkeleton(db: ReadableDb, idOrPrefix: string, now = Date.now()): RunSkeleton {
  const runId = resolveRunId(db, idOrPrefix);
  const rows = db.prepare(SKELETON_SQL).all(runId) as SkeletonRow[];
  const { run, scoresByStep: byStep } = readRunHead(db, runId, rows.length, now);
  // As getRun does: one parent link of each cycle is cut, so every tree walk sees a forest.
  const links = rows.map((r) => ({ step_id: r.step_id, parent_id: r.parent_id, index: r.idx }));
  const cut = breakParentCycles(links);
  if (cut.length) run.extra = { ...run.extra, $parent_cycles_broken: cut.slice(0, 100) };
  const steps: StepColumns = {
    step_id: rows.map((r) => r.step_id),
    parent_id: links.map((l) => l.parent_id),
    index: rows.map((r) => r.idx),
    name: rows.map((r) => r.name),
    type: rows.map((r) => r.type as StepColumns['type'][number]),
    replay_key: rows.map((r) => r.replay_key),
    status: rows.map((r) => r.status),
    started_at: rows.map((r) => r.started_at),
    ended_at: rows.map((r) => r.ended_at),
    model: rows.map((r) => r.model),
    replayed: rows.map((r) => r.replayed === 1),
    user_scores: {},
  };
  rows.forEach((r, i) => {
    const scored = byStep.get(r.step_id);
    if (scored) steps.user_scores[i] = scoresOf(scored);
  });
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
  }));
}

function parse<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}
