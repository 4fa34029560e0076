/** `tb import` / File → Open: files, or folders of trace files, imported once each. */
import fs from 'node:fs';
import path from 'node:path';
import type { ImportError, ImportReport } from '../../src-shared/model';
import type { Db } from './store/open-database';
import { fileErrors, importFile } from './importer/import-file';
import { TRACE_FILE } from './importer/watch-inbox';

function expand(p: string, depth = 3): string[] {
  let st: fs.Stats;
  try {
    st = fs.statSync(p);
  } catch {
    return [p]; // importFile reports the missing file with its name
  }
  if (!st.isDirectory()) return [p];
  if (depth === 0) return [];
  return fs
    .readdirSync(p)
    .sort()
    .flatMap((name) => {
      const child = path.join(p, name);
      return fs.statSync(child).isDirectory() ? expand(child, depth - 1) : TRACE_FILE.test(name) ? [child] : [];
    });
}

export interface ImportPathsOutcome extends ImportReport {
  changedRuns: string[];
}

/**
 * Imports each file once. The report lists, per file, the runs it holds and
 * every problem recorded for it (so importing twice reports the same thing).
 */
export function importPaths(db: Db, paths: string[]): ImportPathsOutcome {
  const imported: ImportReport['imported'] = [];
  const errors: ImportError[] = [];
  const changed = new Set<string>();
  for (const file of paths.flatMap((p) => expand(path.resolve(p)))) {
    const r = importFile(db, file, { final: true });
    r.changedRuns.forEach((id) => changed.add(id));
    const recorded = fileErrors(db, r.file);
    // Problems not recorded in the store (e.g. an unreadable file) are still reported.
    const unrecorded = r.newErrors.filter((e) => !recorded.some((x) => x.line === e.line && x.message === e.message));
    errors.push(...recorded, ...unrecorded);
    if (r.runs.length > 0 || !errors.some((e) => e.file === r.file && e.level === 'error')) imported.push({ file: r.file, runs: r.runs });
  }
  return { imported, errors, changedRuns: [...changed] };
}
