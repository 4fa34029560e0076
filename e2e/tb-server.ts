/**
 * Starts `tb serve` on a fresh data folder, populated by `tb demo`, and stops
 * it afterwards. Shared by the Playwright fixture and the UI benchmark.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';

export interface TbServer {
  url: string;
  origin: string;
  port: number;
  token: string;
  home: string;
  inbox: string;
  stop(): Promise<void>;
}

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const TB = ['tsx', path.join(ROOT, 'src-main/cli/tb.ts')];
const READY_TIMEOUT_MS = 30_000;

/** Waits until no process of the group is left, sending SIGKILL to what still runs after 10 s. */
async function groupGone(pgid: number): Promise<void> {
  const alive = () => {
    try {
      process.kill(-pgid, 0);
    } catch {
      return false;
    }
    return groupHasLiveProcess(pgid);
  };
  // Bounded, whatever happens.
  for (let waited = 0; alive() && waited < 15_000; waited += 50) {
    if (waited === 10_000) {
      try {
        process.kill(-pgid, 'SIGKILL');
      } catch {
        // Gone meanwhile.
      }
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** On Linux, true when a process of the group is still running; a zombie (exited, never reaped: no init in a container) does not count. */
function groupHasLiveProcess(pgid: number): boolean {
  let pids: string[];
  try {
    pids = fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  } catch {
    return true; // no /proc: the signal test above is all there is
  }
  return pids.some((pid) => {
    try {
      // "pid (comm) state ppid pgrp ...": comm may hold spaces, so read after its closing parenthesis.
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return Number(pgrp) === pgid && state !== 'Z';
    } catch {
      return false;
    }
  });
}

function tbEnv(home: string): NodeJS.ProcessEnv {
  return { ...process.env, TRACEBACK_HOME: home, NO_COLOR: '1' };
}

export function makeHome(prefix = 'tb-e2e-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Runs a `tb` command to completion in `home`; throws with its stderr when it fails. */
export function tb(home: string, args: string[]): string {
  const r = spawnSync('npx', [...TB, ...args], { cwd: ROOT, env: tbEnv(home), encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`tb ${args.join(' ')} exited ${r.status}: ${r.stderr || r.stdout}`);
  return r.stdout;
}

export async function startTbServer(opts: { home?: string; demo?: boolean } = {}): Promise<TbServer> {
  const home = opts.home ?? makeHome();
  try {
    if (opts.demo !== false) tb(home, ['demo']);
  } catch (error) {
    if (!opts.home) fs.rmSync(home, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    throw error;
  }
  const child: ChildProcess = spawn('npx', [...TB, 'serve', '--port', '0', '--no-otlp', '--json-ready'], {
    cwd: ROOT,
    env: tbEnv(home),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const killGroup = async () => {
    if (child.exitCode === null && child.signalCode === null && child.pid) {
      // npx runs tsx runs node: signal the whole process group we created.
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // Already gone.
      }
      await exited;
    }
    // npx exits first; tsx and the engine's node may still be closing the database in the data folder.
    if (child.pid) await groupGone(child.pid);
  };
  let ready: { url: string; port: number; token: string };
  try {
    ready = await new Promise<{ url: string; port: number; token: string }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`tb serve printed no ready line within ${READY_TIMEOUT_MS} ms:\n${stderr}`)), READY_TIMEOUT_MS);
      const lines = readline.createInterface({ input: child.stdout! });
      // The ready document is meant to be one line; a pretty-printed one is accepted too.
      let pending = '';
      lines.on('line', (line) => {
        pending = pending ? `${pending}\n${line}` : line;
        try {
          const parsed = JSON.parse(pending) as { url?: string; port?: number; token?: string };
          pending = '';
          if (parsed.url && parsed.port && parsed.token) {
            clearTimeout(timer);
            resolve(parsed as { url: string; port: number; token: string });
          }
        } catch {
          if (!pending.trimStart().startsWith('{')) pending = '';
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`tb serve exited ${code} before it was ready:\n${stderr}`));
      });
    });
  } catch (error) {
    // Never leave a server (or a data folder) behind when startup fails.
    await killGroup();
    if (!opts.home) fs.rmSync(home, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    throw error;
  }
  const stop = async () => {
    await killGroup();
    // The engine's own process may still be closing its database files as the folder goes: retry (ENOTEMPTY).
    if (!opts.home) fs.rmSync(home, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  };
  return { ...ready, origin: new URL(ready.url).origin, home, inbox: path.join(home, 'inbox'), stop };
}
