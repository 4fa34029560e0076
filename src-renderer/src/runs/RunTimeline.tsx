import { useVirtualizer } from '@tanstack/react-virtual';
import { useMemo, useRef } from 'react';
import type { RunSummary } from '../../../src-shared/model';
import { TraceText } from '../common/TraceText';
import { useOpenListedRun } from '../workbench/use-run-model';
import { formatDuration, formatTime } from '../text/format';
import { runState } from '../../../src-shared/run-state';
import { useShortRunId } from './use-short-ids';
import { timelineRows } from './sort-runs';
import { tickLabel, timelineScale, timelineTicks } from './timeline-scale';

const ROW_HEIGHT = 24;

/** One row per run, time across (long idle gaps cut out, timeline-scale.ts), grouped by pipeline. */
export function RunTimeline({ runs }: { runs: RunSummary[] }) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const { rows, start, end } = useMemo(() => timelineRows(runs), [runs]);
  const span = end - start;
  const shortRunId = useShortRunId();
  const open = useOpenListedRun();
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 16,
  });
  const scale = useMemo(() => timelineScale(runs.map((r) => ({ from: r.started_at, to: r.started_at + (r.duration_ms ?? 0) })), start, end), [runs, start, end]);
  const ticks = useMemo(() => timelineTicks(scale), [scale]);
  const multiDay = new Date(start).toDateString() !== new Date(end).toDateString();
  return (
    <div className="timeline" aria-label="Runs timeline">
      <div className="timeline-axis">
        <span className="timeline-label-col" />
        <span className="timeline-track">
          {ticks.map((t, i) => (
            <span key={i} className={`timeline-tick${scale.breaks.some((b) => b.to === t) ? ' after-break' : ''}`} style={{ left: `${scale.x(t)}%` }}>
              {tickLabel(t, span, multiDay)}
            </span>
          ))}
          {scale.breaks.map((b) => (
            <span
              key={b.from}
              className="timeline-break"
              data-testid="timeline-break"
              style={{ left: `${b.left}%`, width: `${b.width}%` }}
              title={`No run from ${formatTime(b.from)} to ${formatTime(b.to)}: ${formatDuration(b.to - b.from)} left out of the axis`}
              aria-label={`${formatDuration(b.to - b.from)} without runs, left out`}
            >
              ⋯
            </span>
          ))}
        </span>
      </div>
      <div className="timeline-body" ref={scrollRef}>
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((item) => {
            const row = rows[item.index];
            const style = { position: 'absolute' as const, top: 0, left: 0, right: 0, height: ROW_HEIGHT, transform: `translateY(${item.start}px)` };
            if (row.kind === 'group') {
              return (
                <div key={`g:${row.pipeline}`} className="timeline-group" style={style}>
                  <TraceText text={row.pipeline} truncateAt={120} /> <span className="muted">· {row.count} runs</span>
                </div>
              );
            }
            const run = row.run;
            const left = scale.x(run.started_at);
            const width = Math.max(scale.x(run.started_at + (run.duration_ms ?? 0)) - left, 0.25);
            const health = runState(run).state;
            return (
              <div key={run.run_id} className="timeline-row" style={style} data-run-id={run.run_id} onClick={() => open(run)}>
                <span className="timeline-label-col mono" title={run.run_id}>
                  {shortRunId(run.run_id)} <span className="muted">{formatDuration(run.duration_ms)}</span>
                </span>
                <span className="timeline-track">
                  {scale.breaks.map((b) => (
                    <span key={b.from} className="timeline-break-band" style={{ left: `${b.left}%`, width: `${b.width}%` }} />
                  ))}
                  <span
                    className={`timeline-bar bar-${health}`}
                    style={{ left: `${left}%`, width: `${Math.min(width, 100 - left)}%` }}
                    title={`${run.run_id} · ${health} · ${formatTime(run.started_at)} · ${formatDuration(run.duration_ms)}`}
                  />
                </span>
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}
