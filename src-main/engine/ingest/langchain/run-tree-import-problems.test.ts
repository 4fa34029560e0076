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
import { importForeign, importWhole } from '../import-foreign';
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
function imported(text: string, importer: Importer): { runs: { run_id: string; status: string }[]; steps: string[]; problems: string[] } {
  const file = path.join(dir, 'runs.json');
  fs.writeFileSync(file, text);
  const dbFile = path.join(dir, `${Math.random().toString(36).slice(2)}.db`);
  const db = openDatabase(dbFile);
  const fd = fs.openSync(file, 'r');
  const errors: ImportError[] = [];
  try {
    importer(db, fd, file, fs.fstatSync(fd).size, 'langchain', errors);
    const steps = (db.prepare('SELECT run_id, step_id FROM steps ORDER BY run_id, idx').all() as { run_id: string; step_id: string }[]).map((s) => `${s.run_id}/${s.step_id}`);
    const runs = db.prepare('SELECT run_id, status FROM runs ORDER BY run_id').all() as { run_id: string; status: string }[];
    return { runs, steps, problems: errors.map((e) => `${e.level} line ${e.line}: ${e.message}`) };
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

/** One root run with two tool children, written as LangChain JS writes them (run_type and end after child_runs). */
function trace(t: number): string {
  const base = 1_700_000_000_000 + t * 60_000;
  const child = (c: number) =>
    `{"id":"t${t}-c${c}","name":"lookup","start_time":${base + 10 + c},"parent_run_id":"t${t}","child_runs":[],"run_type":"tool","end_time":${base + 20 + c},"trace_id":"t${t}","outputs":{"output":"${c}"}}`;
  return `{"id":"t${t}","name":"agent","start_time":${base},"inputs":{"q":"${t}"},"child_runs":[\n${child(0)},\n${child(1)}\n],"run_type":"chain","end_time":${base + 50},"trace_id":"t${t}","outputs":{"output":"done"}}`;
}

describe('a LangChain file cut off mid-write', () => {
  it('keeps the runs complete before the cut, marks every run incomplete, and names the line of the cut', () => {
    const whole = `[\n${[0, 1, 2].map(trace).join(',\n')}\n]\n`;
    // Cut inside the third root's second child: its first child is complete, the root and the second child are not.
    const cutAt = whole.indexOf('"id":"t2-c1"') + 20;
    const r = imported(whole.slice(0, cutAt), importLangChainStreaming);
    // The cut root stands as the missing parent of its complete child, as any parent not in a file does.
    expect(r.steps).toEqual(['t0/t0', 't0/t0-c0', 't0/t0-c1', 't1/t1', 't1/t1-c0', 't1/t1-c1', 't2/missing-parent:t2', 't2/t2-c0']);
    const line = whole.slice(0, cutAt).split('\n').length;
    expect(r.problems).toContain(`error line ${line}: the file ends inside the LangChain document (line ${line}, byte ${cutAt}): it was cut off; the runs complete before the cut are imported, and marked incomplete`);
    // The engine's import of the file (importForeign) keeps the same.
    expect(imported(whole.slice(0, cutAt), (db, fd, file, size, format, errors) => importForeign(db, fd, file, size, format, errors)).steps).toEqual(r.steps);
    expect(r.runs).toEqual([
      { run_id: 't0', status: 'incomplete' },
      { run_id: 't1', status: 'incomplete' },
      { run_id: 't2', status: 'incomplete' },
    ]);
  });
});
