// Lines too long to hold as one string are read piecewise (huge-line.ts). The piecewise path is forced here with
// a small `hugeLineBytes`, so every case stays a few MB; `tb import` of a 600 MB line was checked by hand.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../store/open-database';
import { importFile } from '../import-file';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-huge-line-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const T = 1_700_000_000_000;
const runStart = JSON.stringify({ type: 'run-start', v: '1.0', run_id: 'r', pipeline: 'p', ts: T });
const stepStart = (id: string, index: number, input: unknown) =>
  JSON.stringify({ type: 'step-start', run_id: 'r', step_id: id, name: `step ${id}`, step_type: 'tool', index, replay_key: `k${index}`, ts: T + index, input, metadata: { n: index } });
const stepEnd = (id: string, index: number) => JSON.stringify({ type: 'step-end', run_id: 'r', step_id: id, status: 'ok', ts: T + index + 1, output: { done: id } });
const runEnd = JSON.stringify({ type: 'run-end', run_id: 'r', status: 'ok', ts: T + 100 });

function write(name: string, text: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

/** Stored steps and the problems of importing `file`, with lines over `hugeLineBytes` read piecewise. */
function imported(file: string, db: string, hugeLineBytes?: number, final = true) {
  const store = openDatabase(path.join(dir, db));
  try {
    const r = importFile(store, file, { final, hugeLineBytes });
    const steps = store.prepare('SELECT step_id, name, status, input, output, metadata FROM steps ORDER BY idx').all() as Record<string, string>[];
    return { steps, problems: r.newErrors.map((e) => `${e.level} ${e.line}: ${e.message}`) };
  } finally {
    store.close();
  }
}

describe('a native line too long to hold as one string', () => {
  it('stores what the whole-line read stores: a field over the cap as the same truncation marker, named at its line', () => {
    const big = 'a'.repeat(5_000_000); // over the 4 MB a member is parsed at: marked without being parsed
    const mid = { text: 'b'.repeat(2_000_000) }; // parsed, then cut by the store's 1,000,000-character cap
    const file = write('big.jsonl', [runStart, stepStart('s1', 0, big), stepEnd('s1', 0), stepStart('s2', 1, mid), stepEnd('s2', 1), runEnd, ''].join('\n'));
    const whole = imported(file, 'whole.db');
    const piecewise = imported(file, 'piecewise.db', 64 * 1024);
    expect(piecewise).toEqual(whole);
    expect(piecewise.steps).toHaveLength(2);
    expect(JSON.parse(piecewise.steps[0].input)).toEqual({ $truncated: true, original_chars: 5_000_002, preview: `"${'a'.repeat(19_999)}` });
    expect(piecewise.problems).toEqual(['warning 2: field "input" exceeds the size cap and was stored truncated', 'warning 4: field "input" exceeds the size cap and was stored truncated']);
  });

  it('a broken or non-record huge line is named at its line and skipped; every other line is kept', () => {
    const pad = 'x'.repeat(3_500_000); // a line no read of 1 MB finishes: the reader's carry passes hugeLineBytes
    const cases = [
      `{"type":"step-start","run_id":"r","input":"${pad}\\q"}`, // an escape JSON does not allow
      `{"type":"step-start","run_id":"r","input":"${pad}" "x":1}`, // a missing comma
      `${stepStart('s9', 5, pad)} trailing`, // text after the record
      `["${pad}"]`, // not an object
    ];
    cases.forEach((line, i) => {
      const file = write(`broken-${i}.jsonl`, [runStart, line, stepStart('s1', 0, 'in'), stepEnd('s1', 0), runEnd, ''].join('\n'));
      const r = imported(file, `broken-${i}.db`, 64 * 1024);
      expect(r.steps.map((s) => s.step_id), line.slice(-20)).toEqual(['s1']);
      expect(r.problems, line.slice(-20)).toEqual([
        expect.stringMatching(i === 3 ? /^error 2: a trace record must be a JSON object$/ : /^error 2: invalid JSON in a line of 3\.5 MB \([^)]*, \d+ bytes into the line\); the line was skipped$/),
      ]);
    });
  });

  it('a huge line still being written is left until it is whole, and nothing after its start is taken as read', () => {
    const head = [runStart, stepStart('s1', 0, 'in'), stepEnd('s1', 0)].join('\n') + '\n';
    const bigLine = stepStart('s2', 1, 'c'.repeat(3_000_000));
    const file = write('growing.jsonl', head + bigLine.slice(0, 2_500_000));
    const db = path.join(dir, 'growing.db');
    const store = openDatabase(db);
    try {
      const first = importFile(store, file, { hugeLineBytes: 64 * 1024 });
      expect(first.newErrors).toEqual([]);
      expect(store.prepare('SELECT COUNT(*) FROM steps').pluck().get()).toBe(1);
      // Cut where the file ends, in a one-shot import: said, and still read when the rest comes.
      const cut = importFile(store, file, { final: true, hugeLineBytes: 64 * 1024 });
      expect(cut.newErrors.map((e) => `${e.line}: ${e.message}`)).toEqual([expect.stringMatching(/^4: last line is incomplete \(\d+ bytes, cut inside its JSON\); it will be read if the file grows$/)]);
      fs.appendFileSync(file, bigLine.slice(2_500_000) + '\n' + stepEnd('s2', 1) + '\n' + runEnd + '\n');
      const later = importFile(store, file, { final: true, hugeLineBytes: 64 * 1024 });
      expect(later.newErrors.map((e) => `${e.line}: ${e.message}`)).toEqual(['4: field "input" exceeds the size cap and was stored truncated']);
      const steps = store.prepare("SELECT step_id, status, input ->> '$.original_chars' AS chars FROM steps ORDER BY idx").all();
      expect(steps).toEqual([
        { step_id: 's1', status: 'ok', chars: null },
        { step_id: 's2', status: 'ok', chars: 3_000_002 },
      ]);
    } finally {
      store.close();
    }
  });
});
