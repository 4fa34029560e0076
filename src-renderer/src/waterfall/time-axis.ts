/**
 * The waterfall's shared time axis: the run's span, whether its steps carry
 * real timing, and tick marks at round intervals. Pure functions over step
 * fields the run skeleton already has (start/end times), so they work before
 * any payload is loaded.
 */
import type { Step } from '../../../src-shared/model';

export interface TimeRange {
  from: number;
  to: number;
}

type Timed = Pick<Step, 'started_at' | 'ended_at'>;

/** The end a bar is drawn to: a step still running (or whose end was lost) runs to the end of the run. */
export function endOf(step: Timed, runEnd: number): number {
  return step.ended_at !== null && step.ended_at >= step.started_at ? step.ended_at : runEnd;
}

/** First start to last end over all steps (never an empty range). */
export function runSpan(steps: Timed[]): TimeRange {
  let from = Infinity;
  let to = -Infinity;
  for (const s of steps) {
    if (s.started_at < from) from = s.started_at;
    const end = s.ended_at ?? s.started_at;
    if (end > to) to = end;
    if (s.started_at > to) to = s.started_at;
  }
  if (!Number.isFinite(from)) return { from: 0, to: 1 };
  return { from, to: Math.max(to, from + 1) };
}

/**
 * A run has real timing when its steps ran at different times and some took
 * measurable time: then a waterfall says something. Imports that stamp every
 * step with one instant (or no ends) get the graph instead.
 */
export function hasRealTiming(steps: Timed[]): boolean {
  if (steps.length < 2) return false;
  const first = steps[0].started_at;
  let distinctStarts = false;
  let someDuration = false;
  for (const s of steps) {
    if (s.started_at !== first) distinctStarts = true;
    if (s.ended_at !== null && s.ended_at > s.started_at) someDuration = true;
    if (distinctStarts && someDuration) return true;
  }
  return false;
}

interface Tick {
  /** 0..1 across the visible range. */
  at: number;
  label: string;
}

const STEPS = [1, 2, 5];

/** A round interval giving about `target` ticks over `spanMs`. */
function niceInterval(spanMs: number, target: number): number {
  const raw = spanMs / Math.max(1, target);
  const pow = 10 ** Math.floor(Math.log10(Math.max(raw, 1e-3)));
  for (const m of STEPS) if (m * pow >= raw) return m * pow;
  return 10 * pow;
}

/** Offset from the run's start, as people read it: 0, 250 ms, 1.5 s, 2 m 30 s. */
export function formatOffset(ms: number, interval: number): string {
  if (ms === 0) return '0';
  const sign = ms < 0 ? '−' : '';
  const a = Math.abs(ms);
  if (a < 1000) return `${sign}${interval < 1 ? a.toFixed(2) : interval < 10 ? a.toFixed(1).replace(/\.0$/, '') : Math.round(a)} ms`;
  if (a < 60_000) {
    const digits = interval >= 1000 ? 0 : interval >= 100 ? 1 : 2;
    return `${sign}${(a / 1000).toFixed(digits)} s`;
  }
  const m = Math.floor(a / 60_000);
  const s = Math.round((a % 60_000) / 1000);
  return `${sign}${m} m${s ? ` ${s} s` : ''}`;
}

/** Ticks over `view`, labelled as offsets from `origin` (the run's start). */
export function axisTicks(view: TimeRange, origin: number, target = 8): Tick[] {
  const span = view.to - view.from;
  if (!(span > 0)) return [];
  const interval = niceInterval(span, target);
  const first = Math.ceil((view.from - origin) / interval) * interval;
  const out: Tick[] = [];
  for (let t = first; origin + t <= view.to + 1e-9 && out.length < 50; t += interval) {
    out.push({ at: (origin + t - view.from) / span, label: formatOffset(t, interval) });
  }
  return out;
}

/** A bar's left edge and width as fractions of the view, clipped to it; null when it lies outside. */
export function barGeometry(start: number, end: number, view: TimeRange): { left: number; width: number } | null {
  const span = view.to - view.from;
  if (end < view.from || start > view.to) return null;
  const a = Math.max(start, view.from);
  const b = Math.min(end, view.to);
  return { left: (a - view.from) / span, width: (b - a) / span };
}

/** A drag on the axis, in fractions of its width, as a time range (at least 1 ms wide). */
export function rangeFromDrag(view: TimeRange, a: number, b: number): TimeRange {
  const span = view.to - view.from;
  const lo = Math.max(0, Math.min(a, b));
  const hi = Math.min(1, Math.max(a, b));
  const from = view.from + lo * span;
  return { from, to: Math.max(from + 1, view.from + hi * span) };
}
