/**
 * A column of numbers filled in order, in typed arrays outside V8's heap: a
 * streamed import keeps a few numbers per span or run in these instead of JS
 * arrays (8 bytes a value and a copy at each doubling, all of it in the heap).
 *
 * The first chunk starts small and doubles up to CHUNK; the others are CHUNK
 * values each, so a column of a million values is never copied as it grows.
 * Starting small matters: the LangChain import opens a TraceColumns (21
 * columns) for each trace, and full first chunks made ~5 MB of buffers a trace,
 * 100+ MB of buffers awaiting collection at a time on an 83-run-a-trace file.
 * A first chunk of at most 64 bytes is kept inside V8's heap, with no buffer
 * of its own to track.
 */

/** Values per chunk once a column is past its first. */
const CHUNK = 65536;
const CHUNK_BITS = 16;
/** Values of a column's first allocation. */
const FIRST_CHUNK = 8;

export type Typed = Float64Array | Int32Array | Uint8Array;

export class Column<T extends Typed> {
  private chunks: T[] = [];
  length = 0;
  constructor(private readonly make: (n: number) => T) {}

  push(v: number): void {
    const at = this.length & (CHUNK - 1);
    const chunk = this.length >>> CHUNK_BITS;
    if (chunk === this.chunks.length) this.chunks.push(this.make(chunk === 0 ? FIRST_CHUNK : CHUNK));
    else if (chunk === 0 && at === this.chunks[0].length) {
      // The first chunk is full but not yet CHUNK long: double it.
      const bigger = this.make(Math.min(CHUNK, at * 2));
      bigger.set(this.chunks[0]);
      this.chunks[0] = bigger;
    }
    this.chunks[chunk][at] = v;
    this.length += 1;
  }

  get(i: number): number {
    return this.chunks[i >>> CHUNK_BITS][i & (CHUNK - 1)];
  }

  /** Every value, in one array, the column kept. */
  copy(): T {
    const out = this.make(this.length);
    this.chunks.forEach((chunk, i) => out.set(chunk.subarray(0, Math.min(CHUNK, this.length - i * CHUNK)), i * CHUNK));
    return out;
  }

  /** The values at `indices`, in that order, in one array (the column kept). */
  pick(indices: Int32Array): T {
    const out = this.make(indices.length);
    for (let i = 0; i < indices.length; i++) out[i] = this.get(indices[i]);
    return out;
  }

  /** Every value, in one array; the chunks are let go one by one as they are copied. */
  take(): T {
    const out = this.make(this.length);
    for (let from = 0; this.chunks.length; from += CHUNK) out.set(this.chunks.shift()!.subarray(0, Math.min(CHUNK, this.length - from)), from);
    return out;
  }
}

export const f64 = () => new Column((n) => new Float64Array(n));
export const i32 = () => new Column((n) => new Int32Array(n));
export const u8 = () => new Column((n) => new Uint8Array(n));
