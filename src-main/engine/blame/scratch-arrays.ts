/**
 * Typed arrays reused from one blame to the next. A 100,000-step blame made
 * 20–27 MB of typed arrays (lineage's value and shingle tables, loop counts);
 * V8 counts them as external memory and answered with a full collection
 * (~115 ms) in about 2 of 5 such blames. The hash tables and per-step arrays
 * that live no longer than a blame take their cells here: inside `withScratch`
 * an array comes from the arrays the last blame gave back (zeroed), and all go
 * back when it ends. Outside it (a table built on its own, in a test) arrays
 * are allocated as usual.
 *
 * New arrays of a large run's length are also fresh memory: at 100,000 steps
 * the per-step arrays of the graph, the lineage and the loops (0.4–0.8 MB
 * each) cost ~1,500 page faults per blame (process.resourceUsage), ~13 µs
 * each on this machine, where a reused array costs a fill.
 */

/** Arrays kept between blames: at most this many bytes in all (64 MB). */
const KEEP_BYTES = 64 * 1024 * 1024;

type Cells = Int32Array | Float64Array;

const freeInt32 = new Map<number, Int32Array[]>();
const freeFloat64 = new Map<number, Float64Array[]>();
let freeBytes = 0;
/** Arrays taken in the blame under way (null: no blame under way). */
let taken: Cells[] | null = null;

function reuse<T extends Cells>(free: Map<number, T[]>, length: number, make: (n: number) => T): T {
  if (taken === null) return make(length);
  const reused = free.get(length)?.pop();
  let cells: T;
  if (reused) {
    freeBytes -= reused.byteLength;
    reused.fill(0);
    cells = reused;
  } else cells = make(length);
  taken.push(cells);
  return cells;
}

/** A zeroed Int32Array of `length` cells: reused inside a blame, new outside one. */
export function int32Cells(length: number): Int32Array {
  return reuse(freeInt32, length, (n) => new Int32Array(n));
}

/** A zeroed Float64Array of `length` cells: reused inside a blame, new outside one. */
export function float64Cells(length: number): Float64Array {
  return reuse(freeFloat64, length, (n) => new Float64Array(n));
}

/** Runs `work` with the tables it makes taking their cells from the arrays of earlier blames; gives them all back after. */
export function withScratch<T>(work: () => T): T {
  // A blame inside a blame (none today) allocates as usual: the outer one owns the arrays.
  if (taken !== null) return work();
  taken = [];
  try {
    return work();
  } finally {
    const done = taken;
    taken = null;
    for (const cells of done) {
      if (freeBytes + cells.byteLength > KEEP_BYTES) continue;
      const free: Map<number, Cells[]> = cells instanceof Int32Array ? freeInt32 : freeFloat64;
      let list = free.get(cells.length);
      if (!list) free.set(cells.length, (list = []));
      list.push(cells);
      freeBytes += cells.byteLength;
    }
  }
}
