/**
 * A run id a LangChain file gives runs of two different trees: two exports
 * joined into one file, a trace exported twice, a tracer given fixed ids. Run
 * ids are only unique within a trace (LangSmith makes them uuids, but nothing
 * checks a file), and every later decision finds parents and traces by id, so
 * the second tree's copy used to join the first's trace and be skipped there
 * as a repeat, its children with it (and a run of another trace could be
 * pulled into the wrong one). Here each later copy in another tree is given an
 * id of its own, `<id>~2` (then `~3`…, never an id, parent id or trace id
 * the file uses), before traces are assigned; the children that name it
 * follow it. The whole parser and the streaming import both decide it here.
 *
 * What is one tree: runs joined by their parent links, each root (a run with
 * no parent at all) starting a tree of its own. A root's recorded trace_id
 * does not join two roots: LangChain sets it to the root's own id, so two
 * roots with one id also share a trace_id, and they are still two runs.
 * Within one tree a repeated id stays one step, as the OTLP import treats a
 * span id repeated within a trace (run-records.ts's planRun, and the
 * streamed stream/columnar-run-plan.ts: "appears twice ... the later copy is
 * skipped"): there the copies are one run listed twice, and a second step
 * would double its calls and cost.
 *
 * A child nested in child_runs follows the copy that holds it. A child that
 * names its parent by parent_run_id, when that id has copies in several
 * trees, follows the copy that records the same trace_id (LangSmith records
 * it on every run), else the copy listed last before it, else the first.
 */
import type { ForeignIssue } from '../foreign/foreign-run';
import type { IdLookup, RunLinks } from './run-tree-order';

/** Steps in file order (depth first), as assignTraces takes them, with the one that holds each in its child_runs. */
export interface CopyLinks<K> extends RunLinks<K> {
  /** The step whose child_runs holds step i; -1 at the top, or when what holds it is not a step. */
  nestedIn(i: number): number;
}

/** What the renaming changes, by step index; nothing when no id is repeated. */
export interface RenamedCopies<K> {
  /** Each renamed copy, in file order, with its new id. */
  renamed: { step: number; from: K; to: K }[];
  /** New ids of renamed copies (a copy repeated in its own renamed tree shares that tree's new id). */
  ids: Map<number, K>;
  /** New parents of the steps whose parent copy was renamed. */
  parents: Map<number, K>;
  /** New recorded trace of a renamed root whose trace_id was its own id (LangChain's), so its tree is a run of its own. */
  traces: Map<number, K>;
}

/** A root: no parent at all. */
const ROOT = -1;
/** Names a parent no step of the file has. */
const MISSING = -2;

export function renameRepeatedIds<K>(links: CopyLinks<K>, copyId: (id: K, k: number) => K, taken: (id: K) => boolean, lookup: () => IdLookup<K, number> = () => new Map()): RenamedCopies<K> {
  const result: RenamedCopies<K> = { renamed: [], ids: new Map(), parents: new Map(), traces: new Map() };
  const n = links.count;
  // The copies of an id, as a list in file order: the first, then nextCopy.
  const first = lookup();
  const last = lookup();
  const nextCopy = new Int32Array(n).fill(-1);
  let repeated = false;
  for (let i = 0; i < n; i++) {
    const id = links.id(i);
    const l = last.get(id);
    if (l === undefined) first.set(id, i);
    else {
      nextCopy[l] = i;
      repeated = true;
    }
    last.set(id, i);
  }
  if (!repeated) return result;

  const parentCopy = chooseParentCopies(links, first, nextCopy);
  const tree = treesOf(links, parentCopy);

  for (let i = 0; i < n; i++) {
    const id = links.id(i);
    if (nextCopy[i] === -1 || first.get(id) !== i) continue;
    // The id each tree's copies are stored under: the first tree's keeps it.
    const names = new Map<number, K>([[tree[i], id]]);
    let k = 2;
    for (let c = nextCopy[i]; c !== -1; c = nextCopy[c]) {
      let as = names.get(tree[c]);
      if (as === undefined) {
        // `<id>~k` of two different ids never meet (k has no '~'), so only the file's own ids can be in the way.
        do as = copyId(id, k++);
        while (taken(as));
        names.set(tree[c], as);
        result.renamed.push({ step: c, from: id, to: as });
        if (parentCopy[c] === ROOT && links.recordedTrace(c) === id) result.traces.set(c, as);
      }
      if (as !== id) result.ids.set(c, as);
    }
  }
  result.renamed.sort((a, b) => a.step - b.step);
  for (let i = 0; i < n; i++) {
    const renamedParent = parentCopy[i] >= 0 ? result.ids.get(parentCopy[i]) : undefined;
    if (renamedParent !== undefined) result.parents.set(i, renamedParent);
  }
  return result;
}

/** The step each step hangs from (ROOT, MISSING, or a step index). */
function chooseParentCopies<K>(links: CopyLinks<K>, first: IdLookup<K, number>, nextCopy: Int32Array): Int32Array {
  const n = links.count;
  const out = new Int32Array(n);
  // Per parent id with several copies: all of them, and those of each recorded trace (file order), made when first asked.
  const copiesOf = new Map<number, { all: number[]; byTrace: Map<K, number[]> }>();
  for (let i = 0; i < n; i++) {
    const holder = links.nestedIn(i);
    if (holder >= 0) {
      out[i] = holder;
      continue;
    }
    const p = links.parent(i);
    const c = p === null ? undefined : first.get(p);
    if (c === undefined) {
      out[i] = p === null ? ROOT : MISSING;
      continue;
    }
    if (nextCopy[c] === -1) {
      out[i] = c;
      continue;
    }
    let copies = copiesOf.get(c);
    if (!copies) {
      copies = { all: [], byTrace: new Map() };
      for (let k = c; k !== -1; k = nextCopy[k]) {
        copies.all.push(k);
        const trace = links.recordedTrace(k);
        if (trace === undefined) continue;
        const list = copies.byTrace.get(trace);
        if (list) list.push(k);
        else copies.byTrace.set(trace, [k]);
      }
      copiesOf.set(c, copies);
    }
    const trace = links.recordedTrace(i);
    const candidates = (trace !== undefined ? copies.byTrace.get(trace) : undefined) ?? copies.all;
    out[i] = lastBefore(candidates, i) ?? candidates[0];
  }
  return out;
}

/** The last of `sorted` below `i`, if any. */
function lastBefore(sorted: number[], i: number): number | undefined {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < i) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 ? sorted[lo - 1] : undefined;
}

/**
 * The tree of each step, as a number: that of the copy it hangs from. Walked up iteratively and memoized (a chain
 * may be thousands long). A root starts a tree; runs whose parent is not in the file share one per recorded
 * trace_id (else per missing parent); a parent cycle is one tree.
 */
function treesOf<K>(links: CopyLinks<K>, parentCopy: Int32Array): Int32Array {
  const n = links.count;
  const tree = new Int32Array(n).fill(-1);
  const onChain = new Uint8Array(n);
  const chain: number[] = [];
  const orphansByTrace = new Map<K, number>();
  const orphansByParent = new Map<K, number>();
  let trees = 0;
  const orphanTree = (s: number): number => {
    const trace = links.recordedTrace(s);
    const [byKey, key] = trace !== undefined ? [orphansByTrace, trace] : [orphansByParent, links.parent(s)!];
    let t = byKey.get(key);
    if (t === undefined) byKey.set(key, (t = trees++));
    return t;
  };
  for (let i = 0; i < n; i++) {
    let t = tree[i];
    for (let s = i; t === -1; ) {
      chain.push(s);
      onChain[s] = 1;
      const p = parentCopy[s];
      if (p === ROOT) t = trees++;
      else if (p === MISSING) t = orphanTree(s);
      else if (tree[p] !== -1) t = tree[p];
      else if (onChain[p]) t = trees++;
      else s = p;
    }
    for (const s of chain) {
      tree[s] = t;
      onChain[s] = 0;
    }
    chain.length = 0;
  }
  return tree;
}

/** The warning for a renamed copy, at the line its run starts on. */
export function renamedCopyIssue(from: string, to: string, line: number): ForeignIssue {
  return { line, level: 'warning', message: `run id ${from} appears again at line ${line} (another tree); stored as ${to}` };
}
