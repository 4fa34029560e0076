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
import type { RunGraph } from './run-graph';

export interface LoopInfo {
  parent: number;
  name: string;
  /** Positions of the repeated steps, first occurrence first. */
  occurrences: number[];
}

function fingerprint(g: RunGraph, lin: Lineage, p: number): string {
  const s = g.steps[p];
  return `${s.name}\u0000${s.type}\u0000${s.type === 'llm' ? lin.outHash[p] : lin.inHash[p]}`;
}

export function findLoops(g: RunGraph, lin: Lineage, settings: Settings): LoopInfo[] {
  const min = settings.blame.loop_min_repeats;
  const loops: LoopInfo[] = [];
  const groups: [number, number[]][] = [[-1, g.roots]];
  for (let p = 0; p < g.steps.length; p++) if (g.children[p].length >= min) groups.push([p, g.children[p]]);
  for (const [parent, kids] of groups) {
    if (kids.length < min) continue;
    const byPrint = new Map<string, number[]>();
    for (const c of kids) {
      if (!g.live[c]) continue;
      const f = fingerprint(g, lin, c);
      const list = byPrint.get(f);
      if (list) list.push(c);
      else byPrint.set(f, [c]);
    }
    for (const list of byPrint.values()) {
      if (list.length >= min) loops.push({ parent, name: g.steps[list[0]].name, occurrences: list });
    }
  }
  return loops.sort((a, b) => a.occurrences[0] - b.occurrences[0]);
}
