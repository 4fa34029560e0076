/**
 * The texts of runs read before their turn (rank-rounds.ts), kept as UTF-8
 * bytes outside V8's heap until their turn comes, then parsed and mapped.
 * LangChain JS writes a run after its children, so nearly every run of a
 * tree waits for its root. Held as mapped steps (the parsed run, its
 * attributes and simplified messages, ~5× its text), they were alive at
 * almost every scavenge and promoted: half of what reached old space in the
 * index and write passes (188 → 99 MB promoted on a 50 MB file), and old
 * space grows to a multiple of what is promoted before V8 collects it.
 *
 * A text goes in as the walk decoded it from the file (UTF-8, so it holds no
 * lone surrogate) and comes back the same.
 */
/** Bytes of the first buffer; it doubles (or is compacted) when full. */
const FIRST_BYTES = 64 * 1024;
/** A buffer grown past this is let go once nothing is held (a round of a nested tree can hold its budget). */
const KEPT_BYTES = 4 * 1024 * 1024;

export class HeldRunTexts {
  private bytes = Buffer.allocUnsafe(FIRST_BYTES);
  private top = 0;
  /** Per handle: where its bytes start and how many there are (-1 when it holds nothing). */
  private start = new Float64Array(64);
  private length = new Int32Array(64).fill(-1);
  /** Handles made; each is a number below it. */
  private handles = 0;
  /** Handles whose texts were taken, to be given again. */
  private readonly free: number[] = [];
  private heldBytes = 0;
  private heldCount = 0;

  /** Keeps `text`; the handle gives it back once. */
  hold(text: string): number {
    const need = Buffer.byteLength(text, 'utf8');
    if (this.top + need > this.bytes.length) this.makeRoom(need);
    const handle = this.free.pop() ?? this.newHandle();
    this.bytes.write(text, this.top, 'utf8');
    this.start[handle] = this.top;
    this.length[handle] = need;
    this.top += need;
    this.heldBytes += need;
    this.heldCount += 1;
    return handle;
  }

  /** The text held under `handle`, let go. */
  take(handle: number): string {
    const at = this.start[handle];
    const n = this.length[handle];
    const text = this.bytes.toString('utf8', at, at + n);
    this.length[handle] = -1;
    this.free.push(handle);
    this.heldBytes -= n;
    this.heldCount -= 1;
    // Nothing held: the next text starts at the buffer's start again.
    if (this.heldCount === 0) {
      this.top = 0;
      if (this.bytes.length > KEPT_BYTES) this.bytes = Buffer.allocUnsafe(FIRST_BYTES);
    }
    return text;
  }

  /** Bytes of the texts held now. */
  get held(): number {
    return this.heldBytes;
  }

  private newHandle(): number {
    if (this.handles === this.length.length) {
      const start = new Float64Array(this.handles * 2);
      start.set(this.start);
      this.start = start;
      const length = new Int32Array(this.handles * 2).fill(-1);
      length.set(this.length);
      this.length = length;
    }
    return this.handles++;
  }

  /** Room for `need` more bytes: the held texts are moved to the start of a buffer at least twice their size. */
  private makeRoom(need: number): void {
    const size = Math.max(FIRST_BYTES, 2 * (this.heldBytes + need));
    const next = size <= this.bytes.length ? this.bytes : Buffer.allocUnsafe(size);
    // Within the same buffer, moving texts down in start order never overwrites one not yet moved.
    const live: number[] = [];
    for (let h = 0; h < this.handles; h++) if (this.length[h] >= 0) live.push(h);
    live.sort((a, b) => this.start[a] - this.start[b]);
    let top = 0;
    for (const h of live) {
      const at = this.start[h];
      const n = this.length[h];
      this.bytes.copy(next, top, at, at + n);
      this.start[h] = top;
      top += n;
    }
    this.bytes = next;
    this.top = top;
  }
}
