/**
 * A hash map from non-negative 30-bit integers (keys below 2^31 - 1) to integers, open addressing
 * on typed arrays. The lineage index inserts a few hundred thousand value and
 * shingle hashes per large run; a JS Map spends most of that time in
 * allocation and garbage collection, this spends none.
 */
import { int32Cells } from './scratch-arrays';
// Slots hold key + 1, so that a fresh (zeroed) array is an empty table: no fill needed.
const EMPTY = 0;

// Key and value share one array (key at 2i, value at 2i + 1): a lookup touches one cache line, not two.
export class IntMap {
  private cells: Int32Array;
  private mask: number;
  private count = 0;

  constructor(expected = 1024) {
    let cap = 1024;
    while (cap < expected * 2) cap *= 2;
    this.cells = int32Cells(cap * 2);
    this.mask = cap - 1;
  }

  get size(): number {
    return this.count;
  }

  /** Index of the key cell for `stored` (key + 1): where it is, or the empty cell where it would go. */
  private slot(stored: number): number {
    // Fibonacci hashing spreads keys that differ only in low bits.
    let i = (Math.imul(stored, 0x9e3779b1) >>> 7) & this.mask;
    const cells = this.cells;
    while (cells[i << 1] !== EMPTY && cells[i << 1] !== stored) i = (i + 1) & this.mask;
    return i << 1;
  }

  /** The value for `key`, or `missing`. */
  get(key: number, missing: number): number {
    const i = this.slot(key + 1);
    return this.cells[i] === key + 1 ? this.cells[i + 1] : missing;
  }

  has(key: number): boolean {
    return this.cells[this.slot(key + 1)] === key + 1;
  }

  set(key: number, value: number): void {
    this.cells[this.claim(key) + 1] = value;
  }

  /** Adds `delta` to the value of `key` (0 when absent) in one probe; returns the new value. */
  add(key: number, delta: number): number {
    return (this.cells[this.claim(key) + 1] += delta);
  }

  /** The cell of `key`, taken (value 0) when absent, growing the table first if it would be over half full. */
  private claim(key: number): number {
    const stored = key + 1;
    let i = this.slot(stored);
    if (this.cells[i] !== stored) {
      if ((this.count + 1) * 2 > this.mask + 1) {
        this.grow();
        i = this.slot(stored);
      }
      this.cells[i] = stored;
      this.cells[i + 1] = 0;
      this.count++;
    }
    return i;
  }

  private grow(): void {
    const old = this.cells;
    this.cells = int32Cells(old.length * 2);
    this.mask = (this.mask << 1) | 1;
    this.count = 0;
    for (let j = 0; j < old.length; j += 2) if (old[j] !== EMPTY) this.set(old[j] - 1, old[j + 1]);
  }
}
