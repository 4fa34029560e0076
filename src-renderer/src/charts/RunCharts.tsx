import { Bar, BarChart, CartesianGrid, Cell, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { useMemo } from 'react';
import type { BlameResult } from '../../../src-shared/analysis';
import type { Step } from '../../../src-shared/model';
import { act, selectStep } from '../state/ui-store';
import { formatDuration } from '../text/format';
import { revealControls } from '../text/visible-controls';
import { useThemeColors } from './use-theme-colors';

/** A bar per step stops being readable past this; the slowest/worst are the ones that matter. */
const MAX_BARS = 40;

function label(text: string): string {
  const s = revealControls(text)
    .map((p) => p.text)
    .join('');
  return s.length > 28 ? `${s.slice(0, 27)}…` : s;
}

export function RunCharts({ steps, blame }: { steps: Step[]; blame: BlameResult | undefined }) {
  const c = useThemeColors();
  const latency = useMemo(
    () =>
      steps
        .filter((s) => s.duration_ms !== null)
        .sort((a, b) => (b.duration_ms ?? 0) - (a.duration_ms ?? 0))
        .slice(0, MAX_BARS)
        .map((s) => ({ id: s.step_id, name: label(`${s.name} #${s.index}`), ms: s.duration_ms ?? 0, error: s.status === 'error' })),
    [steps],
  );
  const scores = useMemo(
    () =>
      (blame?.step_scores ?? [])
        .filter((s) => s.score !== null)
        .sort((a, b) => (a.score ?? 0) - (b.score ?? 0))
        .slice(0, MAX_BARS)
        .map((s) => ({ id: s.step_id, name: label(`${s.name} #${s.index}`), score: s.score ?? 0 })),
    [blame],
  );
  const tick = { fill: c.muted, fontSize: 11 };
  return (
    <div className="charts-grid">
      <figure className="chart-card" data-testid="chart-latency">
        <figcaption>
          Step latency <span className="muted">({latency.length < steps.length ? `slowest ${latency.length} of ${steps.length}` : `${latency.length} steps`})</span>
        </figcaption>
        <ResponsiveContainer width="100%" height={Math.max(160, latency.length * 18 + 40)}>
          <BarChart data={latency} layout="vertical" margin={{ left: 8, right: 16, top: 4, bottom: 4 }}>
            <CartesianGrid stroke={c.grid} horizontal={false} />
            <XAxis type="number" tick={tick} stroke={c.grid} tickFormatter={(v: number) => formatDuration(v)} />
            <YAxis type="category" dataKey="name" width={190} tick={tick} stroke={c.grid} interval={0} />
            <Tooltip
              formatter={(v) => formatDuration(Number(v))}
              contentStyle={{ background: c.panel, borderColor: c.grid, color: c.fg }}
              cursor={{ fill: c.grid, opacity: 0.3 }}
            />
            <Bar dataKey="ms" name="duration" isAnimationActive={false} onClick={(d) => act(selectStep, (d as unknown as { id: string }).id)}>
              {latency.map((d) => (
                <Cell key={d.id} fill={d.error ? c.bad : c.accent} cursor="pointer" />
              ))}
            </Bar>
          </BarChart>
        </ResponsiveContainer>
      </figure>
      <figure className="chart-card" data-testid="chart-scores">
        <figcaption>
          Step health scores <span className="muted">(lowest first; 0 = certainly bad)</span>
        </figcaption>
        {scores.length === 0 ? (
          <div className="muted pad">{blame ? 'No step was scored.' : 'Scoring…'}</div>
        ) : (
          <ResponsiveContainer width="100%" height={Math.max(160, scores.length * 18 + 40)}>
            <BarChart data={scores} layout="vertical" margin={{ left: 8, right: 16, top: 4, bottom: 4 }}>
              <CartesianGrid stroke={c.grid} horizontal={false} />
              <XAxis type="number" domain={[0, 1]} tick={tick} stroke={c.grid} />
              <YAxis type="category" dataKey="name" width={190} tick={tick} stroke={c.grid} interval={0} />
              <Tooltip formatter={(v) => Number(v).toFixed(2)} contentStyle={{ background: c.panel, borderColor: c.grid, color: c.fg }} cursor={{ fill: c.grid, opacity: 0.3 }} />
              <Bar dataKey="score" name="score" isAnimationActive={false} onClick={(d) => act(selectStep, (d as unknown as { id: string }).id)}>
                {scores.map((d) => (
                  <Cell key={d.id} fill={d.score < 0.5 ? c.bad : d.score < 0.8 ? c.warn : c.good} cursor="pointer" />
                ))}
              </Bar>
            </BarChart>
          </ResponsiveContainer>
        )}
      </figure>
    </div>
  );
}
