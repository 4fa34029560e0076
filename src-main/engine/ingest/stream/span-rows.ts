/**
 * The first pass's numbers of each span, by row (the order spans were read),
 * and a trace's ids by slot (its spans in file order). A file's traces share
 * one SpanRows, so a trace costs a few objects however small it is: columns
 * of its own made each one-span trace cost ~10 KB of heap and ~17 KB of
 * buffers, and a file of 100,000 one-span traces took 4 GB and 17 minutes.
 */
import { f64, i32, u8, type Column } from './typed-column';

export class SpanRows {
  readonly name = i32();
  readonly flags = u8();
  readonly start = f64();
  readonly end = f64();
  readonly line = i32();
  /** The span's place, as the trace's PlaceName reads it. */
  readonly at = [i32(), i32(), i32()] as const;
  /** Recorded parents: span ids packed in two 32-bit halves (0, 0 for none or one kept as text). */
  readonly parentHi = i32();
  readonly parentLo = i32();
  /** The span's own id, packed the same way (0, 0 for one kept as text). */
  readonly idHi = i32();
  readonly idLo = i32();
  /** Each row's model call (an index of the columns below), -1 for a step that is not one. */
  readonly callOf = i32();
  /** Model calls only, in the order they were read: both token counts and the digests of the call texts. */
  readonly inputTokens = f64();
  readonly outputTokens = f64();
  readonly inputDigest = f64();
  readonly outputDigest = f64();

  get length(): number {
    return this.name.length;
  }
}

/** A span id as OTLP/JSON writes it (otlp-values.ts's decodeId): 16 lowercase hex digits, not all zero. */
const PACKABLE_ID = /^[0-9a-f]{16}$/;
const ZERO_ID = '0000000000000000';

export function packable(id: string): boolean {
  return id.length === 16 && id !== ZERO_ID && PACKABLE_ID.test(id);
}

/** A packable id's two 32-bit halves (unpack's inverse). */
export function highHalf(id: string): number {
  return parseInt(id.slice(0, 8), 16) | 0;
}

export function lowHalf(id: string): number {
  return parseInt(id.slice(8), 16) | 0;
}

export function unpack(hi: number, lo: number): string {
  return (hi >>> 0).toString(16).padStart(8, '0') + (lo >>> 0).toString(16).padStart(8, '0');
}

/**
 * The ids of a trace's steps by slot, and the slot of each id's first copy: span ids as two 32-bit halves in
 * the rows' columns and an open-addressing table of slots (~20 bytes a span, none of it in V8's heap, where a
 * string and a Map entry cost ~75 bytes and raise the heap's growth limit), other ids (a Traceback export's own)
 * as text.
 */
export class IdSlots {
  /** Text ids by slot (holes for packed ids), made at the first. */
  private text: (string | undefined)[] | undefined;
  private textSlots: Map<string, number> | undefined;
  /**
   * Slot + 1 of each packed id's first copy, 0 for a free place. It starts small and doubles: a 16 KB table
   * for each of 100,000 one-span traces was 1.6 GB.
   */
  private table = new Int32Array(16);
  private packed = 0;
  count = 0;

  constructor(
    private readonly rows: SpanRows,
    /** The row of each slot. */
    private readonly rowOf: Column<Int32Array>,
  ) {}

  private hi(s: number): number {
    return this.rows.idHi.get(this.rowOf.get(s));
  }

  private lo(s: number): number {
    return this.rows.idLo.get(this.rowOf.get(s));
  }

  /** Adds the next slot's id (its row is already in `rowOf`); false when an earlier slot has the same id. */
  add(id: string): boolean {
    const s = this.count++;
    if (!packable(id)) {
      this.rows.idHi.push(0);
      this.rows.idLo.push(0);
      (this.text ??= [])[s] = id;
      this.textSlots ??= new Map();
      if (this.textSlots.has(id)) return false;
      this.textSlots.set(id, s);
      return true;
    }
    const hi = highHalf(id);
    const lo = lowHalf(id);
    this.rows.idHi.push(hi);
    this.rows.idLo.push(lo);
    if (this.findPacked(hi, lo) !== -1) return false;
    if ((this.packed + 1) * 2 > this.table.length) this.grow();
    this.place(s, hi, lo);
    this.packed += 1;
    return true;
  }

  /** The slot of a packed id's first copy, or -1 (slotOf without the text). */
  slotOfPacked(hi: number, lo: number): number {
    return this.findPacked(hi, lo);
  }

  /** The slot of an id's first copy, or -1. */
  slotOf(id: string): number {
    if (!packable(id)) return this.textSlots?.get(id) ?? -1;
    return this.findPacked(highHalf(id), lowHalf(id));
  }

  idOf(s: number): string {
    return this.text?.[s] ?? unpack(this.hi(s), this.lo(s));
  }

  private static hash(hi: number, lo: number): number {
    let h = Math.imul(hi ^ Math.imul(lo, 0x85ebca6b), 0xc2b2ae35);
    h ^= h >>> 15;
    return Math.imul(h, 0x27d4eb2f) ^ (h >>> 13);
  }

  private findPacked(hi: number, lo: number): number {
    const mask = this.table.length - 1;
    for (let i = IdSlots.hash(hi, lo) & mask; this.table[i] !== 0; i = (i + 1) & mask) {
      const s = this.table[i] - 1;
      if (this.hi(s) === hi && this.lo(s) === lo && this.text?.[s] === undefined) return s;
    }
    return -1;
  }

  private place(s: number, hi: number, lo: number): void {
    const mask = this.table.length - 1;
    let i = IdSlots.hash(hi, lo) & mask;
    while (this.table[i] !== 0) i = (i + 1) & mask;
    this.table[i] = s + 1;
  }

  private grow(): void {
    const old = this.table;
    this.table = new Int32Array(old.length * 2);
    for (const entry of old) if (entry !== 0) this.place(entry - 1, this.hi(entry - 1), this.lo(entry - 1));
  }
}
