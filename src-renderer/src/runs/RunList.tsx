import { useVirtualizer } from '@tanstack/react-virtual';
import { useRef } from 'react';
import type { RunSummary } from '../../../src-shared/model';
import { TraceText } from '../common/TraceText';
import { act, openRun, setRunsQuery, toggleComparePick, useUi } from '../state/ui-store';
import { formatDuration, formatScore, formatTime, shortId } from '../text/format';
import { runHealth } from './run-health';

const ROW_HEIGHT = 30;

export function RunList({ runs }: { runs: RunSummary[] }) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const comparePick = useUi((s) => s.comparePick);
  const virtualizer = useVirtualizer({
    count: runs.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
  });
  return (
    <div className="table run-table" role="table" aria-label="Runs" aria-rowcount={runs.length}>
      <div className="table-head run-row" role="row">
        <span role="columnheader" title="Tick two runs to compare">⇄</span>
        <span role="columnheader">Status</span>
        <span role="columnheader">Pipeline</span>
        <span role="columnheader">Run</span>
        <span role="columnheader">Started</span>
        <span role="columnheader" className="num">Duration</span>
        <span role="columnheader" className="num">Steps</span>
        <span role="columnheader">Verdict</span>
        <span role="columnheader" className="num">Blame</span>
        <span role="columnheader">Tags</span>
      </div>
      <div className="table-body" ref={scrollRef}>
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((item) => {
            const run = runs[item.index];
            const health = runHealth(run);
            return (
              <div
                key={run.run_id}
                role="row"
                className={`run-row health-${health}`}
                data-run-id={run.run_id}
                style={{ position: 'absolute', top: 0, left: 0, right: 0, height: ROW_HEIGHT, transform: `translateY(${item.start}px)` }}
                onClick={() => act(openRun, run.run_id)}
              >
                <span role="cell" onClick={(e) => e.stopPropagation()}>
                  <input
                    type="checkbox"
                    aria-label={`Pick run ${run.run_id} for comparison`}
                    checked={comparePick.includes(run.run_id)}
                    onChange={() => act(toggleComparePick, run.run_id)}
                  />
                </span>
                <span role="cell">
                  <span className={`status-pill status-${health}`}>{health}</span>
                </span>
                <span role="cell" className="ellipsis-cell">
                  <button
                    type="button"
                    className="link-button"
                    title="Show only this pipeline"
                    onClick={(e) => {
                      e.stopPropagation();
                      act(setRunsQuery, { pipeline: run.pipeline });
                    }}
                  >
                    <TraceText text={run.pipeline} truncateAt={80} />
                  </button>
                </span>
                <span role="cell" className="mono ellipsis-cell">
                  <a
                    href={`#/run/${encodeURIComponent(run.run_id)}`}
                    className="run-link"
                    onClick={(e) => {
                      e.preventDefault();
                    }}
                    title={run.run_id}
                  >
                    {shortId(run.run_id)}
                  </a>
                </span>
                <span role="cell" className="mono muted">
                  {formatTime(run.started_at)}
                </span>
                <span role="cell" className="num mono">
                  {formatDuration(run.duration_ms)}
                </span>
                <span role="cell" className="num mono">
                  {run.steps.toLocaleString('en-US')}
                </span>
                <span role="cell" className="ellipsis-cell">
                  {run.verdict ? (
                    <span className={run.verdict.pass ? 'verdict-pass' : 'verdict-fail'} title={run.verdict.detail ?? ''}>
                      {run.verdict.pass ? 'pass' : 'fail'}
                      {run.verdict.detail ? (
                        <span className="muted">
                          {' '}
                          · <TraceText text={run.verdict.detail} truncateAt={120} />
                        </span>
                      ) : null}
                    </span>
                  ) : (
                    <span className="muted">—</span>
                  )}
                </span>
                <span role="cell" className="num">
                  <BlameBar score={run.blame_score ?? null} />
                </span>
                <span role="cell" className="tags">
                  {run.forked && <span className="badge">forked</span>}
                  {run.source_format !== 'native' && <span className="badge">{run.source_format}</span>}
                </span>
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}

function BlameBar({ score }: { score: number | null }) {
  if (score === null) return <span className="muted mono">—</span>;
  const pct = Math.max(0, Math.min(1, score)) * 100;
  return (
    <span className={`blame-bar${score >= 0.5 ? ' blame-high' : score >= 0.3 ? ' blame-mid' : ''}`} title={`blame score ${formatScore(score)}`}>
      <span className="blame-bar-track">
        <span className="blame-bar-fill" style={{ width: `${pct}%` }} />
      </span>
      <span className="mono">{formatScore(score)}</span>
    </span>
  );
}
