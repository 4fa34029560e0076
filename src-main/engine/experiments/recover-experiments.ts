/**
 * Experiments cut short by a crash are found at engine start and marked
 * interrupted, never silently lost.
 */
import { randomBytes } from 'node:crypto';
import type { Db } from '../store/open-database';
import { closeOpenTrials, finishExperiment, runningExperiments } from '../store/experiments';

/**
 * This engine instance's token. Module state lives per worker thread, so an
 * engine worker that crashed and was restarted inside the same process gets
 * a new token and can tell the old worker's experiments are dead.
 */
export const RUNNER_TOKEN = randomBytes(8).toString('hex');

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Called at engine start: an experiment still marked running whose runner
 * process is gone was cut short (crash, kill, power loss). It is marked
 * interrupted, with the trials that finished kept and counted, so it is never
 * silently lost. Experiments run by another live process (a `tb fork` in a
 * terminal while the app starts) are left alone. Returns the ids marked.
 */
export function recoverExperiments(db: Db, isAlive: (pid: number) => boolean = pidAlive): string[] {
  const rows = runningExperiments(db);
  const marked: string[] = [];
  db.transaction(() => {
    for (const r of rows) {
      const ours = r.runner_pid === process.pid;
      if (ours && r.runner_token === RUNNER_TOKEN) continue;
      if (!ours && r.runner_pid !== null && isAlive(r.runner_pid)) continue;
      closeOpenTrials(db, r.experiment_id, 'interrupted', 'the process running the experiment stopped before this trial finished');
      finishExperiment(db, r.experiment_id, 'interrupted', 'the process running the experiment stopped (crash, kill or shutdown); finished trials are kept');
      marked.push(r.experiment_id);
    }
  })();
  return marked;
}
