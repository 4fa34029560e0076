/**
 * `tb doctor`: a full check of a Traceback home, for when something looks
 * wrong or the database was refused at open. Read-only: it never repairs,
 * it says what to do. The database can be rebuilt from the inbox (every run
 * the SDK wrote is a file there); experiments and approvals cannot.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { HomePaths } from '../home';
import { MIGRATIONS } from './migrations/index';
import { openDatabase, schemaVersion, type ReadableDb } from './open-database';

interface DoctorFinding {
  level: 'ok' | 'warning' | 'error';
  check: string;
  detail: string;
  /** What to do about it; absent when nothing needs doing. */
  advice?: string;
}

export interface DoctorReport {
  home: string;
  database: string;
  healthy: boolean;
  findings: DoctorFinding[];
}

export function checkHome(paths: HomePaths): DoctorReport {
  const findings: DoctorFinding[] = [];
  const db = paths.database;
  const rebuild = `move it aside and rebuild it from the inbox: mv "${db}" "${db}.damaged" && tb import "${paths.inbox}" (runs are rebuilt; experiments and command approvals are not)`;
  if (!fs.existsSync(db)) {
    findings.push({ level: 'ok', check: 'database', detail: `${db} does not exist yet; it is created at the first import` });
  } else {
    let handle: ReadableDb | null = null;
    try {
      handle = openDatabase(db, { readonly: true, skipCheck: true });
      const integrity = (handle.pragma('integrity_check(20)', { simple: false }) as { integrity_check: string }[]).map((r) => r.integrity_check);
      if (integrity.length === 1 && integrity[0] === 'ok') findings.push({ level: 'ok', check: 'integrity', detail: 'PRAGMA integrity_check: ok' });
      else findings.push({ level: 'error', check: 'integrity', detail: `PRAGMA integrity_check found ${integrity.length}${integrity.length === 20 ? '+' : ''} problem(s): ${integrity.slice(0, 3).join('; ')}`, advice: rebuild });
      const fk = handle.pragma('foreign_key_check', { simple: false }) as unknown[];
      if (fk.length) findings.push({ level: 'error', check: 'foreign keys', detail: `${fk.length} row(s) point at rows that do not exist`, advice: rebuild });
      const version = schemaVersion(handle);
      if (version > MIGRATIONS.length) findings.push({ level: 'error', check: 'schema', detail: `schema version ${version} was written by a newer Traceback (this one reads ${MIGRATIONS.length})`, advice: 'update Traceback, or use another TRACEBACK_HOME' });
      else findings.push({ level: 'ok', check: 'schema', detail: `schema version ${version} of ${MIGRATIONS.length}${version < MIGRATIONS.length ? ' (migrated at the next open)' : ''}` });
      const count = (sql: string) => (handle!.prepare(sql).get() as { n: number }).n;
      try {
        findings.push({ level: 'ok', check: 'contents', detail: `${count('SELECT COUNT(*) AS n FROM runs')} run(s), ${count('SELECT COUNT(*) AS n FROM steps')} step(s), ${count('SELECT COUNT(*) AS n FROM import_errors')} import problem(s) recorded` });
      } catch (err) {
        findings.push({ level: 'error', check: 'contents', detail: `the runs cannot be read: ${(err as Error).message}`, advice: rebuild });
      }
    } catch (err) {
      findings.push({ level: 'error', check: 'database', detail: `${db} cannot be read as a database: ${(err as Error).message}`, advice: rebuild });
    } finally {
      handle?.close();
    }
  }
  findings.push(...inboxFindings(paths));
  return { home: paths.home, database: db, healthy: findings.every((f) => f.level !== 'error'), findings };
}

function inboxFindings(paths: HomePaths): DoctorFinding[] {
  let names: string[];
  try {
    names = fs.readdirSync(paths.inbox);
  } catch {
    return [{ level: 'warning', check: 'inbox', detail: `${paths.inbox} does not exist or cannot be read`, advice: 'it is created by the next tb command that opens this home' }];
  }
  const special: string[] = [];
  const dangling: string[] = [];
  let files = 0;
  for (const name of names) {
    const p = path.join(paths.inbox, name);
    let st: fs.Stats;
    try {
      st = fs.statSync(p);
    } catch {
      dangling.push(name);
      continue;
    }
    if (st.isFile()) files += 1;
    else if (!st.isDirectory()) special.push(name);
  }
  const out: DoctorFinding[] = [{ level: 'ok', check: 'inbox', detail: `${files} file(s) in ${paths.inbox}` }];
  if (special.length) out.push({ level: 'warning', check: 'inbox', detail: `${special.length} special file(s) (FIFO, socket, device) are skipped: ${special.slice(0, 5).join(', ')}`, advice: 'remove them; the importer never opens them' });
  if (dangling.length) out.push({ level: 'warning', check: 'inbox', detail: `${dangling.length} link(s) to nothing are skipped: ${dangling.slice(0, 5).join(', ')}`, advice: 'remove them' });
  return out;
}
