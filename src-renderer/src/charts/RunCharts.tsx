import { Bar, BarChart, CartesianGrid, Cell, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { useMemo } from 'react';
import type { BlameResult } from '../../../src-shared/analysis';
import type { Step } from '../../../src-shared/model';
import { stepRoles } from '../../../src-shared/run-state';
import { act, selectStep } from '../state/ui-store';
import { formatDuration } from '../text/format';
import { revealControls } from '../text/visible-controls';
import { useThemeColors } from './use-theme-colors';

/** A bar per step stops being readable past this; the slowest/worst are the ones that matter. */
const MAX_BARS = 40;
/** A label of this many characters fits the 190 px axis at 11 px; longer ones are cut (full name in the tooltip), never wrapped onto the next bar. */
const LABEL_CHARS = 26;

function label(text: string): string {
  const s = revealControls(text)
    .map((p) => p.text)
    .join('');
  return s.length > LABEL_CHARS ? `${s.slice(0, LABEL_CHARS - 1)}…` : s;
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
  // Blamed steps lead and are drawn red whatever their scorers said: on a failed run whose checks all
  // passed, an all-green chart contradicted the blame panel.
  const roles = useMemo(() => stepRoles(blame), [blame]);
  const scores = useMemo(() => {
    const rank = (id: string) => (roles.get(id) === 'blamed' ? 0 : roles.get(id) === 'co-blamed' ? 1 : 2);
    return (blame?.step_scores ?? [])
      .filter((s) => s.score !== null || rank(s.step_id) < 2)
      .sort((a, b) => rank(a.step_id) - rank(b.step_id) || (a.score ?? 0) - (b.score ?? 0))
      .slice(0, MAX_BARS)
      .map((s) => {
        const role = roles.get(s.step_id);
        const blamed = role === 'blamed' || role === 'co-blamed';
        return { id: s.step_id, name: label(`${blamed ? `[${role}] ` : ''}${s.name} #${s.index}`), score: s.score ?? 0, role: blamed ? role : null };
      });
  }, [blame, roles]);
  // A wide text box: recharts wraps a tick label at its width, and a wrapped label overlaps the next bar.
  const tick = { fill: c.muted, fontSize: 11, width: 1000 };
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
          Step health scores <span className="muted">(blamed steps first, in red; then lowest first; 0 = certainly bad)</span>
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
              <Bar dataKey="score" name="score" minPointSize={4} isAnimationActive={false} onClick={(d) => act(selectStep, (d as unknown as { id: string }).id)}>
                {scores.map((d) => (
                  <Cell key={d.id} fill={d.role === 'blamed' || d.score < 0.5 ? c.bad : d.role === 'co-blamed' || d.score < 0.8 ? c.warn : c.good} cursor="pointer" />
                ))}
              </Bar>
            </BarChart>
          </ResponsiveContainer>
        )}
      </figure>
    </div>
  );
}
