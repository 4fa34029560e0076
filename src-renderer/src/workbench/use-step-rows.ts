import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef } from 'react';

/** Height of one step row in the step list and the waterfall (they scroll side by side). */
export const STEP_ROW_HEIGHT = 24;

/**
 * The virtualized rows of a step view (step list, waterfall) that keeps the
 * selected step scrolled into view. Measured with bench:ui on 100,000 rows:
 * React batches scroll updates (no flushSync per scroll event), and the
 * selected row's index is found when the rows or the selection change, not
 * on every scroll frame.
 */
export function useStepRows<R extends { id: string }>(rows: R[], selected: string | null) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => STEP_ROW_HEIGHT,
    overscan: 8,
    useFlushSync: false,
  });
  const selectedIndex = useMemo(() => (selected ? rows.findIndex((r) => r.id === selected) : -1), [rows, selected]);
  useEffect(() => {
    if (selectedIndex >= 0) virtualizer.scrollToIndex(selectedIndex, { align: 'auto' });
  }, [selectedIndex, virtualizer]);
  return { scrollRef, virtualizer, selectedIndex };
}
