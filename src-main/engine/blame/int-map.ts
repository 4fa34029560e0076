/**
 * A hash map from non-negative 30-bit integers (keys below 2^31 - 1) to integers, open addressing
 * on typed arrays. The lineage index inserts a few hundred thousand value and
 * shingle hashes per large run; a JS Map spends most of that time in
 * allocation and garbage collection, this spends none.
 */
// Slots hold key + 1, so that a fresh (zeroed) array is an empty table: no fill needed.
const EMPTY = 0;

export class IntMap {
  private keys: Int32Array;
  private vals: Int32Array;
  private mask: number;
  private count = 0;

  constructor(expected = 1024) {
    let cap = 1024;
    while (cap < expected * 2) cap *= 2;
    this.keys = new Int32Array(cap);
    this.vals = new Int32Array(cap);
    this.mask = cap - 1;
  }

  get size(): number {
    return this.count;
  }

  private slot(stored: number): number {
    // Fibonacci hashing spreads keys that differ only in low bits.
    let i = (Math.imul(stored, 0x9e3779b1) >>> 7) & this.mask;
    const keys = this.keys;
    while (keys[i] !== EMPTY && keys[i] !== stored) i = (i + 1) & this.mask;
    return i;
  }

  /** The value for `key`, or `missing`. */
  get(key: number, missing: number): number {
    const i = this.slot(key + 1);
    return this.keys[i] === key + 1 ? this.vals[i] : missing;
  }

  has(key: number): boolean {
    return this.keys[this.slot(key + 1)] === key + 1;
  }

  set(key: number, value: number): void {
    const stored = key + 1;
    let i = this.slot(stored);
    if (this.keys[i] !== stored) {
      if ((this.count + 1) * 2 > this.keys.length) {
        this.grow();
        i = this.slot(stored);
      }
      this.keys[i] = stored;
      this.count++;
    }
    this.vals[i] = value;
  }

  /** Sets only when absent. */
  setIfAbsent(key: number, value: number): void {
    if (!this.has(key)) this.set(key, value);
  }

  private grow(): void {
    const oldKeys = this.keys;
    const oldVals = this.vals;
    this.keys = new Int32Array(oldKeys.length * 2);
    this.vals = new Int32Array(oldKeys.length * 2);
    this.mask = this.keys.length - 1;
    this.count = 0;
    for (let j = 0; j < oldKeys.length; j++) if (oldKeys[j] !== EMPTY) this.set(oldKeys[j] - 1, oldVals[j]);
  }
}
