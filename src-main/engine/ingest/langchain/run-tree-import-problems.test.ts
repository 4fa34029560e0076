/**
 * What a LangChain import says about a file that is not quite a run export,
 * said the same by the streamed and the whole-document import: a value that
 * is not a run is named at the line it starts on.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ImportError } from '../../../../src-shared/model';
import { openDatabase, type Db } from '../../store/open-database';
import { importWhole } from '../import-foreign';
import { importLangChainStreaming } from './run-tree-stream-import';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-lc-problems-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

type Importer = (db: Db, fd: number, file: string, size: number, format: string, errors: ImportError[]) => unknown;

const IMPORTERS: [string, Importer][] = [
  ['streamed', importLangChainStreaming],
  ['whole', importWhole],
];

/** The steps each import stored (run, step id) and the problems it reported, as text. */
function imported(text: string, importer: Importer): { steps: string[]; problems: string[] } {
  const file = path.join(dir, 'runs.json');
  fs.writeFileSync(file, text);
  const dbFile = path.join(dir, `${Math.random().toString(36).slice(2)}.db`);
  const db = openDatabase(dbFile);
  const fd = fs.openSync(file, 'r');
  const errors: ImportError[] = [];
  try {
    importer(db, fd, file, fs.fstatSync(fd).size, 'langchain', errors);
    const steps = (db.prepare('SELECT run_id, step_id FROM steps ORDER BY run_id, idx').all() as { run_id: string; step_id: string }[]).map((s) => `${s.run_id}/${s.step_id}`);
    return { steps, problems: errors.map((e) => `${e.level} line ${e.line}: ${e.message}`) };
  } finally {
    fs.closeSync(fd);
    db.close();
  }
}

describe('a LangChain file with values that are not runs', () => {
  it('names each at the line it starts on, nested or at the top, streamed or whole', () => {
    const text = [
      '[',
      '  {"id": "a", "name": "agent", "run_type": "chain", "start_time": 1700000000000, "child_runs": [',
      '    {"id": "b", "name": "lookup", "run_type": "tool", "start_time": 1700000000001},',
      '    42',
      '  ]},',
      '  {"name": "not a run"}',
      ']',
    ].join('\n');
    for (const [label, importer] of IMPORTERS) {
      const r = imported(text, importer);
      expect(r.steps, label).toEqual(['a/a', 'a/b']);
      expect(r.problems.filter((p) => p.includes('not a LangChain run')), label).toEqual([
        'error line 4: [0].child_runs[1]: not a LangChain run (no "run_type"); skipped',
        'error line 6: [1]: not a LangChain run (no "run_type"); skipped',
      ]);
    }
  });

  it('names a document that is one object, not a run, at the line it starts on', () => {
    const text = '\n\n{\n  "runs": 3,\n  "name": "a settings file"\n}\n';
    for (const [label, importer] of IMPORTERS) {
      expect(imported(text, importer).problems, label).toEqual(['error line 3: $: not a LangChain run (no "run_type"); skipped']);
    }
  });
});
