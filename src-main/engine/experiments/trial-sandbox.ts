/**
 * OS sandboxing for trial processes, where it exists without root. On Linux
 * with bubblewrap (`bwrap`) installed, a trial sees the whole file system
 * read-only except its working folder, its private temp folder and the
 * inbox; Traceback's home (database, approvals, settings) is replaced by an
 * empty folder holding only the inbox and the trial's plan; it dies with the
 * runner. The network is left as it is:
 * steps after the fork call real models. Without bwrap (macOS, Windows, a
 * Linux without it) a trial runs as the user with the minimal environment
 * only; the estimate says so (docs/security.md).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface SandboxPaths {
  /** Traceback's home: hidden from the trial. */
  home: string;
  inbox: string;
  /** The folder holding the trial's replay plan (read-only). */
  planDir: string;
  /** The trial's working folder (writable). */
  cwd: string;
  /** The trial's private temp folder (writable). */
  tmpDir: string;
  /** More writable folders the user allowed (trials.json "writable"); missing ones are skipped. */
  writable?: string[];
}

export interface Sandboxed {
  argv: string[];
  kind: 'bwrap' | 'none';
}

/** The first executable named `name` on PATH, or null. */
export function findOnPath(name: string, envPath = process.env.PATH ?? ''): string | null {
  for (const dir of envPath.split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, name);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      if (fs.statSync(file).isFile()) return file;
    } catch {
      // not here
    }
  }
  return null;
}

/**
 * Whether bwrap can actually make a sandbox here: an installed bwrap may still
 * be refused user namespaces (a container without them, AppArmor's
 * unprivileged-userns restriction on recent Ubuntu). Probed once per process
 * with the same mounts a trial gets; when it fails, trials run unsandboxed
 * (the estimate says so) instead of every trial crashing.
 */
let probed: { path: string; ok: boolean } | null = null;
export function bwrapUsable(bwrap: string): boolean {
  if (probed && probed.path === bwrap) return probed.ok;
  const r = spawnSync(bwrap, ['--die-with-parent', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', 'true'], { stdio: 'ignore', timeout: 10_000 });
  probed = { path: bwrap, ok: r.status === 0 };
  return probed.ok;
}

export function sandboxKind(mode: 'auto' | 'off'): Sandboxed['kind'] {
  if (mode === 'off' || process.platform !== 'linux') return 'none';
  const bwrap = findOnPath('bwrap');
  return bwrap && bwrapUsable(bwrap) ? 'bwrap' : 'none';
}

export function sandboxArgv(argv: string[], p: SandboxPaths, kind: Sandboxed['kind']): Sandboxed {
  if (kind === 'none') return { argv, kind };
  const bwrap = findOnPath('bwrap');
  if (!bwrap) return { argv, kind: 'none' };
  const rw = (dir: string) => ['--bind', dir, dir];
  return {
    kind: 'bwrap',
    argv: [
      bwrap,
      // No PID namespace: the runner kills a trial by its process group, and pids stay meaningful in logs.
      '--die-with-parent',
      '--ro-bind', '/', '/',
      '--dev', '/dev',
      '--proc', '/proc',
      // Order matters: the home is emptied first, then the few folders a trial needs are put back.
      '--tmpfs', p.home,
      ...rw(p.inbox),
      '--ro-bind', p.planDir, p.planDir,
      ...rw(p.tmpDir),
      ...rw(p.cwd),
      ...(p.writable ?? []).filter((d) => fs.existsSync(d)).flatMap(rw),
      '--chdir', p.cwd,
      '--',
      ...argv,
    ],
  };
}
