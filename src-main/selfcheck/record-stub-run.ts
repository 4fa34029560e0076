/**
 * `tb selfcheck` (and the experiment tests and fork benchmark) record runs of
 * the stub pipeline: started as a real process, the way a user's pipeline is,
 * then imported into the given home.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import type { HomePaths } from '../engine/home';
import { importFile } from '../engine/ingest/import-file';
import type { Db } from '../engine/store/open-database';
import { getRunDetail } from '../engine/store/read-runs';
import type { RunDetail } from '../../src-shared/model';

import { inPackage, packageRoot } from '../platform/package-root';

/** The stub pipeline's source, run as a separate process through tsx (also from the bundled CLI). */
export function stubPipeline(): string {
  return inPackage('src-main/selfcheck/stub-pipeline.ts');
}

export interface StubTarget {
  paths: HomePaths;
  db: Db;
  /** Where the stub counts its live calls (DIR/calls.log) and pids (DIR/pids). */
  calls: string;
}

/** Runs the stub pipeline directly (no plan) and imports its run. */
export function recordStubRun(home: StubTarget, args: string[] = []): RunDetail {
  const stdout = execFileSync(process.execPath, ['--import', 'tsx', stubPipeline(), '--calls', home.calls, ...args], {
    cwd: packageRoot(),
    env: { ...process.env, TRACEBACK_HOME: home.paths.home, TRACEBACK_REPLAY_PLAN: '' },
    encoding: 'utf8',
  });
  const { runId } = JSON.parse(stdout.trim().split('\n').at(-1)!) as { runId: string };
  importFile(home.db, path.join(home.paths.inbox, `${runId}.jsonl`), { final: true });
  return getRunDetail(home.db, runId);
}

