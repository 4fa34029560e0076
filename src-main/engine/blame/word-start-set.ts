/**
 * The first words of short outputs (lineage looks for those phrases inside longer inputs): a set of word hashes
 * asked about for every word of every text the lineage pass scans. A bit per hash in a table small enough to stay
 * in cache answers most "no"s; only a set bit goes on to the exact hash table. On a 100,000-step run the exact
 * table alone held ~48,000 words in 1 MB probed at random ~750,000 times, which grew faster than the run.
 */
import { IntMap } from './int-map';

export class WordStartSet {
  private readonly bits: Int32Array;
  private readonly bitMask: number;
  private readonly exact: IntMap;

  /** `steps`: the run's length, which bounds how many words can be added (about one per step). */
  constructor(steps: number) {
    // Sized for half the steps (the synthetic runs add ~0.48 per step): grown from 64, the table of a
    // 100,000-step run was rehashed 7 times, the 10,000-step one 4 times.
    this.exact = new IntMap(steps >>> 1);
    // About 8 bits per possible word, 4,096 to 2 million bits (256 KB): few false "maybe"s, still cache-sized.
    let nbits = 4096;
    while (nbits < steps * 8 && nbits < 1 << 21) nbits *= 2;
    this.bits = new Int32Array(nbits >>> 5);
    this.bitMask = nbits - 1;
  }

  get size(): number {
    return this.exact.size;
  }

  private bit(word: number): number {
    return (Math.imul(word, 0x9e3779b1) >>> 11) & this.bitMask;
  }

  add(word: number): void {
    const b = this.bit(word);
    this.bits[b >>> 5] |= 1 << (b & 31);
    this.exact.set(word, 1);
  }

  has(word: number): boolean {
    const b = this.bit(word);
    return (this.bits[b >>> 5] & (1 << (b & 31))) !== 0 && this.exact.has(word);
  }
}
