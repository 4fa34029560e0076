/**
 * The runs timeline's time axis, with long idle gaps cut out. Runs of a few
 * seconds spread over two days would each be a 1 px tick on a linear axis;
 * here every idle gap longer than a share of the whole span (and than ten
 * typical runs) is drawn as a narrow hatched break, and the time with runs
 * in it shares the rest.
 */
import { INVALID_TIME_TEXT, usableTimeMs } from '../../../src-shared/usable-time';

interface AxisSegment {
  /** Time range drawn (epoch ms). */
  from: number;
  to: number;
  /** Where it is drawn, in % of the track. */
  left: number;
  width: number;
}

interface AxisBreak {
  /** The idle time cut out (epoch ms). */
  from: number;
  to: number;
  /** Where the break marker sits, in % of the track. */
  left: number;
  width: number;
}

export interface TimelineScale {
  segments: AxisSegment[];
  breaks: AxisBreak[];
  /** Position of a time, in % of the track (times inside a break map into it linearly). */
  x(t: number): number;
}

/** A gap longer than this share of the whole span, and than MEDIAN_RUNS typical runs, is cut out… */
const CUT_SHARE = 0.08;
const MEDIAN_RUNS = 10;
/** …and drawn this wide, in % of the track. */
const BREAK_WIDTH = 3;

export function timelineScale(intervals: { from: number; to: number }[], start: number, end: number): TimelineScale {
  const span = Math.max(1, end - start);
  const sorted = intervals.map((i) => ({ from: i.from, to: Math.max(i.from, i.to) })).sort((a, b) => a.from - b.from);
  // Busy stretches: runs that overlap or touch are one stretch.
  const busy: { from: number; to: number }[] = [];
  for (const i of sorted) {
    const last = busy[busy.length - 1];
    if (last && i.from <= last.to) last.to = Math.max(last.to, i.to);
    else busy.push({ ...i });
  }
  const durations = sorted.map((i) => i.to - i.from).sort((a, b) => a - b);
  const median = durations.length ? durations[durations.length >> 1] : 0;
  const minGap = Math.max(CUT_SHARE * span, MEDIAN_RUNS * median);
  const gaps: { from: number; to: number }[] = [];
  for (let k = 1; k < busy.length; k++) if (busy[k].from - busy[k - 1].to > minGap) gaps.push({ from: busy[k - 1].to, to: busy[k].from });
  const cut = gaps.reduce((n, g) => n + (g.to - g.from), 0);
  const kept = Math.max(1, span - cut);
  const perMs = (100 - BREAK_WIDTH * gaps.length) / kept;
  const segments: AxisSegment[] = [];
  const breaks: AxisBreak[] = [];
  let t = start;
  let left = 0;
  for (const g of gaps) {
    const width = (g.from - t) * perMs;
    segments.push({ from: t, to: g.from, left, width });
    left += width;
    breaks.push({ from: g.from, to: g.to, left, width: BREAK_WIDTH });
    left += BREAK_WIDTH;
    t = g.to;
  }
  segments.push({ from: t, to: end, left, width: Math.max(0, 100 - left) });
  const x = (time: number): number => {
    if (time <= start) return 0;
    for (const b of breaks) if (time > b.from && time < b.to) return b.left + ((time - b.from) / (b.to - b.from)) * b.width;
    for (const s of segments) if (time <= s.to) return s.left + (s.to === s.from ? 0 : ((time - s.from) / (s.to - s.from)) * s.width);
    return 100;
  };
  return { segments, breaks, x };
}

/** Tick times: each segment's start, plus evenly spaced ones inside segments wide enough to hold them. */
export function timelineTicks(scale: TimelineScale, maxTicks = 6): number[] {
  const ticks: number[] = [];
  for (const s of scale.segments) {
    const n = Math.max(1, Math.floor((s.width / 100) * maxTicks));
    for (let i = 0; i < n; i++) ticks.push(s.from + ((s.to - s.from) * i) / n);
  }
  return ticks;
}

/** A tick label as precise as the span needs: milliseconds under a minute, the date only when days differ. */
export function tickLabel(t: number, span: number, multiDay: boolean): string {
  if (usableTimeMs(t) === null) return INVALID_TIME_TEXT;
  const d = new Date(t);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  const time = span < 60_000 ? `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}` : `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  return multiDay ? `${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${time}` : time;
}
