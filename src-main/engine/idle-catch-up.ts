/**
 * Brings the derived tables (stored step counts, the step text index; see
 * store/catch-up-marks.ts) up to date while a long-lived engine (the app,
 * `tb serve`) is idle, so the first list and search after a big import do not
 * pay for it. Work is done in slices between which the event loop turns, and
 * only after the engine has had no call for a moment, so a user clicking
 * around waits for at most one slice. A run is indexed whole, so runs of more
 * than 20,000 steps (~0.25 s each) are left to the first search. Last, in a
 * slice of its own, it runs the WAL checkpoint a bulk import left owed
 * (store/bulk-write.ts); that slice is as long as the checkpoint, ~0.1–0.3 s
 * after a file of tens of MB.
 */
import type { Db } from './store/open-database';
import { checkpointOwed, runOwedCheckpoint } from './store/bulk-write';
import { catchUpUnlessBusy } from './store/catch-up-marks';
import { catchUpStepCounts } from './store/step-counts';
import { catchUpStepText } from './store/step-text-index';

export interface IdleCatchUpOptions {
  /** Time budget of one slice of indexing. */
  sliceMs?: number;
  /** The engine counts as idle after this long without a call. */
  idleMs?: number;
  /** Pause between two slices, and between two looks while the engine is busy. */
  pauseMs?: number;
  /** Runs of more steps are indexed by the first search, not here: one run is one unit of work. */
  bigRunSteps?: number;
}

export interface IdleCatchUp {
  /** Runs changed (an import, a fork): catch up once the engine is idle. */
  poke(): void;
  /** A call came in: the engine is not idle. */
  busy(): void;
  stop(): void;
}

export function startIdleCatchUp(db: Db, opts: IdleCatchUpOptions = {}): IdleCatchUp {
  const sliceMs = opts.sliceMs ?? 50;
  const idleMs = opts.idleMs ?? 1000;
  const pauseMs = opts.pauseMs ?? 25;
  const bigRunSteps = opts.bigRunSteps ?? 20_000;
  let lastCall = performance.now();
  let timer: ReturnType<typeof setTimeout> | null = null;
  let stopped = false;
  let checkpointNext = false;
  const schedule = (ms: number) => {
    if (stopped || timer) return;
    timer = setTimeout(tick, ms);
    timer.unref();
  };
  function tick(): void {
    timer = null;
    const quietFor = performance.now() - lastCall;
    if (quietFor < idleMs) return schedule(Math.max(pauseMs, idleMs - quietFor));
    // Derived tables first, then one slice of its own for the checkpoint a bulk import left owed: it copies
    // what the import and the catch-up wrote in one go.
    if (checkpointNext) {
      checkpointNext = false;
      runOwedCheckpoint(db);
      // A poke that came while this slice waited was taken by its timer: look once more.
      schedule(pauseMs);
      return;
    }
    let complete: boolean | null = null;
    catchUpUnlessBusy(db, () => {
      catchUpStepCounts(db);
      complete = catchUpStepText(db, { budgetMs: sliceMs, skipRunsOver: bigRunSteps }).complete;
    });
    // Another connection was writing (`tb import` beside the app): look again later.
    if (complete === null) schedule(idleMs);
    else if (!complete) schedule(pauseMs);
    else if (checkpointOwed(db)) {
      checkpointNext = true;
      schedule(pauseMs);
    }
  }
  return {
    poke: () => schedule(pauseMs),
    busy: () => {
      lastCall = performance.now();
    },
    stop: () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
