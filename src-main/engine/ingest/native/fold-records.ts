/**
 * Folds native records into RunDetail objects in memory, with exactly the
 * rules the SQLite store applies (record-patches + rows). Used by tests,
 * benchmarks and any code that reads a trace file without a database.
 */
import type { RunDetail } from '../../../../src-shared/model';
import type { TraceRecord } from '../../../../src-shared/trace-format';
import { patchesFor } from '../../store/record-patches';
import { applyRunPatch, applyStepPatch, runFromRow, stepFromRow, type RunRow, type ScoreRow, type StepRow } from '../../store/rows';

export interface FoldOptions {
  sourceFile?: string;
  /** Clock used for "running" vs "incomplete"; defaults to now. */
  now?: number;
  /** The source will not grow: a run without run-end is "incomplete" rather than "running". */
  final?: boolean;
}

export function foldRecords(records: TraceRecord[], opts: FoldOptions = {}): RunDetail[] {
  const now = opts.now ?? Date.now();
  const runs = new Map<string, RunRow>();
  const steps = new Map<string, Map<string, StepRow>>();
  const scores = new Map<string, ScoreRow[]>();
  for (const record of records) {
    const ts = 'ts' in record && typeof record.ts === 'number' ? record.ts : now;
    const p = patchesFor(record);
    const runPatch = p.run ?? { run_id: record.run_id };
    runs.set(record.run_id, applyRunPatch(runs.get(record.run_id), runPatch, now, ts));
    if (p.step) {
      let m = steps.get(p.step.run_id);
      if (!m) steps.set(p.step.run_id, (m = new Map()));
      m.set(p.step.step_id, applyStepPatch(m.get(p.step.step_id), p.step, ts));
    }
    if (p.score) {
      const list = scores.get(p.score.run_id) ?? [];
      const rest = list.filter((s) => !(s.step_id === p.score!.step_id && s.name === p.score!.name));
      scores.set(p.score.run_id, [...rest, p.score]);
    }
  }
  return [...runs.values()].map((row) => {
    if (opts.sourceFile) row.source_file = opts.sourceFile;
    if (opts.final && row.status === 'running') row.status = 'incomplete';
    const stepRows = [...(steps.get(row.run_id)?.values() ?? [])].sort((a, b) => a.idx - b.idx || a.started_at - b.started_at);
    const runScores = scores.get(row.run_id) ?? [];
    // Folded in memory, not read from an inbox: foreign, as the store would call it (store/run-origin.ts).
    return {
      run: { ...runFromRow(row, stepRows.length, now, runScores.filter((sc) => sc.step_id === '')), origin: 'foreign' as const },
      steps: stepRows.map((s) => stepFromRow(s, runScores.filter((sc) => sc.step_id === s.step_id))),
    };
  });
}
