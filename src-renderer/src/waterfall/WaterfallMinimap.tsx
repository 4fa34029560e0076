import { useEffect, useRef, useState, type PointerEvent as ReactPointerEvent } from 'react';
import type { Step } from '../../../src-shared/model';
import type { TimeRange } from './time-axis';
import { stripCoverage } from './strip-coverage';

const HEIGHT = 34;

/**
 * The whole run in one strip (every step a line, in start order top to
 * bottom, errors red) with the zoomed range outlined; dragging across it
 * zooms there. Drawn on a canvas: 100,000 steps are one paint, not 100,000 nodes.
 */
export function WaterfallMinimap({ steps, span, view, onRange }: { steps: Step[]; span: TimeRange; view: TimeRange; onRange: (r: TimeRange) => void }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const box = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(0);
  const [drag, setDrag] = useState<{ a: number; b: number } | null>(null);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setWidth(Math.floor(el.clientWidth)));
    ro.observe(el);
    setWidth(Math.floor(el.clientWidth));
    return () => ro.disconnect();
  }, []);

  useEffect(() => {
    const c = canvas.current;
    if (!c || width === 0) return;
    const dpr = window.devicePixelRatio || 1;
    c.width = width * dpr;
    c.height = HEIGHT * dpr;
    const ctx = c.getContext('2d');
    if (!ctx) return;
    ctx.scale(dpr, dpr);
    ctx.clearRect(0, 0, width, HEIGHT);
    const css = getComputedStyle(c);
    const normal = css.getPropertyValue('--t-llm').trim() || '#2f6fdb';
    const bad = css.getPropertyValue('--bad').trim() || '#d1343b';
    const rows = HEIGHT - 2;
    const cover = stripCoverage(steps, span, width, rows);
    // Ordinary steps first, errors over them so that they are never hidden.
    for (const pass of [0, 1]) {
      ctx.fillStyle = pass ? bad : normal;
      ctx.globalAlpha = pass ? 1 : 0.55;
      const grid = cover[pass];
      for (let y = 0; y < rows; y++) {
        // One rectangle per run of covered pixels in the row, not one per step.
        for (let px = 0; px < width; ) {
          if (grid[y * width + px] <= 0) {
            px++;
            continue;
          }
          const from = px;
          while (px < width && grid[y * width + px] > 0) px++;
          ctx.fillRect(from, y, px - from, 1);
        }
      }
    }
    ctx.globalAlpha = 1;
  }, [steps, span, width]);

  const frac = (e: ReactPointerEvent) => {
    const r = box.current!.getBoundingClientRect();
    return Math.max(0, Math.min(1, (e.clientX - r.left) / Math.max(1, r.width)));
  };
  const total = span.to - span.from;
  const lo = (view.from - span.from) / total;
  const hi = (view.to - span.from) / total;
  return (
    <div
      className="wf-minimap"
      ref={box}
      data-testid="waterfall-minimap"
      title="The whole run. Drag to zoom to a range."
      onPointerDown={(e) => {
        e.currentTarget.setPointerCapture(e.pointerId);
        const a = frac(e);
        setDrag({ a, b: a });
      }}
      onPointerMove={(e) => drag && setDrag({ a: drag.a, b: frac(e) })}
      onPointerUp={(e) => {
        if (!drag) return;
        const b = frac(e);
        setDrag(null);
        if (Math.abs(b - drag.a) < 0.004) return;
        const [a2, b2] = [Math.min(drag.a, b), Math.max(drag.a, b)];
        onRange({ from: span.from + a2 * total, to: Math.max(span.from + a2 * total + 1, span.from + b2 * total) });
      }}
    >
      <canvas ref={canvas} style={{ width: '100%', height: HEIGHT }} />
      {(lo > 0 || hi < 1) && <span className="wf-minimap-view" style={{ left: `${lo * 100}%`, width: `${(hi - lo) * 100}%` }} />}
      {drag && <span className="wf-brush" style={{ left: `${Math.min(drag.a, drag.b) * 100}%`, width: `${Math.abs(drag.b - drag.a) * 100}%` }} />}
    </div>
  );
}
