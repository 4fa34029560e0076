/**
 * Commands found in trace files never run without the user's approval
 * (DESIGN.md §8, docs/security.md). Three rules:
 *
 * 1. What is shown is unambiguous: one line, each argument shell-quoted, and
 *    any control, bidi or other invisible character written as an ANSI-C
 *    escape (`$'\x1b'`), so a CR or ESC in a trace cannot make the terminal
 *    show `node bot.js` while `sh -c '…'` runs.
 * 2. An approval act is bound to a hash of exactly that text and of the run's
 *    content at that moment (`approvalSha`): if a record appended to the run
 *    changed either since it was shown, the approval no longer matches.
 * 3. A remembered approval covers one pipeline and one exact command (argv,
 *    cwd and the env the trace adds). It never covers a foreign run (one
 *    imported from a file not written by the local SDK): those always need
 *    the approval of what was shown for that run's content.
 */
import { createHash } from 'node:crypto';
import type { RunDetail } from '../../../src-shared/model';
import type { EntryCommand } from '../../../src-shared/trace-format';
import { EngineError } from '../../../src-shared/result';
import type { Db } from '../store/open-database';
import { deleteApprovals, hasApproval, readApprovals, saveApproval } from '../store/command-approvals';

/** The value the SDK writes for a redacted env value: the trial takes the user's own value of that name. */
export const REDACTED_VALUE = '[REDACTED]';
/** Shortest prefix of an approval hash accepted from the user (64 bits). */
const MIN_SHA_CHARS = 16;

/** The part of an entry that decides what runs, in a fixed order. */
function approvalText(entry: EntryCommand): string {
  const env = Object.entries(entry.env ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify({ command: entry.command, cwd: entry.cwd ?? null, env });
}

function commandHash(entry: EntryCommand): string {
  return createHash('sha256').update(approvalText(entry)).digest('hex');
}

function isCommandApproved(db: Db, pipeline: string, entry: EntryCommand): boolean {
  return hasApproval(db, pipeline, commandHash(entry));
}

export function approveCommand(db: Db, pipeline: string, entry: EntryCommand, now = Date.now()): void {
  saveApproval(db, { pipeline, command_hash: commandHash(entry), command: approvalText(entry), approved_at: now });
}

export interface StoredApproval {
  pipeline: string;
  command_hash: string;
  /** The command as it is shown for approval (escaped, one line). */
  shown: string;
  approved_at: number;
}

export function listApprovals(db: Db): StoredApproval[] {
  return readApprovals(db).map((r) => {
    let shown = r.command;
    try {
      const c = JSON.parse(r.command) as { command: string[]; cwd: string | null; env: [string, string][] };
      shown = displayCommand({ command: c.command, cwd: c.cwd ?? undefined, env: Object.fromEntries(c.env) });
    } catch {
      // Kept as stored.
    }
    return { pipeline: r.pipeline, command_hash: r.command_hash, shown, approved_at: r.approved_at };
  });
}

/** Revokes approvals whose command hash starts with `prefix`; returns how many. */
export function revokeApprovals(db: Db, prefix: string | 'all'): number {
  if (prefix === 'all') return deleteApprovals(db, '');
  if (!/^[0-9a-f]{6,64}$/i.test(prefix)) throw new EngineError('bad_request', `"${prefix.slice(0, 80)}" is not an approval hash (6 to 64 hex digits)`);
  return deleteApprovals(db, prefix.toLowerCase());
}

// Anything outside printable ASCII that a terminal could interpret or hide: C0/C1 controls, DEL,
// bidi overrides and isolates, zero-width and other format characters, line/paragraph separators.
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]/;

/**
 * One argument as a POSIX shell would need it typed: bare when it holds only
 * safe characters, single-quoted otherwise, and ANSI-C quoted (`$'…'`) when
 * it holds an invisible character, which is then written as an escape. The
 * three forms cannot be confused: a literal backslash inside `$'…'` is `\\`.
 */
export function shellQuote(arg: string): string {
  if (arg !== '' && /^[\w@%+=:,./-]+$/.test(arg)) return arg;
  if (!INVISIBLE.test(arg)) return `'${arg.replace(/'/g, `'\\''`)}'`;
  let out = "$'";
  for (const ch of arg) {
    const code = ch.codePointAt(0)!;
    if (ch === '\\') out += '\\\\';
    else if (ch === "'") out += "\\'";
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else if (INVISIBLE.test(ch)) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}'`;
}

/**
 * How a command is shown to the person approving it: one line a shell would
 * run the same way — `cd DIR && env NAME=VALUE … ARGV…`. A value the SDK
 * redacted is shown as `NAME=<yours>`: the trial takes that variable from
 * the user's own environment, so the user sees which secret it asks for.
 */
export function displayCommand(entry: EntryCommand): string {
  const env = Object.entries(entry.env ?? {})
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => (v === REDACTED_VALUE ? `${shellQuote(k)}=<yours>` : shellQuote(`${k}=${v}`)));
  const argv = entry.command.map(shellQuote).join(' ');
  return `${entry.cwd ? `cd ${shellQuote(entry.cwd)} && ` : ''}${env.length ? `env ${env.join(' ')} ` : ''}${argv}`;
}

/** A hash of the run as stored: any record appended or changed since gives another. */
function runContentHash(detail: RunDetail): string {
  // Fields that analysis fills in later are not content.
  const { blame_score: _b, healthy: _h, ...run } = detail.run;
  const h = createHash('sha256');
  h.update(JSON.stringify(run));
  for (const s of detail.steps) h.update(JSON.stringify(s));
  return h.digest('hex');
}

export interface CommandApproval {
  /** Exactly what the user is shown and approves. */
  shown: string;
  /** sha256 of `shown` and of the run's content: what an approval act is bound to. */
  sha: string;
  /** A remembered approval covers this command (never true for a foreign run). */
  approved_before: boolean;
  /** The run came from a file the local SDK did not write. */
  foreign: boolean;
}

/** The approval state of the command a fork of `detail` would run. */
export function commandApproval(db: Db, detail: RunDetail, entry: EntryCommand): CommandApproval {
  const foreign = detail.run.origin === 'foreign';
  let shown = displayCommand(entry);
  if (foreign) {
    // Part of what is approved: the recorded outputs of a foreign run become the live pipeline's input.
    shown += `\n  (run ${detail.run.run_id} was imported from ${detail.run.source_file ?? 'a file'}, not written by the local SDK: its recorded outputs will be fed to your pipeline as if they were real)`;
  }
  const sha = createHash('sha256').update(shown).update('\n').update(runContentHash(detail)).digest('hex');
  return { shown, sha, approved_before: !foreign && isCommandApproved(db, detail.run.pipeline, entry), foreign };
}

export interface ApprovalRequest {
  /** The user approves (`--approve`, Start in the app). */
  approve?: boolean;
  /** The approval hash (or a prefix of at least MIN_SHA_CHARS) printed with the command the user approved. */
  approvedSha?: string;
  /** The approval hash this engine last showed for the run (estimate), if any. */
  lastShownSha?: string;
}

/**
 * Decides whether the command may run; throws an EngineError naming the
 * command and its approval hash when it may not. Returns true when this
 * call is a fresh approval act (to be remembered).
 */
export function checkApproval(a: CommandApproval, runId: string, req: ApprovalRequest): boolean {
  const shownForUser = `\n  ${a.shown}\n  approval hash: ${a.sha.slice(0, MIN_SHA_CHARS)}`;
  if (req.approvedSha !== undefined) {
    const given = req.approvedSha.trim().toLowerCase();
    if (given.length < MIN_SHA_CHARS || !a.sha.startsWith(given)) {
      throw new EngineError(
        'conflict',
        `the approval hash ${req.approvedSha.slice(0, 64)} does not match the command or the content of run ${runId} as they are now (changed since they were shown, or a wrong hash); nothing was run. Review it again:${shownForUser}`,
      );
    }
    return true;
  }
  if (req.approve && req.lastShownSha !== undefined) {
    if (req.lastShownSha !== a.sha) {
      throw new EngineError('conflict', `the command or the content of run ${runId} changed after it was shown for approval; nothing was run. Review it again:${shownForUser}`);
    }
    return true;
  }
  if (a.approved_before) return false;
  // `approve` with no hash and no estimate shown by this engine: a client that displayed the command
  // itself (the app's blame confirmation). Accepted for local runs only; `tb fork --approve` never sends it.
  if (req.approve && !a.foreign) return true;
  throw new EngineError(
    'bad_request',
    `this experiment would run the command recorded in run ${runId}'s trace, which you have not approved:${shownForUser}\n` +
      `Nothing from a trace runs without your approval of exactly what was shown: review it, then pass --approve-command ${a.sha.slice(0, MIN_SHA_CHARS)} (tb fork), or Start in the app.`,
  );
}
