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

/** Steps given by index, in the order the file lists them (depth first). */
export interface RunLinks {
  count: number;
  id(i: number): string;
  parent(i: number): string | null;
  /** The run's recorded trace_id, if a string. */
  recordedTrace(i: number): string | undefined;
}

/**
 * The trace of each step: that of its topmost known ancestor (or its recorded trace_id). Parents are
 * found by id, the last step of an id winning; memoized by id, so a long chain costs linear time; a
 * parent cycle ends the walk (run-records.ts cuts it with a warning).
 */
export function assignTraces(links: RunLinks): string[] {
  const byId = new Map<string, number>();
  for (let i = 0; i < links.count; i++) byId.set(links.id(i), i);
  const traceIds = new Map<string, string>();
  const out = new Array<string>(links.count);
  const chain: number[] = [];
  const onChain = new Set<string>();
  for (let i = 0; i < links.count; i++) {
    chain.length = 0;
    onChain.clear();
    let current = i;
    let found: string | undefined;
    for (;;) {
      found = traceIds.get(links.id(current));
      if (found !== undefined) break;
      chain.push(current);
      onChain.add(links.id(current));
      const p = links.parent(current);
      const parent = p !== null ? byId.get(p) : undefined;
      if (parent === undefined || onChain.has(links.id(parent))) break;
      current = parent;
    }
    if (found === undefined) {
      const recorded = links.recordedTrace(current);
      found = recorded !== undefined && recorded !== '' ? recorded : links.id(current);
    }
    for (const c of chain) traceIds.set(links.id(c), found);
    out[i] = found;
  }
  return out;
}

/**
 * A run's steps (indices, in file order) in the order the planner gets them: by start, then LangChain's own
 * start order (keyed by id, the last step of an id winning), then file order.
 */
export function sortRunSteps(members: number[], start: (i: number) => number, id: (i: number) => string, tieById: Map<string, string>): number[] {
  return members.sort((a, b) => {
    const ta = tieById.get(id(a))!;
    const tb = tieById.get(id(b))!;
    return start(a) - start(b) || (ta < tb ? -1 : ta > tb ? 1 : 0);
  });
}

/** The run's root, whose name the pipeline takes: the first step in that order whose parent is not in the run. */
export function rootStep(sorted: number[], id: (i: number) => string, parent: (i: number) => string | null): number | undefined {
  const ids = new Set(sorted.map(id));
  return sorted.find((i) => {
    const p = parent(i);
    return p === null || !ids.has(p);
  });
}
