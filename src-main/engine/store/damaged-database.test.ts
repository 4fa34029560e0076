/**
 * A store that knows when it is hurt (issue 12): a file that is not a
 * database, a damaged header and damaged pages are refused at open with one
 * line naming the path, nothing is written into them, and `tb doctor` says
 * what is wrong and what to do.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from './open-database';
import { checkHome } from './check-database';
import { homePaths } from '../home';
import { createRecordWriter } from './write-records';
import { createEngine } from '../create-engine';
import { syntheticRunRecords } from '../../../test/support/synthetic-trace';

function home(): { dir: string; db: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-damaged-'));
  fs.mkdirSync(path.join(dir, 'inbox'));
  return { dir, db: path.join(dir, 'traces.db') };
}

function healthyDatabase(file: string): void {
  const db = openDatabase(file);
  const w = createRecordWriter(db);
  db.transaction(() => w.applyBatch(syntheticRunRecords({ runId: 'r1', steps: 400 }), null))();
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

const digest = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

describe('a damaged database', () => {
  it('a file that is not a database is refused in one line naming it, and left as it was', () => {
    const h = home();
    fs.writeFileSync(h.db, 'this is not sqlite\n'.repeat(400));
    const before = digest(h.db);
    expect(() => openDatabase(h.db)).toThrow(new RegExp(`^${h.db.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is damaged or is not a Traceback database \\(.*\\); nothing was written to it — run \`tb doctor\``));
    expect(digest(h.db)).toBe(before);
    expect(fs.existsSync(`${h.db}-wal`)).toBe(false);
  });

  it('a damaged header is refused the same way, not with a stack trace', () => {
    const h = home();
    healthyDatabase(h.db);
    const bytes = fs.readFileSync(h.db);
    bytes.fill(0x41, 0, 100);
    fs.writeFileSync(h.db, bytes);
    expect(() => openDatabase(h.db)).toThrow(/is damaged or is not a Traceback database/);
  });

  it('damaged pages fail quick_check at open: no import, show or blame writes into it, and tb doctor advises a rebuild from the inbox', () => {
    const h = home();
    healthyDatabase(h.db);
    const bytes = fs.readFileSync(h.db);
    expect(bytes.length).toBeGreaterThan(8 * 4096);
    for (let i = 3 * 4096; i < bytes.length - 4096; i += 4096) bytes.fill(0xa5, i + 8, i + 600);
    fs.writeFileSync(h.db, bytes);
    const before = digest(h.db);
    expect(() => openDatabase(h.db)).toThrow(/is damaged or is not a Traceback database/);
    expect(digest(h.db)).toBe(before);

    const report = checkHome(homePaths(h.dir));
    expect(report.healthy).toBe(false);
    const err = report.findings.find((f) => f.level === 'error')!;
    expect(err.advice).toMatch(/rebuild it from the inbox/);
    expect(digest(h.db)).toBe(before);

    const tb = (args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', path.resolve('src-main/cli/tb.ts'), ...args], { env: { ...process.env, TRACEBACK_HOME: h.dir }, encoding: 'utf8' });
    const show = tb(['list']);
    expect(show.status).toBe(2);
    expect(show.stderr.trim().split('\n')).toHaveLength(1);
    expect(show.stderr).toContain(h.db);
    expect(show.stderr).not.toMatch(/\n\s+at /);
    expect(digest(h.db)).toBe(before);
    const doctor = tb(['doctor']);
    expect(doctor.status).toBe(1);
    expect(doctor.stdout).toMatch(/ERROR/);
  }, 30_000);

  it('a database closed cleanly is stamped (its next open skips the full read), and damage after that is still caught', async () => {
    const h = home();
    healthyDatabase(h.db);
    const engine = createEngine({ home: h.dir });
    await engine.close();
    expect(fs.existsSync(`${h.db}-verified`)).toBe(true);
    openDatabase(h.db).close();
    const bytes = fs.readFileSync(h.db);
    for (let i = 3 * 4096; i < bytes.length - 4096; i += 4096) bytes.fill(0xa5, i + 8, i + 600);
    fs.writeFileSync(h.db, bytes);
    expect(() => openDatabase(h.db)).toThrow(/is damaged or is not a Traceback database/);
  });

  it('a healthy home passes tb doctor', () => {
    const h = home();
    healthyDatabase(h.db);
    const report = checkHome(homePaths(h.dir));
    expect(report.findings.filter((f) => f.level === 'error')).toEqual([]);
    expect(report.healthy).toBe(true);
  });
});
