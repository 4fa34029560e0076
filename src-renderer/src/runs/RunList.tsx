import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { RunSummary } from '../../../src-shared/model';
import { runState } from '../../../src-shared/run-state';
import { RunStatePill } from '../common/RunStatePill';
import { revealControls } from '../text/visible-controls';
import { act, setRunsQuery, toggleComparePick, useUi } from '../state/ui-store';
import { useOpenListedRun } from '../workbench/use-run-model';
import { formatDuration, formatScore, formatTime } from '../text/format';
import { useShortRunId } from './use-short-ids';

const ROW_HEIGHT = 30;

/**
 * Trace text for a one-line cell: controls made visible, cut with an ellipsis,
 * the whole text in the cell's title. No "show all" button: a row keeps one tab stop.
 */
function clip(text: string, max: number): string {
  const shown = revealControls(text)
    .map((p) => p.text)
    .join('');
  return shown.length > max ? `${shown.slice(0, max - 1)}…` : shown;
}

/**
 * The runs as a virtualized table. Keyboard: one tab stop for the whole list
 * (roving tabindex: the active row holds it), ↑/↓ (Home/End, PageUp/PageDown)
 * move, Enter opens the run, Space ticks it for comparison.
 */
export function RunList({ runs }: { runs: RunSummary[] }) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const comparePick = useUi((s) => s.comparePick);
  const shortRunId = useShortRunId();
  const open = useOpenListedRun();
  const [active, setActive] = useState(0);
  const focusAfterMove = useRef(false);
  const virtualizer = useVirtualizer({
    count: runs.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
  });
  const current = Math.min(active, runs.length - 1);

  // Focus follows the active row once the virtualizer has rendered it.
  useEffect(() => {
    if (!focusAfterMove.current) return;
    const row = scrollRef.current?.querySelector<HTMLElement>(`[data-row-index="${current}"]`);
    if (row) {
      row.focus({ preventScroll: true });
      focusAfterMove.current = false;
    }
  });

  const move = (to: number) => {
    const next = Math.max(0, Math.min(runs.length - 1, to));
    setActive(next);
    focusAfterMove.current = true;
    virtualizer.scrollToIndex(next, { align: 'auto' });
  };
  const page = Math.max(1, Math.floor((scrollRef.current?.clientHeight ?? 300) / ROW_HEIGHT) - 1);
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const run = runs[current];
    if (!run) return;
    const keys: Record<string, () => void> = {
      ArrowDown: () => move(current + 1),
      ArrowUp: () => move(current - 1),
      Home: () => move(0),
      End: () => move(runs.length - 1),
      PageDown: () => move(current + page),
      PageUp: () => move(current - page),
      Enter: () => open(run),
      ' ': () => act(toggleComparePick, run.run_id),
    };
    const handler = keys[e.key];
    if (!handler || (e.target as HTMLElement).tagName === 'INPUT') return;
    e.preventDefault();
    handler();
  };

  return (
    <div className="table run-table" role="grid" aria-label="Runs" aria-rowcount={runs.length + 1} onKeyDown={onKeyDown}>
      <div className="table-head run-row" role="row">
        <span role="columnheader" title="Tick two runs to compare (Space on a row)">⇄</span>
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
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }} role="rowgroup">
          {virtualizer.getVirtualItems().map((item) => {
            const run = runs[item.index];
            const state = runState(run);
            const problems = run.import_problems ?? { errors: 0, warnings: 0 };
            const nProblems = problems.errors + problems.warnings;
            return (
              <div
                key={run.run_id}
                role="row"
                aria-rowindex={item.index + 2}
                aria-selected={comparePick.includes(run.run_id)}
                tabIndex={item.index === current ? 0 : -1}
                className={`run-row health-${state.state}${item.index === current ? ' is-active' : ''}`}
                data-run-id={run.run_id}
                data-row-index={item.index}
                style={{ position: 'absolute', top: 0, left: 0, right: 0, height: ROW_HEIGHT, transform: `translateY(${item.start}px)` }}
                onClick={() => open(run)}
                onFocus={() => setActive(item.index)}
              >
                <span role="gridcell" onClick={(e) => e.stopPropagation()}>
                  <input
                    type="checkbox"
                    tabIndex={-1}
                    aria-label={`Pick run ${run.run_id} for comparison`}
                    checked={comparePick.includes(run.run_id)}
                    onChange={() => act(toggleComparePick, run.run_id)}
                  />
                </span>
                <span role="gridcell">
                  <RunStatePill state={state} />
                </span>
                <span role="gridcell" className="ellipsis-cell">
                  <button
                    type="button"
                    tabIndex={-1}
                    className="link-button ellipsis-cell"
                    title={`Show only pipeline "${run.pipeline}"`}
                    onClick={(e) => {
                      e.stopPropagation();
                      act(setRunsQuery, { pipeline: run.pipeline });
                    }}
                  >
                    {clip(run.pipeline, 80)}
                  </button>
                </span>
                <span role="gridcell" className="mono ellipsis-cell" title={run.run_id}>
                  {shortRunId(run.run_id)}
                </span>
                <span role="gridcell" className="mono muted">
                  {formatTime(run.started_at)}
                </span>
                <span role="gridcell" className="num mono">
                  {formatDuration(run.duration_ms)}
                </span>
                <span role="gridcell" className="num mono">
                  {run.steps.toLocaleString('en-US')}
                </span>
                <span role="gridcell" className="ellipsis-cell">
                  {run.verdict ? (
                    <span className={run.verdict.pass ? 'verdict-pass' : 'verdict-fail'} title={run.verdict.detail ?? ''}>
                      {run.verdict.pass ? 'pass' : 'fail'}
                      {run.verdict.detail ? (
                        <span className="muted">
                          {' '}
                          · {clip(run.verdict.detail, 120)}
                        </span>
                      ) : null}
                    </span>
                  ) : (
                    <span className="muted">—</span>
                  )}
                </span>
                <span role="gridcell" className="num">
                  <BlameBar score={run.blame_score ?? null} />
                </span>
                <span role="gridcell" className="tags">
                  {nProblems > 0 && (
                    <span
                      className={`badge ${problems.errors ? 'badge-bad' : 'badge-warn'}`}
                      data-testid="run-import-marker"
                      title={`Its trace file had ${problems.errors} import error(s) and ${problems.warnings} warning(s); open the run to see them with file:line`}
                    >
                      ⚠ {nProblems} import
                    </span>
                  )}
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
  if (score === null) {
    return (
      <span className="muted mono" title="not blamed yet: a running run is blamed when it ends, a run of more than 100,000 steps when it is opened">
        —
      </span>
    );
  }
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
