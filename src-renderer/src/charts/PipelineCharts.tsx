import { CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { useMemo } from 'react';
import { useEngineQuery } from '../api/use-engine-query';
import { TraceText } from '../common/TraceText';
import { act, openRun } from '../state/ui-store';
import { formatDuration, formatTime } from '../text/format';
import { useThemeColors } from './use-theme-colors';

/** Run duration and blame score over time for every run of one pipeline. */
export function PipelineCharts({ pipeline, currentRun }: { pipeline: string; currentRun: string }) {
  const c = useThemeColors();
  const runs = useEngineQuery('listRuns', { pipeline, limit: 2000 });
  const data = useMemo(
    () =>
      [...(runs.data ?? [])]
        .sort((a, b) => a.started_at - b.started_at)
        .map((r) => ({ id: r.run_id, t: r.started_at, duration: r.duration_ms, blame: r.blame_score ?? null, current: r.run_id === currentRun })),
    [runs.data, currentRun],
  );
  const tick = { fill: c.muted, fontSize: 11 };
  const dot = (props: { cx?: number; cy?: number; payload?: { current: boolean; id: string } }) => {
    const { cx, cy, payload } = props;
    if (cx === undefined || cy === undefined || !payload) return <g key={`none-${cx}-${cy}`} />;
    return (
      <circle
        key={payload.id}
        cx={cx}
        cy={cy}
        r={payload.current ? 5 : 3}
        fill={payload.current ? c.bad : c.accent}
        stroke={c.panel}
        style={{ cursor: 'pointer' }}
        onClick={() => act(openRun, payload.id)}
      />
    );
  };
  return (
    <div className="charts-grid">
      <h3 className="charts-title">
        Pipeline <TraceText text={pipeline} truncateAt={120} /> over time <span className="muted">({data.length} runs; this run in red)</span>
      </h3>
      <figure className="chart-card" data-testid="chart-pipeline-duration">
        <figcaption>Run duration</figcaption>
        <ResponsiveContainer width="100%" height={200}>
          <LineChart data={data} margin={{ left: 8, right: 16, top: 8, bottom: 4 }}>
            <CartesianGrid stroke={c.grid} />
            <XAxis dataKey="t" type="number" domain={['dataMin', 'dataMax']} tick={tick} stroke={c.grid} tickFormatter={(t: number) => formatTime(t).slice(5, 16)} />
            <YAxis tick={tick} stroke={c.grid} tickFormatter={(v: number) => formatDuration(v)} width={70} />
            <Tooltip labelFormatter={(t) => formatTime(Number(t))} formatter={(v) => formatDuration(Number(v))} contentStyle={{ background: c.panel, borderColor: c.grid, color: c.fg }} />
            <Line dataKey="duration" stroke={c.accent} isAnimationActive={false} dot={dot} connectNulls />
          </LineChart>
        </ResponsiveContainer>
      </figure>
      <figure className="chart-card" data-testid="chart-pipeline-blame">
        <figcaption>Blame score</figcaption>
        <ResponsiveContainer width="100%" height={200}>
          <LineChart data={data} margin={{ left: 8, right: 16, top: 8, bottom: 4 }}>
            <CartesianGrid stroke={c.grid} />
            <XAxis dataKey="t" type="number" domain={['dataMin', 'dataMax']} tick={tick} stroke={c.grid} tickFormatter={(t: number) => formatTime(t).slice(5, 16)} />
            <YAxis domain={[0, 1]} tick={tick} stroke={c.grid} width={70} />
            <Tooltip labelFormatter={(t) => formatTime(Number(t))} formatter={(v) => (v === null ? '—' : Number(v).toFixed(2))} contentStyle={{ background: c.panel, borderColor: c.grid, color: c.fg }} />
            <Line dataKey="blame" stroke={c.warn} isAnimationActive={false} dot={dot} connectNulls />
          </LineChart>
        </ResponsiveContainer>
      </figure>
    </div>
  );
}
