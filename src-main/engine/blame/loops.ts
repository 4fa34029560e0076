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
import { int32Cells } from './scratch-arrays';
import { hashKey } from './value-features';
import { T_LLM } from './step-codes';

export interface LoopInfo {
  parent: number;
  name: string;
  /** Positions of the repeated steps, first occurrence first. */
  occurrences: number[];
}


/** Groups of at least this many steps go through repeatSieve first. */
const SIEVE_FROM = 4096;

/**
 * Which fingerprints may occur more than once: two bit tables (seen, seen again) indexed by a hash of the
 * fingerprint. One that occurs twice always has its "again" bit set; one that occurs once has it only when
 * another fingerprint shares its bit (2% of the synthetic 10k-step run's, 4.6% of the 100k one's), so counting
 * exactly only those with the bit set gives the same counts for every fingerprint that repeats. Why: a
 * 100,000-step agent loop has ~100,000 distinct fingerprints, and counting them all took a 2 MB hash table
 * probed at random (a cache miss each; findLoops grew ×19–26 from 10k to 100k steps); the bit tables are
 * 256 kB each and stay in cache: 15.1 → 7.3 ms CPU (minimum of 40, alternating) at 100k, 10k unchanged.
 */
function repeatSieve(prints: Int32Array): { again(f: number): boolean; count: number } {
  let nbits = 1 << 16;
  while (nbits < prints.length * 32 && nbits < 1 << 21) nbits *= 2;
  const mask = nbits - 1;
  const seen = int32Cells(nbits >>> 5);
  const twice = int32Cells(nbits >>> 5);
  const bit = (f: number): number => (Math.imul(f, 0x9e3779b1) >>> 7) & mask;
  let count = 0;
  for (let i = 0; i < prints.length; i++) {
    if (prints[i] < 0) continue;
    const b = bit(prints[i]);
    const m = 1 << (b & 31);
    if ((seen[b >>> 5] & m) === 0) seen[b >>> 5] |= m;
    else if ((twice[b >>> 5] & m) === 0) {
      twice[b >>> 5] |= m;
      count++;
    }
  }
  return { again: (f) => (twice[bit(f) >>> 5] & (1 << (bit(f) & 31))) !== 0, count: count * 2 };
}

export function findLoops(g: RunGraph, lin: Lineage, settings: Settings): LoopInfo[] {
  const min = settings.blame.loop_min_repeats;
  const loops: LoopInfo[] = [];
  const groups: [number, ArrayLike<number>][] = [[-1, g.roots]];
  for (let p = 0; p < g.steps.length; p++) if (g.children.count(p) >= min) groups.push([p, g.children.view(p)]);
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
    const prints = int32Cells(kids.length);
    for (let i = 0; i < kids.length; i++) {
      const c = kids[i];
      prints[i] = g.live[c] ? (Math.imul(nameHash(c), 31) + (g.types[c] === T_LLM ? lin.outHash[c] : lin.inHash[c])) & 0x3fffffff : -1;
    }
    const maybe = kids.length >= SIEVE_FROM && min >= 2 ? repeatSieve(prints) : null;
    const counts = new IntMap(maybe ? maybe.count : kids.length);
    for (let i = 0; i < kids.length; i++) if (prints[i] >= 0 && (maybe === null || maybe.again(prints[i]))) counts.add(prints[i], 1);
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
