/**
 * Runs in their planned order from a file that hands them out in another.
 * The planner (stream/columnar-run-plan.ts) takes each trace's steps in the
 * order the whole-document parser lists them (by start, then LangChain's own
 * order), and its second pass must see them in that same order; the walk
 * hands a run out when its object closes, after all its children (LangChain
 * JS writes outputs and end_time after child_runs). So each pass over the
 * file is done in rounds: before a round, a dry run on the first pass's
 * numbers (order handed out, trace, rank, bytes) picks the runs that this
 * round can give in order while the runs waiting for an earlier one fit in
 * the budget; the round parses only those, holds the early ones, and gives
 * each as soon as its turn comes. A file listed in order (a flat export
 * sorted by start) takes one round; a nested tree takes about one round per
 * budget of its size.
 */

/** What the first pass learned of each run, by opening number. */
export interface RunOrder {
  /** Opening numbers in the order the walk hands the objects out. */
  handedOut: Int32Array;
  /** Trace number of each step, -1 for what is not a step. */
  trace: Int32Array;
  /** Place of each step in its trace's planned order. */
  rank: Int32Array;
  /** Bytes of each object without its children (what holding it costs, roughly). */
  bytes: Int32Array;
  /** Steps per trace. */
  traceSizes: number[];
}

/** A max-heap of waiting runs by how far they are from their turn (computed when they arrived; only grows stale downwards). */
class FarthestFirst {
  private readonly items: { n: number; far: number }[] = [];
  get size(): number {
    return this.items.length;
  }
  push(n: number, far: number): void {
    const a = this.items;
    a.push({ n, far });
    for (let i = a.length - 1; i > 0; ) {
      const p = (i - 1) >> 1;
      if (a[p].far >= a[i].far) break;
      [a[p], a[i]] = [a[i], a[p]];
      i = p;
    }
  }
  pop(): number {
    const a = this.items;
    const top = a[0];
    const last = a.pop()!;
    if (a.length) {
      a[0] = last;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && a[l].far > a[m].far) m = l;
        if (r < a.length && a[r].far > a[m].far) m = r;
        if (m === i) break;
        [a[m], a[i]] = [a[i], a[m]];
        i = m;
      }
    }
    return top.n;
  }
}

/** One number for a trace and a rank (both below 2^31). */
function key(t: number, k: number): number {
  return t * 4294967296 + k;
}

export class RankRounds {
  /** Next rank to give, per trace. */
  private readonly next: Int32Array;
  /** The runs this round gives (1), by opening number. */
  private chosen: Uint8Array;
  private remaining: number;
  rounds = 0;

  constructor(
    private readonly order: RunOrder,
    private readonly budgetBytes: number,
  ) {
    this.next = new Int32Array(order.traceSizes.length);
    this.chosen = new Uint8Array(order.trace.length);
    this.remaining = order.traceSizes.reduce((a, b) => a + b, 0);
  }

  /** Whether every step was given. */
  get done(): boolean {
    return this.remaining === 0;
  }

  /** Share of the steps given so far (0 to 1): how far the pass is, whatever its rounds. */
  get share(): number {
    const total = this.order.traceSizes.reduce((a, b) => a + b, 0);
    return total === 0 ? 1 : 1 - this.remaining / total;
  }

  /** Picks the runs of the next round (a dry run of `give` on sizes); at least one per unfinished trace. */
  planRound(): void {
    const { handedOut, trace, rank, bytes } = this.order;
    const next = Int32Array.from(this.next);
    const chosen = new Uint8Array(trace.length);
    const waiting = new Map<number, number>();
    const heap = new FarthestFirst();
    let held = 0;
    for (let i = 0; i < handedOut.length; i++) {
      const n = handedOut[i];
      const t = trace[n];
      if (t < 0) continue;
      const k = rank[n];
      if (k < next[t]) continue;
      if (k === next[t]) {
        chosen[n] = 1;
        next[t] += 1;
        for (let w = waiting.get(key(t, next[t])); w !== undefined; w = waiting.get(key(t, next[t]))) {
          waiting.delete(key(t, next[t]));
          chosen[w] = 1;
          held -= bytes[w];
          next[t] += 1;
        }
        continue;
      }
      waiting.set(key(t, k), n);
      heap.push(n, k - next[t]);
      held += bytes[n];
      while (held > this.budgetBytes && heap.size) {
        const far = heap.pop();
        const kk = key(trace[far], rank[far]);
        if (waiting.get(kk) !== far) continue; // given since
        waiting.delete(kk);
        held -= bytes[far];
      }
    }
    this.chosen = chosen;
    this.rounds += 1;
  }

  /** Whether the round parses the run opened n-th. */
  wants(n: number): boolean {
    return this.chosen[n] === 1;
  }

  /** Runs parsed before their turn, by trace and rank (key()). */
  private readonly held = new Map<number, { n: number; value: unknown }>();

  /**
   * A parsed run of the round: given at once when its turn has come (then the held ones that follow it),
   * held otherwise. `give` gets the runs of each trace in planned order.
   */
  offer<T>(n: number, value: T, give: (value: T, n: number) => void): void {
    const t = this.order.trace[n];
    const k = this.order.rank[n];
    if (k !== this.next[t]) {
      this.held.set(key(t, k), { n, value });
      return;
    }
    give(value, n);
    this.next[t] += 1;
    this.remaining -= 1;
    for (let h = this.held.get(key(t, this.next[t])); h !== undefined; h = this.held.get(key(t, this.next[t]))) {
      this.held.delete(key(t, this.next[t]));
      give(h.value as T, h.n);
      this.next[t] += 1;
      this.remaining -= 1;
    }
  }

  /** The round's end: nothing chosen can still be held (the dry run gave it all). */
  endRound(): void {
    if (this.held.size) throw new Error(`${this.held.size} run(s) held past the end of a round`);
  }
}
