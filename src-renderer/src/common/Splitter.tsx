import { useRef, type KeyboardEvent, type PointerEvent } from 'react';

/** Arrow keys move a focused splitter by this many pixels (Shift: four times as far). */
const KEY_STEP = 16;

/**
 * A draggable divider between two panes. `value` is the size it controls
 * (pixels, or what `onResize` expects); dragging reports the new value from the
 * pointer's movement times `sign` (−1 when the pane grows the other way).
 * Focusable, with arrow keys, as a WAI-ARIA window splitter.
 */
export function Splitter({
  orientation,
  value,
  min,
  max,
  onResize,
  label,
  sign = 1,
  scale = 1,
}: {
  orientation: 'vertical' | 'horizontal';
  value: number;
  min: number;
  max: number;
  onResize: (next: number) => void;
  label: string;
  sign?: 1 | -1;
  /** Units of `value` per pixel (e.g. 100 / container height for a percentage). */
  scale?: number;
}) {
  const start = useRef<{ pos: number; value: number } | null>(null);
  const pos = (e: PointerEvent) => (orientation === 'vertical' ? e.clientX : e.clientY);
  const onPointerDown = (e: PointerEvent<HTMLDivElement>) => {
    e.currentTarget.setPointerCapture(e.pointerId);
    start.current = { pos: pos(e), value };
  };
  const onPointerMove = (e: PointerEvent<HTMLDivElement>) => {
    if (!start.current) return;
    onResize(start.current.value + sign * (pos(e) - start.current.pos) * scale);
  };
  const onPointerUp = (e: PointerEvent<HTMLDivElement>) => {
    start.current = null;
    e.currentTarget.releasePointerCapture(e.pointerId);
  };
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const less = orientation === 'vertical' ? 'ArrowLeft' : 'ArrowUp';
    const more = orientation === 'vertical' ? 'ArrowRight' : 'ArrowDown';
    const step = (e.shiftKey ? KEY_STEP * 4 : KEY_STEP) * scale * sign;
    if (e.key === less) onResize(value - step);
    else if (e.key === more) onResize(value + step);
    else if (e.key === 'Home') onResize(min);
    else if (e.key === 'End') onResize(max);
    else return;
    e.preventDefault();
  };
  return (
    <div
      role="separator"
      tabIndex={0}
      aria-label={label}
      aria-orientation={orientation}
      aria-valuenow={Math.round(value)}
      aria-valuemin={min}
      aria-valuemax={max}
      title={`${label}: drag, or focus and use the arrow keys`}
      className={`splitter splitter-${orientation}`}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={onPointerUp}
      onKeyDown={onKeyDown}
    />
  );
}
