/**
 * Paths for edges drawn over the laid-out graph (the blame's lineage path and
 * data flow) that must not cross node text: each leaves its source on the
 * right, runs down (or up) a lane to the right of every node between the two
 * ends, and enters its target on the right. Lanes of several edges are
 * staggered so that they do not lie on one line.
 */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

const GAP = 14;
const STAGGER = 7;
const RADIUS = 8;

/** The SVG path from `from` to `to` around `boxes`; `slot` staggers parallel lanes, `port` shifts the ends up or down the node side. */
export function routeAround(from: Box, to: Box, boxes: Iterable<Box>, slot = 0, port: { out: number; in: number } = { out: 0.3, in: 0.7 }): string {
  const sx = from.x + from.width;
  const sy = from.y + from.height * port.out;
  const tx = to.x + to.width;
  const ty = to.y + to.height * port.in;
  const top = Math.min(sy, ty);
  const bottom = Math.max(sy, ty);
  let right = Math.max(sx, tx);
  for (const b of boxes) if (b.y < bottom && b.y + b.height > top && b.x + b.width > right) right = b.x + b.width;
  const lane = right + GAP + slot * STAGGER;
  const r = Math.min(RADIUS, Math.abs(ty - sy) / 2);
  const down = ty >= sy ? 1 : -1;
  const n = (v: number) => Math.round(v * 10) / 10;
  if (r < 1) return `M${n(sx)},${n(sy)} L${n(lane)},${n(sy)} L${n(lane)},${n(ty)} L${n(tx)},${n(ty)}`;
  return [
    `M${n(sx)},${n(sy)}`,
    `L${n(lane - r)},${n(sy)}`,
    `Q${n(lane)},${n(sy)} ${n(lane)},${n(sy + down * r)}`,
    `L${n(lane)},${n(ty - down * r)}`,
    `Q${n(lane)},${n(ty)} ${n(lane - r)},${n(ty)}`,
    `L${n(tx)},${n(ty)}`,
  ].join(' ');
}
