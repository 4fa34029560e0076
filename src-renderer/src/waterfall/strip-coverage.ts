import type { Step } from '../../../src-shared/model';
import { endOf, type TimeRange } from './time-axis';

/**
 * Which pixels of the strip each kind of step covers ([ordinary, error], row-major, > 0 = covered): a
 * step marks its span in the pixel row of its position, through a difference array per row, so a
 * 100,000-step run costs one pass over the steps plus one over the pixels.
 */
export function stripCoverage(steps: Step[], span: TimeRange, width: number, rows: number): [Int32Array, Int32Array] {
  const grids: [Int32Array, Int32Array] = [new Int32Array(rows * width), new Int32Array(rows * width)];
  const total = Math.max(1e-9, span.to - span.from);
  const n = steps.length;
  const px = (t: number) => Math.max(0, Math.min(width - 1, Math.floor(((t - span.from) / total) * width)));
  for (let i = 0; i < n; i++) {
    const s = steps[i];
    const y = Math.min(rows - 1, Math.floor((i / n) * rows));
    const x0 = px(s.started_at);
    const x1 = Math.max(x0, px(endOf(s, span.to)));
    const g = grids[s.status === 'error' ? 1 : 0];
    g[y * width + x0] += 1;
    if (x1 + 1 < width) g[y * width + x1 + 1] -= 1;
  }
  for (const g of grids) {
    for (let y = 0; y < rows; y++) {
      let run = 0;
      for (let x = 0; x < width; x++) {
        run += g[y * width + x];
        g[y * width + x] = run;
      }
    }
  }
  return grids;
}

