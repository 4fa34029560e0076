/**
 * A run id a LangChain file repeats in another tree (two root runs, or runs of
 * two traces, with one id: two exports joined, a tracer given fixed ids) is
 * kept as a step of its own, renamed `<id>~2`, with a warning at its line, and
 * the children that name it follow it. Inside one tree a repeated id is still
 * one step (the later copy skipped). Streamed and whole imports alike.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectStreamedSameAsWhole } from '../../../../test/support/langchain-imports';
import type { Imported } from '../../../../test/support/imported-rows';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-lc-repeated-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const T = 1_700_000_000_000;

type Run = { id: string; name?: string; run_type?: string; start?: number; parent?: string; trace?: string; kids?: Run[] };

/** A run as LangChain writes it; `kids` nested in child_runs, one run a line. */
function run(r: Run): string {
  const members = [
    `"id":"${r.id}"`,
    `"name":"${r.name ?? r.id}"`,
    `"run_type":"${r.run_type ?? 'tool'}"`,
    `"start_time":${r.start ?? T}`,
    `"end_time":${(r.start ?? T) + 5}`,
    ...(r.parent ? [`"parent_run_id":"${r.parent}"`] : []),
    ...(r.trace ? [`"trace_id":"${r.trace}"`] : []),
  ];
  const kids = r.kids ? `,"child_runs":[\n${r.kids.map(run).join(',\n')}]` : '';
  return `{${members.join(',')}${kids}}`;
}

function imported(runs: Run[]): Imported {
  const file = path.join(dir, 'runs.json');
  fs.writeFileSync(file, `[\n${runs.map(run).join(',\n')}\n]\n`);
  return expectStreamedSameAsWhole(file);
}

/** run/step ← parent, in each run's order. */
function tree(r: Imported): string[] {
  return r.steps.map((s) => `${String(s.run_id)}/${String(s.step_id)} ← ${String(s.parent_id ?? '-')}`);
}

const warnings = (r: Imported) => r.problems.filter((p) => p.includes('appears'));

describe('a LangChain run id repeated in another tree', () => {
  it('two root runs with one id (trace_id their id, as LangChain records it): the second is its own run, renamed, its children under it', () => {
    const r = imported([
      { id: 'agent', run_type: 'chain', trace: 'agent', kids: [{ id: 'search', start: T + 1, parent: 'agent', trace: 'agent' }] },
      { id: 'agent', run_type: 'chain', start: T + 100, trace: 'agent', kids: [{ id: 'answer', start: T + 101, parent: 'agent', trace: 'agent' }] },
    ]);
    expect(tree(r)).toEqual(['agent/agent ← -', 'agent/search ← agent', 'agent~2/agent~2 ← -', 'agent~2/answer ← agent~2']);
    // Lines: 1 '[', 2-3 the first tree, 4-5 the second.
    expect(warnings(r)).toEqual(['warning line 4: run id agent appears again at line 4 (another tree); stored as agent~2']);
  });

  it('a flat export of two traces that share a run id: the copy in the second trace is renamed, and a child listed before it, in its trace, follows it', () => {
    const r = imported([
      { id: 'check', start: T + 103, parent: 'shared', trace: 'trace-2' },
      { id: 'trace-1', run_type: 'chain', trace: 'trace-1' },
      { id: 'shared', start: T + 2, parent: 'trace-1', trace: 'trace-1' },
      { id: 'trace-2', run_type: 'chain', start: T + 100, trace: 'trace-2' },
      { id: 'shared', start: T + 102, parent: 'trace-2', trace: 'trace-2' },
    ]);
    expect(tree(r)).toEqual(['trace-1/trace-1 ← -', 'trace-1/shared ← trace-1', 'trace-2/trace-2 ← -', 'trace-2/shared~2 ← trace-2', 'trace-2/check ← shared~2']);
    expect(warnings(r)).toEqual(['warning line 6: run id shared appears again at line 6 (another tree); stored as shared~2']);
  });

  it('a whole trace exported twice: every run of the second copy is renamed, and it stays one tree', () => {
    const once = (start: number): Run[] => [
      { id: 'root', run_type: 'chain', start, trace: 'root' },
      { id: 'tool', start: start + 1, parent: 'root', trace: 'root' },
    ];
    const r = imported([...once(T), ...once(T + 100)]);
    expect(tree(r)).toEqual(['root/root ← -', 'root/tool ← root', 'root~2/root~2 ← -', 'root~2/tool~2 ← root~2']);
  });

  it('the new id never takes one the file already uses', () => {
    const r = imported([
      { id: 'agent', run_type: 'chain' },
      { id: 'agent~2', run_type: 'chain', start: T + 50 },
      { id: 'agent', run_type: 'chain', start: T + 100 },
    ]);
    expect(r.steps.map((s) => s.step_id)).toEqual(['agent', 'agent~2', 'agent~3']);
    expect(warnings(r)).toEqual(['warning line 4: run id agent appears again at line 4 (another tree); stored as agent~3']);
  });
});

describe('a LangChain run id repeated inside one tree', () => {
  it('is one step: the later copy is skipped, as before', () => {
    const r = imported([{ id: 'agent', run_type: 'chain', kids: [{ id: 'tool', start: T + 1 }, { id: 'tool', start: T + 2 }] }]);
    expect(tree(r)).toEqual(['agent/agent ← -', 'agent/tool ← agent']);
    expect(warnings(r)).toEqual(['warning line 3: [0].child_runs[1]: step id tool appears twice in run agent; the later copy is skipped']);
  });
});

/** mulberry32: the same files every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A few trees whose runs take ids from a small pool (so ids repeat within and across trees, and one is already a
 * renamed-looking id), each nested or flat, with or without trace ids, flat runs listed in any order.
 */
function tangledFile(seed: number): Run[] {
  const r = random(seed);
  const pick = <T,>(xs: T[]) => xs[Math.floor(r() * xs.length)];
  const pool = ['a', 'b', 'c', 'a~2', 'root'];
  const top: Run[] = [];
  for (let t = 0, trees = 2 + Math.floor(r() * 3); t < trees; t++) {
    const root: Run = { id: pick(pool), run_type: 'chain', start: T + t * 100 };
    const traceId = r() < 0.6 ? root.id : r() < 0.5 ? `trace-${t}` : undefined;
    root.trace = traceId;
    const nested = r() < 0.5;
    const runs: Run[] = [root];
    for (let k = 0, size = Math.floor(r() * 5); k < size; k++) {
      const parent = pick(runs);
      const kid: Run = { id: pick(pool), start: T + t * 100 + k + 1, trace: traceId };
      if (!nested || r() < 0.5) kid.parent = parent.id;
      if (nested) (parent.kids ??= []).push(kid);
      runs.push(kid);
    }
    if (nested) top.push(root);
    else top.push(...runs.sort(() => r() - 0.5));
  }
  return top;
}

describe('repeated run ids, streamed and whole alike', () => {
  it('on files of tangled trees that share ids, nested and flat, with and without trace ids', () => {
    let renamed = 0;
    for (let seed = 1; seed <= 60; seed++) renamed += warnings(imported(tangledFile(seed))).filter((w) => w.includes('appears again')).length;
    expect(renamed).toBeGreaterThan(20);
  });
});

