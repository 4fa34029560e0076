/**
 * No-progress loops: the same step repeated with the same content under one
 * parent. The fingerprint is the input for most steps and the output for LLM
 * calls (their input grows with the conversation while the call they issue
 * stays the same). A loop is a symptom, never a cause: it bounds where to
 * look (at or before its first iteration), its repeats are collapsed into the
 * first occurrence, and an iteration-limit error above it is its symptom.
 */
import type { Settings } from '../scoring/settings';
import type { Lineage } from './lineage';
import { typeKeyOf, type RunGraph } from './run-graph';
import { IntMap } from './int-map';
import { hashKey } from './value-features';
import { T_LLM } from './step-codes';

export interface LoopInfo {
  parent: number;
  name: string;
  /** Positions of the repeated steps, first occurrence first. */
  occurrences: number[];
}


export function findLoops(g: RunGraph, lin: Lineage, settings: Settings): LoopInfo[] {
  const min = settings.blame.loop_min_repeats;
  const loops: LoopInfo[] = [];
  const groups: [number, number[]][] = [[-1, g.roots]];
  for (let p = 0; p < g.steps.length; p++) if (g.children[p].length >= min) groups.push([p, g.children[p]]);
  // Hash of (type, name), computed once per distinct pair rather than once per step, and looked up by the
  // graph's codes (typeKeyOf, nameIds) so that the step objects are not read.
  const nameHashes = new Map<number | string, Map<number, number>>();
  const nameHash = (c: number): number => {
    const type = typeKeyOf(g, c);
    let byName = nameHashes.get(type);
    if (!byName) nameHashes.set(type, (byName = new Map()));
    let h = byName.get(g.nameIds[c]);
    if (h === undefined) byName.set(g.nameIds[c], (h = hashKey(`${g.steps[c].type}:${g.steps[c].name}`)));
    return h;
  };
  for (const [parent, kids] of groups) {
    if (kids.length < min) continue;
    // Count (name, type, content) fingerprints first; lists are built only for repeated ones.
    const prints = new Int32Array(kids.length);
    const counts = new IntMap(kids.length);
    for (let i = 0; i < kids.length; i++) {
      const c = kids[i];
      if (!g.live[c]) {
        prints[i] = -1;
        continue;
      }
      const f = (Math.imul(nameHash(c), 31) + (g.types[c] === T_LLM ? lin.outHash[c] : lin.inHash[c])) & 0x3fffffff;
      prints[i] = f;
      counts.add(f, 1);
    }
    const lists = new Map<number, number[]>();
    for (let i = 0; i < kids.length; i++) {
      if (prints[i] < 0 || counts.get(prints[i], 0) < min) continue;
      const list = lists.get(prints[i]);
      if (list) list.push(kids[i]);
      else lists.set(prints[i], [kids[i]]);
    }
    for (const list of lists.values()) loops.push({ parent, name: g.steps[list[0]].name, occurrences: list });
  }
  return loops.sort((a, b) => a.occurrences[0] - b.occurrences[0]);
}
