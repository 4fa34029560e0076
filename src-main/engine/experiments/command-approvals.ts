/**
 * Commands found in trace files never run without the user's approval
 * (DESIGN.md §8). An approval covers one pipeline and one exact command:
 * argv, cwd and the env the trace adds — any change to those (a different
 * script, an added NODE_OPTIONS) needs a new approval.
 */
import { createHash } from 'node:crypto';
import type { EntryCommand } from '../../../src-shared/trace-format';
import type { Db } from '../store/open-database';

/** The part of an entry that decides what runs, in a fixed order. */
function approvalText(entry: EntryCommand): string {
  const env = Object.entries(entry.env ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify({ command: entry.command, cwd: entry.cwd ?? null, env });
}

export function commandHash(entry: EntryCommand): string {
  return createHash('sha256').update(approvalText(entry)).digest('hex');
}

export function isCommandApproved(db: Db, pipeline: string, entry: EntryCommand): boolean {
  return db.prepare('SELECT 1 FROM command_approvals WHERE pipeline = ? AND command_hash = ?').get(pipeline, commandHash(entry)) !== undefined;
}

export function approveCommand(db: Db, pipeline: string, entry: EntryCommand, now = Date.now()): void {
  db.prepare(
    `INSERT INTO command_approvals (pipeline, command_hash, command, approved_at) VALUES (?, ?, ?, ?)
     ON CONFLICT(pipeline, command_hash) DO UPDATE SET approved_at = excluded.approved_at`,
  ).run(pipeline, commandHash(entry), approvalText(entry), now);
}

/** How a command is shown to the person approving it: each argument quoted when it needs to be. */
export function displayCommand(entry: EntryCommand): string {
  const quote = (a: string) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`);
  const env = Object.entries(entry.env ?? {}).map(([k, v]) => `${k}=${quote(v)} `).join('');
  return `${entry.cwd ? `(in ${entry.cwd}) ` : ''}${env}${entry.command.map(quote).join(' ')}`;
}
