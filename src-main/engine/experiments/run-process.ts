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
  /** Kill the process group when its resident memory exceeds this (Linux: read from /proc). */
  memoryCapBytes?: number;
  /** Kill the process group once it has written this much to stdout and stderr together. */
  outputCapBytes?: number;
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
  /** Set when the process was killed for going over a cap. */
  overLimit: string | null;
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
    let overLimit: string | null = null;
    let written = 0;
    let memoryTimer: NodeJS.Timeout | undefined;
    const finish = (o: Omit<ProcessOutcome, 'durationMs' | 'stderrTail' | 'timedOut' | 'cancelled' | 'pid' | 'overLimit'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearInterval(memoryTimer);
      spec.signal?.removeEventListener('abort', onAbort);
      liveChildren.delete(child);
      if (log !== null) fs.closeSync(log);
      resolve({ ...o, timedOut, cancelled, overLimit, durationMs: performance.now() - started, stderrTail: stderrTail.trim(), pid: child?.pid ?? null });
    };
    try {
      child = spawn(cmd, args, { cwd: spec.cwd, env: spec.env, stdio: ['ignore', 'pipe', 'pipe'], detached: process.platform !== 'win32', windowsHide: true });
    } catch (err) {
      // spawn throws synchronously for malformed arguments (e.g. a NUL byte), not for a missing program.
      resolve({ exitCode: null, signal: null, timedOut: false, cancelled: false, overLimit: null, startError: (err as Error).message, durationMs: performance.now() - started, stderrTail: '', pid: null });
      if (log !== null) fs.closeSync(log);
      return;
    }

    liveChildren.add(child);
    const write = (b: Buffer) => {
      written += b.length;
      if (spec.outputCapBytes !== undefined && written > spec.outputCapBytes) {
        if (overLimit === null) {
          overLimit = `wrote more than ${Math.round(spec.outputCapBytes / 1e6)} MB of output (the per-trial output cap)`;
          killTree(child);
        }
        return;
      }
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
    if (spec.memoryCapBytes !== undefined && process.platform === 'linux' && child.pid !== undefined) {
      const cap = spec.memoryCapBytes;
      const pgid = child.pid;
      memoryTimer = setInterval(() => {
        const rss = groupRssBytes(pgid);
        if (rss > cap && overLimit === null) {
          overLimit = `used ${Math.round(rss / 1e6)} MB of memory, over the per-trial cap of ${Math.round(cap / 1e6)} MB`;
          killTree(child);
        }
      }, MEMORY_POLL_MS);
      memoryTimer.unref();
    }
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

/** How often the memory cap is checked: a runaway allocation of ~1 GB/s overshoots by at most this much. */
const MEMORY_POLL_MS = 250;
const PAGE_BYTES = 4096;

/**
 * Resident memory of every process in a process group, from /proc (Linux).
 * Node's spawn cannot set an rlimit, and RLIMIT_AS breaks runtimes that
 * reserve address space up front (V8 reserves gigabytes): polling RSS is
 * what works for every runtime.
 */
function groupRssBytes(pgid: number): number {
  let total = 0;
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return 0;
  }
  for (const e of entries) {
    if (e.charCodeAt(0) < 48 || e.charCodeAt(0) > 57) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // Fields after the command name (which may hold spaces and parentheses): state ppid pgrp … rss is field 24.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(rest[2]) !== pgid) continue;
    total += Number(rest[21]) * PAGE_BYTES;
  }
  return total;
}
