/**
 * Strings kept as numbers, their text outside V8's heap. A streamed import
 * keeps a few strings for every run of the file until it ends (ids, parent
 * ids, trace ids, LangChain's dotted orders): as JS strings, with the Maps that
 * look them up, they took ~0.5 KB a run of heap (a 500 MB file: ~235 MB live,
 * and V8 lets the heap grow to a multiple of what is live before collecting).
 * Here a string is its bytes in chunked buffers (Latin-1 when every character
 * fits, else UTF-16, so any string, lone surrogates too, comes back the same)
 * and ~20 bytes of typed columns and hash table.
 *
 * `intern` gives equal strings one number; `add` stores a string without
 * looking for an equal one (text only read back).
 */
import { i32, type Column } from './typed-column';

/** Bytes per buffer; a longer string gets a buffer of its own. */
const CHUNK_BYTES = 1024 * 1024;
/** Any character past Latin-1: the string is stored as UTF-16. */
const WIDE = /[\u0100-\uffff]/;

export class TextArena {
  private readonly chunks: Buffer[] = [];
  private used = CHUNK_BYTES;
  /** Per string: its buffer, offset in it and byte length (negative when UTF-16), and hash (interned ones). */
  private readonly chunkOf: Column<Int32Array> = i32();
  private readonly offset: Column<Int32Array> = i32();
  private readonly bytes: Column<Int32Array> = i32();
  private readonly hashes: Column<Int32Array> = i32();
  /** Open addressing: number + 1 of an interned string, 0 for a free place. */
  private table = new Int32Array(1 << 10);
  private interned = 0;
  private scratch = Buffer.allocUnsafe(256);

  /** Strings stored. */
  get count(): number {
    return this.offset.length;
  }

  /** The number of `s`, the same for every equal string interned. */
  intern(s: string): number {
    const n = this.encode(s);
    const hash = hashBytes(this.scratch, n.length) ^ (n.wide ? 0x5bd1e995 : 0);
    const mask = this.table.length - 1;
    let i = hash & mask;
    for (; this.table[i] !== 0; i = (i + 1) & mask) {
      const k = this.table[i] - 1;
      if (this.hashes.get(k) === hash && this.bytes.get(k) === (n.wide ? -n.length : n.length) && this.sameBytes(k, n.length)) return k;
    }
    const k = this.store(n.length, n.wide, hash);
    this.table[i] = k + 1;
    if (++this.interned * 2 > this.table.length) this.grow();
    return k;
  }

  /** Stores `s` as a new number, without looking for an equal string. */
  add(s: string): number {
    const n = this.encode(s);
    return this.store(n.length, n.wide, 0);
  }

  /** The string numbered `k`. */
  text(k: number): string {
    const b = this.bytes.get(k);
    const chunk = this.chunks[this.chunkOf.get(k)];
    const at = this.offset.get(k);
    return b >= 0 ? chunk.toString('latin1', at, at + b) : chunk.toString('utf16le', at, at - b);
  }

  private encode(s: string): { length: number; wide: boolean } {
    const wide = WIDE.test(s);
    const need = wide ? s.length * 2 : s.length;
    if (need > this.scratch.length) this.scratch = Buffer.allocUnsafe(Math.max(need, this.scratch.length * 2));
    const length = this.scratch.write(s, 0, wide ? 'utf16le' : 'latin1');
    return { length, wide };
  }

  private sameBytes(k: number, length: number): boolean {
    const at = this.offset.get(k);
    return this.chunks[this.chunkOf.get(k)].compare(this.scratch, 0, length, at, at + length) === 0;
  }

  /** The scratch buffer's first `length` bytes as the next string. */
  private store(length: number, wide: boolean, hash: number): number {
    if (this.used + length > CHUNK_BYTES || !this.chunks.length) {
      this.chunks.push(Buffer.allocUnsafe(Math.max(CHUNK_BYTES, length)));
      this.used = 0;
    }
    const k = this.count;
    this.scratch.copy(this.chunks[this.chunks.length - 1], this.used, 0, length);
    this.chunkOf.push(this.chunks.length - 1);
    this.offset.push(this.used);
    this.bytes.push(wide ? -length : length);
    this.hashes.push(hash);
    this.used += length;
    return k;
  }

  private grow(): void {
    const old = this.table;
    this.table = new Int32Array(old.length * 2);
    const mask = this.table.length - 1;
    for (const entry of old) {
      if (entry === 0) continue;
      let i = this.hashes.get(entry - 1) & mask;
      while (this.table[i] !== 0) i = (i + 1) & mask;
      this.table[i] = entry;
    }
  }
}

/** FNV-1a over bytes, as a non-negative 31-bit number. */
function hashBytes(b: Buffer, length: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < length; i++) h = Math.imul(h ^ b[i], 16777619);
  return (h ^ (h >>> 15)) & 0x7fffffff;
}
