/**
 * A map from strings (tool-call ids) to positions, open addressing on typed arrays keyed by a 30-bit hash of the
 * string, with the strings kept in one array to confirm a match (so a hash collision never links the wrong call).
 * Lineage records every call id an LLM issued; on a 100,000-step run a JS Map of ~33,000 string keys took ~40 ms
 * (its growth and garbage; profiled), ×20 the 10,000-step cost, this takes a few.
 *
 * Sized up front from the expected count: grown from 1,024 slots, the table of a 100,000-step run was rehashed
 * 6 times (3 at 10,000 steps), each rehash a pass of cache misses over the whole table, and its set() was ×27 the
 * 10k cost in a CPU profile. Slots and values come from the scratch arrays (scratch-arrays.ts).
 */
import { int32Cells } from './scratch-arrays';
import { hashKey } from './value-features';

const EMPTY = 0;

export class StringIndex {
  /** Per slot: hash + 1 (0 = empty), entry number. */
  private slots: Int32Array;
  private mask: number;
  /**
   * Entry i: keys[i] → values[i], for i < count. Made at the size the values have and grown with them: grown by
   * push from empty, the keys of a 100,000-step run were copied 4 times into new arrays of 120–410 KB, each made
   * in the old generation (a large object), ~1 MB per blame that only a full collection frees.
   */
  private keys: string[];
  private count = 0;
  private values: Int32Array;

  /** `expected`: about how many keys will be set (more is fine: the table grows). */
  constructor(expected = 1024) {
    let cap = 1024;
    while (cap < expected * 2) cap *= 2;
    this.slots = int32Cells(cap * 2);
    this.mask = cap - 1;
    this.values = int32Cells(cap >>> 1);
    this.keys = new Array<string>(cap >>> 1);
  }

  /** Slot index (×2) holding `key`, or the empty slot where it would go. */
  private slot(key: string, stored: number): number {
    const slots = this.slots;
    let i = (Math.imul(stored, 0x9e3779b1) >>> 7) & this.mask;
    for (;;) {
      const s = slots[i << 1];
      if (s === EMPTY || (s === stored && this.keys[slots[(i << 1) + 1]] === key)) return i << 1;
      i = (i + 1) & this.mask;
    }
  }

  get(key: string, missing: number): number {
    const at = this.slot(key, hashKey(key) + 1);
    return this.slots[at] === EMPTY ? missing : this.values[this.slots[at + 1]];
  }

  set(key: string, value: number): void {
    const stored = hashKey(key) + 1;
    let at = this.slot(key, stored);
    if (this.slots[at] !== EMPTY) {
      this.values[this.slots[at + 1]] = value;
      return;
    }
    const entry = this.count;
    if ((entry + 1) * 2 > this.mask + 1) {
      this.grow();
      at = this.slot(key, stored);
    }
    this.slots[at] = stored;
    this.slots[at + 1] = entry;
    this.keys[entry] = key;
    this.count++;
    this.values[entry] = value;
  }

  private grow(): void {
    const old = this.slots;
    const mask = (this.mask << 1) | 1;
    const slots = int32Cells((mask + 1) * 2);
    // Entries keep their numbers; at most half the slots are used, so half as many value cells suffice.
    const values = int32Cells((mask + 1) >>> 1);
    values.set(this.values);
    this.values = values;
    const keys = new Array<string>(values.length);
    for (let i = 0; i < this.count; i++) keys[i] = this.keys[i];
    this.keys = keys;
    for (let j = 0; j < old.length; j += 2) {
      if (old[j] === EMPTY) continue;
      let i = (Math.imul(old[j], 0x9e3779b1) >>> 7) & mask;
      while (slots[i << 1] !== EMPTY) i = (i + 1) & mask;
      slots[i << 1] = old[j];
      slots[(i << 1) + 1] = old[j + 1];
    }
    this.slots = slots;
    this.mask = mask;
  }
}
