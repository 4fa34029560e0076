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
  traceSizes: Int32Array;
}

/**
 * A max-heap of waiting runs by how far they are from their turn (computed when they arrived; only grows stale
 * downwards), in typed arrays: a nested tree makes nearly every run wait, and an object per entry put ~400,000
 * objects on V8's heap at once at the start of each pass over the 500 MB file.
 */
class FarthestFirst {
  private runs = new Int32Array(1024);
  private far = new Int32Array(1024);
  size = 0;

  push(n: number, far: number): void {
    if (this.size === this.runs.length) this.grow();
    let i = this.size++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (this.far[p] >= far) break;
      this.runs[i] = this.runs[p];
      this.far[i] = this.far[p];
      i = p;
    }
    this.runs[i] = n;
    this.far[i] = far;
  }

  pop(): number {
    const top = this.runs[0];
    const n = this.runs[--this.size];
    const far = this.far[this.size];
    if (this.size) this.siftDown(0, n, far);
    return top;
  }

  /** Keeps only the runs `keep` says are still waiting (the others were given since they were pushed). */
  prune(keep: (n: number) => boolean): void {
    let kept = 0;
    for (let i = 0; i < this.size; i++) {
      if (!keep(this.runs[i])) continue;
      this.runs[kept] = this.runs[i];
      this.far[kept] = this.far[i];
      kept += 1;
    }
    this.size = kept;
    for (let i = (kept >> 1) - 1; i >= 0; i--) this.siftDown(i, this.runs[i], this.far[i]);
  }

  /** Places run `n` (distance `far`) at `i` or below. */
  private siftDown(i: number, n: number, far: number): void {
    for (;;) {
      const l = 2 * i + 1;
      if (l >= this.size) break;
      const r = l + 1;
      const m = r < this.size && this.far[r] > this.far[l] ? r : l;
      if (this.far[m] <= far) break;
      this.runs[i] = this.runs[m];
      this.far[i] = this.far[m];
      i = m;
    }
    this.runs[i] = n;
    this.far[i] = far;
  }

  private grow(): void {
    const runs = new Int32Array(this.runs.length * 2);
    runs.set(this.runs);
    this.runs = runs;
    const far = new Int32Array(this.far.length * 2);
    far.set(this.far);
    this.far = far;
  }
}

export class RankRounds {
  /** Next rank to give, per trace. */
  private readonly next: Int32Array;
  /** Where each trace's ranks start in one numbering of all steps (a trace and a rank as one small integer). */
  private readonly first: Int32Array;
  private readonly total: number;
  /** The runs this round gives (1), by opening number. */
  private chosen: Uint8Array;
  private remaining: number;
  rounds = 0;

  constructor(
    private readonly order: RunOrder,
    private readonly budgetBytes: number,
  ) {
    const sizes = order.traceSizes;
    this.next = new Int32Array(sizes.length);
    this.first = new Int32Array(sizes.length + 1);
    for (let t = 0; t < sizes.length; t++) this.first[t + 1] = this.first[t] + sizes[t];
    this.total = this.first[sizes.length];
    this.chosen = new Uint8Array(order.trace.length);
    this.remaining = this.total;
  }

  /** Whether every step was given. */
  get done(): boolean {
    return this.remaining === 0;
  }

  /** Share of the steps given so far (0 to 1): how far the pass is, whatever its rounds. */
  get share(): number {
    return this.total === 0 ? 1 : 1 - this.remaining / this.total;
  }

  /** The place of a trace's rank among all steps, or -1 past the trace's last. */
  private place(t: number, k: number): number {
    return k < this.order.traceSizes[t] ? this.first[t] + k : -1;
  }

  /** Picks the runs of the next round (a dry run of `give` on sizes); at least one per unfinished trace. */
  planRound(): void {
    const { handedOut, trace, rank, bytes } = this.order;
    const next = Int32Array.from(this.next);
    const chosen = new Uint8Array(trace.length);
    // Per place (first[t] + rank), the run waiting there + 1, 0 for none.
    const waiting = new Int32Array(this.total);
    let waitingCount = 0;
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
        for (let p = this.place(t, next[t]); p !== -1 && waiting[p] !== 0; p = this.place(t, next[t])) {
          const w = waiting[p] - 1;
          waiting[p] = 0;
          waitingCount -= 1;
          chosen[w] = 1;
          held -= bytes[w];
          next[t] += 1;
        }
        continue;
      }
      waiting[this.first[t] + k] = n + 1;
      waitingCount += 1;
      heap.push(n, k - next[t]);
      held += bytes[n];
      while (held > this.budgetBytes && heap.size) {
        const far = heap.pop();
        const p = this.first[trace[far]] + rank[far];
        if (waiting[p] !== far + 1) continue; // given since
        waiting[p] = 0;
        waitingCount -= 1;
        held -= bytes[far];
      }
      // Entries of runs given since are dropped once they outnumber the waiting ones.
      if (heap.size > 2 * waitingCount + 1024) heap.prune((w) => waiting[this.first[trace[w]] + rank[w]] === w + 1);
    }
    this.chosen = chosen;
    this.rounds += 1;
  }

  /** Whether the round parses the run opened n-th. */
  wants(n: number): boolean {
    return this.chosen[n] === 1;
  }

  /** Whether the run opened n-th is the next its trace gives (offer gives it at once). */
  isTurn(n: number): boolean {
    return this.order.rank[n] === this.next[this.order.trace[n]];
  }

  /** Runs parsed before their turn, by place (first[t] + rank). */
  private readonly held = new Map<number, { n: number; value: unknown }>();

  /**
   * A parsed run of the round: given at once when its turn has come (then the held ones that follow it),
   * held otherwise. `give` gets the runs of each trace in planned order.
   */
  offer<T>(n: number, value: T, give: (value: T, n: number) => void): void {
    const t = this.order.trace[n];
    const k = this.order.rank[n];
    if (k !== this.next[t]) {
      this.held.set(this.first[t] + k, { n, value });
      return;
    }
    give(value, n);
    this.next[t] += 1;
    this.remaining -= 1;
    for (let p = this.place(t, this.next[t]), h = this.held.get(p); h !== undefined; p = this.place(t, this.next[t]), h = this.held.get(p)) {
      this.held.delete(p);
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
