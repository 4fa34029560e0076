/**
 * Aligns the steps of two runs. The key is the replay key (parent key / name
 * # occurrence under that parent), which survives loops and repeated names:
 * the third "search" of a loop is "agent#0/search#2" in both runs. When a run
 * has no usable replay keys (missing or not unique, e.g. some foreign
 * imports), the same key is rebuilt from the tree. Rows come out in B's
 * order, with A's unmatched steps placed before the next matched step.
 */
import type { RunDetail, Step } from '../../../src-shared/model';

export interface AlignedRow {
  key: string;
  a: number | null;
  b: number | null;
}

function treeKeys(steps: Step[]): string[] {
  const pos = new Map<string, number>();
  steps.forEach((s, i) => pos.set(s.step_id, i));
  const keys: string[] = new Array(steps.length);
  const occ = new Map<string, number>();
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i];
    const p = s.parent_id === null ? undefined : pos.get(s.parent_id);
    const parentKey = p !== undefined && p < i ? keys[p] : '';
    const k = `${parentKey}\u0000${s.name}`;
    const n = occ.get(k) ?? 0;
    occ.set(k, n + 1);
    keys[i] = `${parentKey ? `${parentKey}/` : ''}${s.name}#${n}`;
  }
  return keys;
}

function stepKeys(detail: RunDetail): string[] {
  const steps = detail.steps;
  const replay = steps.map((s) => s.replay_key);
  const unique = new Set(replay).size === replay.length && replay.every((k) => k !== '' && k !== undefined);
  return unique ? replay : treeKeys(steps);
}

export function alignSteps(a: RunDetail, b: RunDetail): AlignedRow[] {
  const ka = stepKeys(a);
  const kb = stepKeys(b);
  const aByKey = new Map<string, number>();
  ka.forEach((k, i) => aByKey.set(k, i));
  const matchedA = new Set<number>();
  const rows: AlignedRow[] = [];
  let nextA = 0;
  const flushA = (upTo: number): void => {
    for (; nextA < upTo; nextA++) if (!matchedA.has(nextA)) rows.push({ key: ka[nextA], a: nextA, b: null });
  };
  const pairs = kb.map((k) => aByKey.get(k));
  for (const p of pairs) if (p !== undefined) matchedA.add(p);
  for (let j = 0; j < kb.length; j++) {
    const i = pairs[j];
    if (i !== undefined) {
      flushA(i);
      if (nextA <= i) nextA = i + 1;
      rows.push({ key: kb[j], a: i, b: j });
    } else {
      rows.push({ key: kb[j], a: null, b: j });
    }
  }
  flushA(ka.length);
  return rows;
}
