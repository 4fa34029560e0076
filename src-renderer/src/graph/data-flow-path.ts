/**
 * Where a data-flow edge attaches and how it bends. The tree's own edges run
 * from a parent's right side into a child's left side, so data flow stays out
 * of their way: between steps of one column it arcs beside the column on the
 * right (as the blame's lineage path does), forwards it runs right side into a
 * left-side port above the tree edge's, and backwards (a child's output into
 * its parent's) it leaves from the left and enters on the right.
 */

/** Handle ids on a step node (see StepGraph's StepNode). */
export const HANDLE = {
  rightOut: 'lin-out',
  rightIn: 'lin-in',
  leftOut: 'flow-out-left',
  leftIn: 'flow-in-left',
} as const;

/** Layout x positions closer than this are one dagre rank (one column). */
const SAME_COLUMN = 1;

export function dataFlowHandles(sourceX: number, targetX: number): { sourceHandle: string; targetHandle: string } {
  if (Math.abs(targetX - sourceX) < SAME_COLUMN) return { sourceHandle: HANDLE.rightOut, targetHandle: HANDLE.rightIn };
  if (targetX > sourceX) return { sourceHandle: HANDLE.rightOut, targetHandle: HANDLE.leftIn };
  return { sourceHandle: HANDLE.leftOut, targetHandle: HANDLE.rightIn };
}

type Side = 'left' | 'right';

/**
 * A cubic Bézier between two handles. Two ends on the same side make an arc
 * whose bulge grows with the vertical span, so that arcs between near
 * neighbours nest inside longer ones instead of lying on one line (an arc
 * diagram); the bulge is capped so that long arcs do not sweep across the
 * next column.
 */
export function dataFlowPath(sx: number, sy: number, sourceSide: Side, tx: number, ty: number, targetSide: Side): string {
  const dir = (side: Side) => (side === 'right' ? 1 : -1);
  let c1x: number;
  let c2x: number;
  if (sourceSide === targetSide) {
    const bulge = 14 + Math.min(40, Math.abs(ty - sy) * 0.12);
    const edge = sourceSide === 'right' ? Math.max(sx, tx) : Math.min(sx, tx);
    c1x = c2x = edge + dir(sourceSide) * bulge;
  } else {
    const pull = Math.max(16, Math.abs(tx - sx) / 2);
    c1x = sx + dir(sourceSide) * pull;
    c2x = tx + dir(targetSide) * pull;
  }
  const r = (n: number) => Math.round(n * 10) / 10;
  return `M${r(sx)},${r(sy)} C${r(c1x)},${r(sy)} ${r(c2x)},${r(ty)} ${r(tx)},${r(ty)}`;
}
