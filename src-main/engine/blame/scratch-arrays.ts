/**
 * Int32Arrays reused from one blame to the next. A 100,000-step blame made
 * 20–27 MB of typed arrays (lineage's value and shingle tables, loop counts);
 * V8 counts them as external memory and answered with a full collection
 * (~115 ms) in about 2 of 5 such blames. The hash tables that live no longer
 * than a blame take their cells here: inside `withScratch` an array comes from
 * the arrays the last blame gave back (zeroed), and all go back when it ends.
 * Outside it (a table built on its own, in a test) arrays are allocated as usual.
 */

/** Arrays kept between blames: at most this many Int32 cells in all (64 MB). */
const KEEP_CELLS = 16 * 1024 * 1024;

const free = new Map<number, Int32Array[]>();
let freeCells = 0;
/** Arrays taken in the blame under way (null: no blame under way). */
let taken: Int32Array[] | null = null;

/** A zeroed Int32Array of `length` cells: reused inside a blame, new outside one. */
export function int32Cells(length: number): Int32Array {
  if (taken === null) return new Int32Array(length);
  const list = free.get(length);
  const reused = list?.pop();
  let cells: Int32Array;
  if (reused) {
    freeCells -= length;
    reused.fill(0);
    cells = reused;
  } else cells = new Int32Array(length);
  taken.push(cells);
  return cells;
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
      if (freeCells + cells.length > KEEP_CELLS) continue;
      let list = free.get(cells.length);
      if (!list) free.set(cells.length, (list = []));
      list.push(cells);
      freeCells += cells.length;
    }
  }
}
