/**
 * Runs one trial's process: the pipeline's entry command, in its own process
 * group so that a timeout or a cancel kills everything it started (`npx`
 * starts node, node may start more). Output goes to a log file beside the
 * plan, and the tail of stderr is kept to explain a crash.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';

export interface ProcessSpec {
  argv: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  logFile: string;
  signal?: AbortSignal;
}

export interface ProcessOutcome {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  cancelled: boolean;
  /** Set when the process could not be started at all. */
  startError: string | null;
  durationMs: number;
  stderrTail: string;
  pid: number | null;
}

/** Process groups still alive, killed if this process exits first. */
const liveChildren = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // 'exit' handlers must be synchronous: a kill signal is.
  process.on('exit', () => {
    for (const c of liveChildren) killTree(c);
  });
}

/** Kills a child and everything in its process group (POSIX) or tree (Windows). */
export function killTree(child: ChildProcess): void {
  // Even when the leader has exited, its group may live on (npx exited, node did not): kill the group anyway.
  if (child.pid === undefined) return;
  try {
    if (process.platform === 'win32') spawnSync('taskkill', ['/pid', String(child.pid), '/T', '/F'], { stdio: 'ignore' });
    else process.kill(-child.pid, 'SIGKILL');
  } catch {
    try {
      child.kill('SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

export function runProcess(spec: ProcessSpec): Promise<ProcessOutcome> {
  installExitHook();
  const started = performance.now();
  return new Promise((resolve) => {
    const [cmd, ...args] = spec.argv;
    let log: number | null = null;
    try {
      log = fs.openSync(spec.logFile, 'a');
    } catch {
      log = null;
    }
    let stderrTail = '';
    let timedOut = false;
    let cancelled = false;
    let settled = false;
    let child: ChildProcess;
    const finish = (o: Omit<ProcessOutcome, 'durationMs' | 'stderrTail' | 'timedOut' | 'cancelled' | 'pid'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      spec.signal?.removeEventListener('abort', onAbort);
      liveChildren.delete(child);
      if (log !== null) fs.closeSync(log);
      resolve({ ...o, timedOut, cancelled, durationMs: performance.now() - started, stderrTail: stderrTail.trim(), pid: child?.pid ?? null });
    };
    try {
      child = spawn(cmd, args, { cwd: spec.cwd, env: spec.env, stdio: ['ignore', 'pipe', 'pipe'], detached: process.platform !== 'win32', windowsHide: true });
    } catch (err) {
      // spawn throws synchronously for malformed arguments (e.g. a NUL byte), not for a missing program.
      resolve({ exitCode: null, signal: null, timedOut: false, cancelled: false, startError: (err as Error).message, durationMs: performance.now() - started, stderrTail: '', pid: null });
      if (log !== null) fs.closeSync(log);
      return;
    }

    liveChildren.add(child);
    const write = (b: Buffer) => {
      if (log !== null) {
        try {
          fs.writeSync(log, b);
        } catch {
          // A full disk must not fail the trial.
        }
      }
    };
    child.stdout?.on('data', write);
    child.stderr?.on('data', (b: Buffer) => {
      write(b);
      stderrTail = (stderrTail + b.toString('utf8')).slice(-4000);
    });
    const timer = setTimeout(() => {
      timedOut = true;
      killTree(child);
    }, spec.timeoutMs);
    const onAbort = () => {
      cancelled = true;
      killTree(child);
    };
    if (spec.signal?.aborted) onAbort();
    else spec.signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (err) => finish({ exitCode: null, signal: null, startError: err.message }));
    // 'close' waits for stdio to close; a grandchild holding the pipes open keeps the trial alive until it is killed.
    child.on('close', (code, sig) => {
      // The leader has exited; anything it left behind in its group goes too.
      if (process.platform !== 'win32' && child.pid !== undefined) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // No one left in the group.
        }
      }
      finish({ exitCode: code, signal: sig, startError: null });
    });
  });
}
