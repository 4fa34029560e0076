import { Bar, BarChart, CartesianGrid, Cell, ErrorBar, ResponsiveContainer, XAxis, YAxis } from 'recharts';
import type { ExperimentSummary } from '../../../src-shared/experiments';
import { useThemeColors } from '../charts/use-theme-colors';
import { formatInterval, formatPercent, formatSplit } from './experiment-format';

interface ArmDatum {
  arm: string;
  rate: number;
  /** Distances below and above the rate to the Wilson bounds (recharts draws error bars relative to the value). */
  wilson: [number, number];
  /** Axis label: the arm and its split, so the numbers sit beside their bar. */
  tick: string;
  label: string;
  judged: boolean;
}

function armData(e: ExperimentSummary): ArmDatum[] {
  return (['treatment', 'control'] as const).map((arm) => {
    const a = e[arm];
    const rate = a.rate ?? 0;
    const [lo, hi] = a.wilson;
    return {
      arm,
      rate,
      wilson: a.rate === null ? [0, 0] : [Math.max(0, rate - lo), Math.max(0, hi - rate)],
      tick: `${arm} ${a.trials === 0 ? '–' : formatSplit(a)}`,
      label: a.trials === 0 ? 'no judged trial' : `${formatSplit(a)} · ${formatPercent(a.rate)}`,
      judged: a.trials > 0,
    };
  });
}

/** Success rate per arm with its Wilson 95% interval; the interval, not the bar, is what to read at small N. */
export function ArmChart({ experiment }: { experiment: ExperimentSummary }) {
  const c = useThemeColors();
  const data = armData(experiment);
  const tick = { fill: c.muted, fontSize: 11 };
  return (
    <figure className="xp-chart" data-testid="arm-chart">
      <figcaption>
        Success rate per arm <span className="muted">· whiskers: Wilson 95% interval</span>
      </figcaption>
      <ResponsiveContainer width="100%" height={132}>
        <BarChart data={data} layout="vertical" margin={{ left: 4, right: 24, top: 6, bottom: 0 }} barCategoryGap={14}>
          <CartesianGrid stroke={c.grid} horizontal={false} />
          <XAxis type="number" domain={[0, 1]} ticks={[0, 0.25, 0.5, 0.75, 1]} tickFormatter={(v: number) => `${Math.round(v * 100)}%`} tick={tick} stroke={c.grid} />
          <YAxis type="category" dataKey="tick" width={104} tick={{ ...tick, fill: c.fg, fontSize: 12 }} stroke={c.grid} />
          <Bar dataKey="rate" isAnimationActive={false} minPointSize={2}>
            {data.map((d) => (
              <Cell key={d.arm} fill={d.arm === 'treatment' ? c.accent : c.muted} fillOpacity={d.judged ? 0.85 : 0.25} />
            ))}
            <ErrorBar dataKey="wilson" width={8} strokeWidth={1.5} stroke={c.fg} isAnimationActive={false} />
          </Bar>
        </BarChart>
      </ResponsiveContainer>
      <p className="sr-only">
        {data.map((d) => `${d.arm}: ${d.label}, Wilson 95% ${formatInterval(experiment[d.arm as 'treatment' | 'control'].wilson)}.`).join(' ')}
      </p>
    </figure>
  );
}
