/**
 * What a trial process may see (docs/security.md §Trials). A trial runs a
 * command read from a trace, so it gets a minimal environment, never
 * Traceback's: PATH, HOME, the locale and time zone, a private temp folder,
 * the variables the recording declares (its entry `env`), and the names the
 * user adds (`trials.json` or `--env NAME`). Everything else — API keys, cloud
 * credentials, TRACEBACK_HOME and the database path — stays out, so a
 * dropped trace's command cannot read them or edit the approvals table.
 */
import fs from 'node:fs';
import path from 'node:path';
import { REPLAY_PLAN_ENV } from '../../../src-shared/replay-plan';
import type { EntryCommand } from '../../../src-shared/trace-format';
import { EngineError } from '../../../src-shared/result';
import type { HomePaths } from '../home';
import { REDACTED_VALUE } from './command-approvals';
import { setOwn } from '../../../src-shared/own-property';

/** Always passed (from the user's environment) when set: what nearly any program needs to start. */
const BASE_NAMES = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'USER', 'LOGNAME', 'SHELL'];
/** Windows cannot start most programs without these. */
const WINDOWS_NAMES = ['SYSTEMROOT', 'SystemRoot', 'COMSPEC', 'ComSpec', 'PATHEXT', 'WINDIR', 'USERPROFILE', 'APPDATA', 'LOCALAPPDATA'];
/** Traceback's own variables: never passed, whoever asks (the replay plan's is set by the runner). */
const OWN_PREFIX = /^TRACEBACK_/i;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface TrialSettings {
  /** Extra environment names every trial receives. */
  env: string[];
  /** Resident memory cap for the trial's process group, in MB. */
  memory_mb: number;
  /** Cap on what the trial writes to stdout and stderr, in MB. */
  output_mb: number;
  /** 'auto': use bwrap when installed; 'off': never. */
  sandbox: 'auto' | 'off';
  /** Absolute folders a sandboxed trial may write in, besides its working folder, temp folder and the inbox (e.g. a cache). */
  writable: string[];
  /** Run each trial in a private copy of the recorded working folder (working-copy.ts). */
  working_copy: boolean;
}

export const DEFAULT_TRIAL_SETTINGS: TrialSettings = { env: [], memory_mb: 4096, output_mb: 50, sandbox: 'auto', writable: [], working_copy: false };

/**
 * Reads `$TRACEBACK_HOME/trials.json` (optional). A malformed file is an
 * error rather than defaults: the user wrote it to pass or limit something.
 */
export function readTrialSettings(paths: HomePaths): TrialSettings {
  const file = paths.trialSettings;
  let raw: string;
  try {
    raw = fs.readFileSync(file, 'utf8');
  } catch {
    return DEFAULT_TRIAL_SETTINGS;
  }
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch (err) {
    throw new EngineError('bad_request', `${file}: not valid JSON (${(err as Error).message})`);
  }
  const o = (typeof v === 'object' && v !== null ? v : {}) as Record<string, unknown>;
  const out: TrialSettings = { ...DEFAULT_TRIAL_SETTINGS };
  if (o.env !== undefined) out.env = checkNames(o.env, `${file}: "env"`);
  for (const k of ['memory_mb', 'output_mb'] as const) {
    if (o[k] === undefined) continue;
    if (typeof o[k] !== 'number' || !((o[k] as number) > 0)) throw new EngineError('bad_request', `${file}: "${k}" must be a positive number`);
    out[k] = o[k] as number;
  }
  if (o.writable !== undefined) {
    if (!Array.isArray(o.writable) || o.writable.some((d) => typeof d !== 'string' || !path.isAbsolute(d))) {
      throw new EngineError('bad_request', `${file}: "writable" must be a list of absolute folder paths`);
    }
    out.writable = o.writable as string[];
  }
  if (o.working_copy !== undefined) {
    if (typeof o.working_copy !== 'boolean') throw new EngineError('bad_request', `${file}: "working_copy" must be true or false`);
    out.working_copy = o.working_copy;
  }
  if (o.sandbox !== undefined) {
    if (o.sandbox !== 'auto' && o.sandbox !== 'off') throw new EngineError('bad_request', `${file}: "sandbox" must be "auto" or "off"`);
    out.sandbox = o.sandbox;
  }
  return out;
}

export function checkNames(v: unknown, where: string): string[] {
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string' || !NAME.test(x))) {
    throw new EngineError('bad_request', `${where} must be a list of environment variable names (letters, digits, _)`);
  }
  const own = (v as string[]).filter((n) => OWN_PREFIX.test(n));
  if (own.length) throw new EngineError('bad_request', `${where}: ${own.join(', ')} is Traceback's own and is never passed to a trial`);
  return v as string[];
}

export interface TrialEnvSpec {
  entry: EntryCommand;
  planFile: string;
  /** The trial's private temp folder (TMPDIR). */
  tmpDir: string;
  /** Names the user adds (settings and --env). */
  extraNames: string[];
  /** The trial runs under bwrap (read-only $HOME). */
  sandboxed?: boolean;
}

/** The environment names a trial will receive, for the estimate (values are never shown). */
export function trialEnvNames(entry: EntryCommand, extraNames: string[], parent: NodeJS.ProcessEnv = process.env): string[] {
  return Object.keys(trialEnv({ entry, planFile: '', tmpDir: '(private)', extraNames }, parent)).sort();
}

export function trialEnv(spec: TrialEnvSpec, parent: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  const take = (name: string) => {
    if (OWN_PREFIX.test(name)) return;
    const v = Object.hasOwn(parent, name) ? parent[name] : undefined;
    if (v !== undefined) setOwn(env, name, v);
  };
  for (const n of BASE_NAMES) take(n);
  if (process.platform === 'win32') for (const n of WINDOWS_NAMES) take(n);
  for (const n of spec.extraNames) take(n);
  for (const [k, v] of Object.entries(spec.entry.env ?? {})) {
    if (OWN_PREFIX.test(k) || !NAME.test(k)) continue;
    // A redacted value was shown as NAME=<yours> at approval: the user's own value, if they have one.
    if (v === REDACTED_VALUE) take(k);
    else if (typeof v === 'string') setOwn(env, k, v);
  }
  if (spec.tmpDir) {
    env.TMPDIR = spec.tmpDir;
    if (spec.sandboxed) {
      // Under the sandbox $HOME is read-only: caches (npm, pip, tools following XDG) go to the trial's own folder.
      env.XDG_CACHE_HOME = `${spec.tmpDir}/cache`;
      env.npm_config_cache = `${spec.tmpDir}/npm-cache`;
    }
    if (process.platform === 'win32') env.TEMP = env.TMP = spec.tmpDir;
  }
  if (spec.planFile) env[REPLAY_PLAN_ENV] = spec.planFile;
  else env[REPLAY_PLAN_ENV] = '(plan file)';
  return env;
}
