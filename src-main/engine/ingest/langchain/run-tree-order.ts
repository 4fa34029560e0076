/**
 * The decisions about a LangChain file that need every run of it: where a
 * run sits (its path, for messages), which trace (run) it belongs to, and the
 * order its run's steps are listed in before the whole-run planner sees them.
 * The whole-document parser (langchain-run-tree.ts) and the streaming import
 * (run-tree-stream-import.ts) both decide them here, on runs given by index.
 */
import type { Json } from '../../../../src-shared/trace-format';

/** How the runs of a file are listed: an array of runs, `{"runs": [...]}`, or one root run. */
export type TopShape = 'array' | 'runs' | 'single';

/** Paths in messages stop growing past this depth (a 5,000-deep path would be quadratic text). */
export const PATH_DEPTH = 50;

export function topPath(shape: TopShape, i: number): string {
  return shape === 'array' ? `[${i}]` : shape === 'runs' ? `runs[${i}]` : '$';
}

/** The path of the i-th child of a run at `path`, `depth` levels below the top; deep paths are shortened (they only locate a run). */
export function childPath(path: string, depth: number, i: number): string {
  return `${depth < PATH_DEPTH ? path : `…(depth ${depth})`}.child_runs[${i}]`;
}

/** LangChain's own start order of a run (dotted_order, or execution_order), for runs that start in the same millisecond. */
export function tieOrderOf(run: Record<string, Json>): string {
  return typeof run.dotted_order === 'string' ? run.dotted_order : typeof run.execution_order === 'number' ? String(run.execution_order).padStart(12, '0') : '';
}

/**
 * Steps given by index, in the order the file lists them (depth first). Ids are strings (the whole parser) or
 * numbers standing for them (the streaming import's TextArena), equal exactly when the strings are.
 */
export interface RunLinks<K> {
  count: number;
  id(i: number): K;
  parent(i: number): K | null;
  /** The run's recorded trace_id, if a non-empty string. */
  recordedTrace(i: number): K | undefined;
}

/** What assignTraces looks ids up in: Maps (the default), or typed arrays where ids are numbers below a bound. */
export interface IdLookup<K, V> {
  get(id: K): V | undefined;
  set(id: K, value: V): unknown;
  delete(id: K): unknown;
}

/**
 * The trace of each step: that of its topmost known ancestor (or its recorded trace_id). Parents are
 * found by id, the last step of an id winning; memoized by id, so a long chain costs linear time; a
 * parent cycle ends the walk (run-records.ts cuts it with a warning).
 */
export function assignTraces<K>(links: RunLinks<K>, lookup?: () => IdLookup<K, K | number>): K[];
/** `out`: where the traces go (the streaming import's is a typed array, outside V8's heap). */
export function assignTraces<K, Out extends { [i: number]: K }>(links: RunLinks<K>, lookup: () => IdLookup<K, K | number>, out: Out): Out;
export function assignTraces<K>(links: RunLinks<K>, lookup: () => IdLookup<K, K | number> = () => new Map(), out: { [i: number]: K } = new Array<K>(links.count)): { [i: number]: K } {
  const byId = lookup() as IdLookup<K, number>;
  for (let i = 0; i < links.count; i++) byId.set(links.id(i), i);
  const traceIds = lookup() as IdLookup<K, K>;
  const chain: number[] = [];
  const onChain = lookup() as IdLookup<K, number>;
  for (let i = 0; i < links.count; i++) {
    let current = i;
    let found: K | undefined;
    for (;;) {
      found = traceIds.get(links.id(current));
      if (found !== undefined) break;
      chain.push(current);
      onChain.set(links.id(current), 1);
      const p = links.parent(current);
      const parent = p !== null ? byId.get(p) : undefined;
      if (parent === undefined || onChain.get(links.id(parent)) !== undefined) break;
      current = parent;
    }
    found ??= links.recordedTrace(current) ?? links.id(current);
    for (const c of chain) {
      traceIds.set(links.id(c), found);
      onChain.delete(links.id(c));
    }
    chain.length = 0;
    out[i] = found;
  }
  return out;
}

/**
 * A run's steps (indices, in file order) in the order the planner gets them: by start, then LangChain's own
 * start order (`tie`: that of the last step of the same id), then file order.
 */
export function sortRunSteps<T extends number[] | Int32Array>(members: T, start: (i: number) => number, tie: (i: number) => string): T {
  // In place (a typed array's sort is stable as an array's is).
  members.sort((a, b) => {
    const byStart = start(a) - start(b);
    if (byStart) return byStart;
    // Only asked for runs that start together: the streaming import reads them from the file again.
    const ta = tie(a);
    const tb = tie(b);
    return ta < tb ? -1 : ta > tb ? 1 : 0;
  });
  return members;
}

/** The run's root, whose name the pipeline takes: the first step in that order whose parent is not in the run. */
export function rootStep<K>(sorted: ArrayLike<number>, id: (i: number) => K, parent: (i: number) => K | null): number | undefined {
  const ids = new Set<K>();
  for (let k = 0; k < sorted.length; k++) ids.add(id(sorted[k]));
  for (let k = 0; k < sorted.length; k++) {
    const p = parent(sorted[k]);
    if (p === null || !ids.has(p)) return sorted[k];
  }
  return undefined;
}
