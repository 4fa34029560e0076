/**
 * Remembered command approvals (experiments/command-approvals.ts decides what
 * is approved and how it is shown; these statements only keep the rows).
 */
import type { Db, ReadableDb } from './open-database';

export interface ApprovalRow {
  pipeline: string;
  command_hash: string;
  /** The approved command as canonical JSON (argv, cwd, env). */
  command: string;
  approved_at: number;
}

export function hasApproval(db: ReadableDb, pipeline: string, commandHash: string): boolean {
  return db.prepare('SELECT 1 FROM command_approvals WHERE pipeline = ? AND command_hash = ?').get(pipeline, commandHash) !== undefined;
}

export function saveApproval(db: Db, row: ApprovalRow): void {
  db.prepare(
    `INSERT INTO command_approvals (pipeline, command_hash, command, approved_at) VALUES (?, ?, ?, ?)
     ON CONFLICT(pipeline, command_hash) DO UPDATE SET approved_at = excluded.approved_at`,
  ).run(row.pipeline, row.command_hash, row.command, row.approved_at);
}

/** Newest first. */
export function readApprovals(db: ReadableDb): ApprovalRow[] {
  return db.prepare('SELECT pipeline, command_hash, command, approved_at FROM command_approvals ORDER BY approved_at DESC').all() as ApprovalRow[];
}

/** Deletes approvals whose hash starts with `prefix` (lower-case hex; '' deletes all); returns how many. */
export function deleteApprovals(db: Db, prefix: string): number {
  if (prefix === '') return db.prepare('DELETE FROM command_approvals').run().changes;
  return db.prepare(`DELETE FROM command_approvals WHERE substr(command_hash, 1, ?) = ?`).run(prefix.length, prefix).changes;
}
