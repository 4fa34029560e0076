/**
 * Lineage's index of value hashes: for each 30-bit value hash, the latest step whose output held it, the first
 * step whose input or output held it, and whether a tool or retrieval step looked it up. One open-addressing
 * table with the three facts side by side, instead of three hash maps: on a 100,000-step run the tables are
 * megabytes probed at random, and each probe is a cache miss (profiled: ~15% of a 100k-step blame, growing
 * faster than the run), so one probe per value instead of three keeps the lineage pass near linear.
 */

/** Cells per slot: key + 1 (0 = empty), latest producer, first position seen, looked-up flag. 16 bytes, so a slot never straddles a cache line. */
import { int32Cells } from './scratch-arrays';
const CELLS = 4;
const EMPTY = 0;

export class ValueIndex {
  private cells: Int32Array;
  private mask: number;
  private count = 0;

  /** `missing` fills the producer and first-seen cells of a new key (lineage's NOT_SEEN). */
  constructor(
    expected: number,
    private readonly missing: number,
  ) {
    let cap = 1024;
    while (cap < expected * 2) cap *= 2;
    this.cells = int32Cells(cap * CELLS);
    this.mask = cap - 1;
  }

  /** The slot holding `stored` (key + 1), or the empty slot where it would go. */
  private probe(stored: number): number {
    const cells = this.cells;
    // Fibonacci hashing spreads keys that differ only in low bits (as IntMap).
    let i = (Math.imul(stored, 0x9e3779b1) >>> 7) & this.mask;
    while (cells[i * CELLS] !== EMPTY && cells[i * CELLS] !== stored) i = (i + 1) & this.mask;
    return i;
  }

  /** Index of the first cell of `key`'s slot, or -1. */
  private find(key: number): number {
    const at = this.probe(key + 1) * CELLS;
    return this.cells[at] === key + 1 ? at : -1;
  }

  /** Index of the first cell of `key`'s slot, made (with `missing` facts) if absent. Valid until the next insert. */
  insert(key: number): number {
    const stored = key + 1;
    let i = this.probe(stored);
    if (this.cells[i * CELLS] === stored) return i * CELLS;
    if ((this.count + 1) * 2 > this.mask + 1) {
      this.grow();
      i = this.probe(stored);
    }
    const cells = this.cells;
    const at = i * CELLS;
    cells[at] = stored;
    cells[at + 1] = this.missing;
    cells[at + 2] = this.missing;
    this.count++;
    return at;
  }

  /** The latest producer of `key` (cell 1), or `missing`. */
  latest(key: number): number {
    const at = this.find(key);
    return at < 0 ? this.missing : this.cells[at + 1];
  }

  setLatest(at: number, p: number): void {
    this.cells[at + 1] = p;
  }

  latestAt(at: number): number {
    return this.cells[at + 1];
  }

  /** Records `p` as the first position to hold the value unless one is recorded. */
  seen(at: number, p: number): void {
    if (this.cells[at + 2] === this.missing) this.cells[at + 2] = p;
  }

  setFirst(at: number, p: number): void {
    this.cells[at + 2] = p;
  }

  markLookedUp(at: number): void {
    this.cells[at + 3] = 1;
  }

  /** The first position to hold `key`, or `missing`. */
  firstSeen(key: number): number {
    const at = this.find(key);
    return at < 0 ? this.missing : this.cells[at + 2];
  }

  lookedUp(key: number): boolean {
    const at = this.find(key);
    return at >= 0 && this.cells[at + 3] === 1;
  }

  private grow(): void {
    const old = this.cells;
    const cap = (this.mask + 1) * 2;
    const cells = int32Cells(cap * CELLS);
    const mask = cap - 1;
    for (let j = 0; j < old.length; j += CELLS) {
      const stored = old[j];
      if (stored === EMPTY) continue;
      let i = (Math.imul(stored, 0x9e3779b1) >>> 7) & mask;
      while (cells[i * CELLS] !== EMPTY) i = (i + 1) & mask;
      cells.set(old.subarray(j, j + CELLS), i * CELLS);
    }
    this.cells = cells;
    this.mask = mask;
  }
}
