import { useEffect, useState } from 'react';

export interface ThemeColors {
  fg: string;
  muted: string;
  grid: string;
  accent: string;
  bad: string;
  warn: string;
  good: string;
  panel: string;
}

function read(): ThemeColors {
  const s = getComputedStyle(document.documentElement);
  const v = (name: string, fallback: string) => s.getPropertyValue(name).trim() || fallback;
  return {
    fg: v('--fg', '#222'),
    muted: v('--muted', '#777'),
    grid: v('--border', '#ddd'),
    accent: v('--accent', '#2f6fdb'),
    bad: v('--bad', '#d33'),
    warn: v('--warn', '#d80'),
    good: v('--good', '#2a2'),
    panel: v('--panel', '#fff'),
  };
}

/** SVG charts take colours as values, so the CSS theme variables are read out and refreshed on a theme switch. */
export function useThemeColors(): ThemeColors {
  const [colors, setColors] = useState(read);
  useEffect(() => {
    const media = window.matchMedia('(prefers-color-scheme: dark)');
    const update = () => setColors(read());
    media.addEventListener('change', update);
    return () => media.removeEventListener('change', update);
  }, []);
  return colors;
}
