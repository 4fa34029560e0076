import { useEffect, type RefObject } from 'react';

/**
 * Closes a menu, popover or dialog the way people expect: Escape (focus goes
 * back to the button that opened it) or a click outside `area`.
 */
export function useDismiss(open: boolean, close: () => void, area: RefObject<HTMLElement | null>, opener?: RefObject<HTMLElement | null>): void {
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      e.stopPropagation();
      close();
      opener?.current?.focus();
    };
    const onPointer = (e: PointerEvent) => {
      if (area.current && !area.current.contains(e.target as Node)) close();
    };
    window.addEventListener('keydown', onKey);
    window.addEventListener('pointerdown', onPointer);
    return () => {
      window.removeEventListener('keydown', onKey);
      window.removeEventListener('pointerdown', onPointer);
    };
  }, [open, close, area, opener]);
}
