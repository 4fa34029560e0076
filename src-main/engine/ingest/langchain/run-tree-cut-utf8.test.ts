/**
 * A LangChain file cut off inside a character of several bytes (an exporter
 * killed while writing "é" or "中") keeps the runs complete before the cut,
 * as a file cut between characters does: the last bytes are the start of a
 * character the file was about to hold, not text that is not UTF-8.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importForeign } from '../import-foreign';
import { importLangChainStreaming } from './run-tree-stream-import';
import { importedBy, type Imported, type Importer } from '../../../../test/support/imported-rows';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-lc-cut-utf8-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** One root run with two tool children whose outputs are French and Chinese text, as LangChain JS writes them. */
function trace(t: number): string {
  const base = 1_700_000_000_000 + t * 60_000;
  const child = (c: number, output: string) =>
    `{"id":"t${t}-c${c}","name":"lookup","start_time":${base + 10 + c},"parent_run_id":"t${t}","child_runs":[],"run_type":"tool","end_time":${base + 20 + c},"outputs":{"output":"${output}"}}`;
  return `{"id":"t${t}","name":"agent","start_time":${base},"child_runs":[\n${child(0, 'café')},\n${child(1, '中文')}\n],"run_type":"chain","end_time":${base + 50},"outputs":{"output":"done"}}`;
}

const FILE = Buffer.from(`[\n${[0, 1, 2].map(trace).join(',\n')}\n]\n`);

const viaEngine: Importer = (db, fd, file, size, format, errors) => importForeign(db, fd, file, size, format, errors);

function cutImport(bytes: Buffer, importer: Importer): Imported {
  const file = path.join(dir, 'runs.json');
  fs.writeFileSync(file, bytes);
  return importedBy(file, importer, path.join(dir, 'runs.db'), 'langchain');
}

/** The file's bytes up to `k` bytes into the last `character` of the last trace. */
function cutInside(character: string, k: number): Buffer {
  const at = FILE.lastIndexOf(Buffer.from(character));
  return FILE.subarray(0, at + k);
}

describe('a LangChain file cut inside a character of several bytes', () => {
  it.each([
    ['é', 1],
    ['中', 1],
    ['中', 2],
  ])('inside "%s" after %i byte(s): it keeps what a cut just before that character keeps, and names the cut', (character, k) => {
    const cut = cutInside(character, k);
    const before = cutImport(cutInside(character, 0), importLangChainStreaming);
    expect(before.steps.length).toBeGreaterThan(0);
    // The cut is inside the output's string: the problem names where that string starts, as for any cut string.
    const line = cut.toString('latin1').split('\n').length;
    const byte = cut.lastIndexOf('"output":"') + '"output":'.length;
    expect(before.problems).toContain(`error line ${line}: the file ends inside the LangChain document (line ${line}, byte ${byte}): it was cut off; the runs complete before the cut are imported, and marked incomplete`);
    for (const importer of [importLangChainStreaming, viaEngine]) {
      const r = cutImport(cut, importer);
      expect(r.runs).toEqual(before.runs);
      expect(r.steps).toEqual(before.steps);
      expect(r.problems).toEqual(before.problems);
      expect(r.runs.map((run) => run.status)).toEqual(r.runs.map(() => 'incomplete'));
    }
  });

  it('a file of Chinese text over a megabyte, its characters split between the reads of the check, is kept too', () => {
    // Three paddings put the text at every alignment against the check's reads: at least two split a character.
    for (const pad of ['', ' ', '  ']) {
      const long = `[\n${trace(0).replace('"outputs":{"output":"done"}', `"outputs":{"output":"${'中'.repeat(400_000)}"}`)},${pad}\n${trace(1)}\n]\n`;
      const cut = Buffer.from(long).subarray(0, Buffer.from(long).lastIndexOf(Buffer.from('中')) + 1);
      const r = cutImport(cut, importLangChainStreaming);
      expect(r.steps.map((s) => s.step_id)).toEqual(['t0', 't0-c0', 't0-c1', 'missing-parent:t1', 't1-c0']);
      expect(r.problems.join('\n')).toContain('it was cut off');
    }
  });

  it('bytes that are not UTF-8 before the cut are not taken for a cut character: they are still reported', () => {
    const broken = Buffer.from(cutInside('中', 2));
    broken[FILE.indexOf(Buffer.from('café')) + 3] = 0xff;
    expect(cutImport(broken, viaEngine).problems.join('\n')).toMatch(/invalid UTF-8: \d+ character\(s\) replaced/);
  });
});
