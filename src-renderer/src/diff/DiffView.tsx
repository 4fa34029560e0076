import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { DiffResult, DiffRow } from '../../../src-shared/analysis';
import type { Step } from '../../../src-shared/model';
import { useEngineQuery } from '../api/use-engine-query';
import { ErrorNote } from '../common/ErrorNote';
import { JsonView } from '../common/JsonView';
import { TraceText } from '../common/TraceText';
import { runState } from '../../../src-shared/run-state';
import { RunId } from '../common/RunId';
import { useShortRunId } from '../runs/use-short-ids';
import { inputsDiffer, openingKey } from './diff-order';
import type { Route } from '../state/route';
import { act, openDiff, openRun, selectDiffRow } from '../state/ui-store';
import { formatDelta, formatScore, formatTime } from '../text/format';
import { changedPaths } from '../text/json-diff';

const ROW_HEIGHT = 26;

export function DiffView({ route }: { route: Extract<Route, { view: 'diff' }> }) {
  const runs = useEngineQuery('listRuns', { limit: 5000 });
  const { runA, runB } = route;
  const diff = useEngineQuery('diffRuns', runA && runB ? { runA, runB } : null);
  const options = useMemo(() => [...(runs.data ?? [])].sort((a, b) => b.started_at - a.started_at), [runs.data]);
  const shortRunId = useShortRunId();

  const picker = (side: 'a' | 'b', value: string | null) => (
    <label className="field">
      <span>{side === 'a' ? 'Baseline (A)' : 'Candidate (B)'}</span>
      <select
        aria-label={side === 'a' ? 'Baseline run' : 'Candidate run'}
        value={value ?? ''}
        onChange={(e) => act(openDiff, side === 'a' ? e.target.value || null : runA, side === 'b' ? e.target.value || null : runB)}
      >
        <option value="">choose a run…</option>
        {value && !options.some((r) => r.run_id === value) && <option value={value}>{value}</option>}
        {options.map((r) => (
          <option key={r.run_id} value={r.run_id}>
            {r.pipeline.slice(0, 40)} · {shortRunId(r.run_id)} · {formatTime(r.started_at)} · {runState(r).label}
          </option>
        ))}
      </select>
    </label>
  );

  return (
    <div className="diff-view" data-testid="diff-view">
      <div className="toolbar">
        <h2 className="view-title">Compare runs</h2>
        {picker('a', runA)}
        <button type="button" className="button ghost" title="Swap the baseline (A) and the candidate (B)" onClick={() => act(openDiff, runB, runA)} disabled={!runA && !runB}>
          ⇄ swap
        </button>
        {picker('b', runB)}
      </div>
      {!(runA && runB) && <div className="empty">Choose two runs to compare, or tick two runs in the runs list.</div>}
      {diff.error && <ErrorNote error={diff.error} />}
      {diff.data && <DiffBody diff={diff.data} selectedKey={route.key} />}
    </div>
  );
}

function DiffBody({ diff, selectedKey }: { diff: DiffResult; selectedKey: string | null }) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const [changedOnly, setChangedOnly] = useState(false);
  const rows = useMemo(() => (changedOnly ? diff.rows.filter((r) => r.change !== 'same' || (r.delta !== null && Math.abs(r.delta) >= 0.005)) : diff.rows), [diff.rows, changedOnly]);
  const virtualizer = useVirtualizer({ count: rows.length, getScrollElement: () => scrollRef.current, estimateSize: () => ROW_HEIGHT, overscan: 12 });
  const focusKey = openingKey(diff, selectedKey);
  const chosen = diff.rows.find((r) => r.key === focusKey) ?? null;
  const focusIndex = rows.findIndex((r) => r.key === focusKey);
  // Open where the runs part (the regressed step, else the first divergence), not at row 0; later
  // selections only scroll when the row is out of view.
  const opened = useRef<string | null>(null);
  useEffect(() => {
    if (focusIndex < 0) return;
    const pair = `${diff.run_a}|${diff.run_b}`;
    virtualizer.scrollToIndex(focusIndex, { align: opened.current === pair ? 'auto' : 'center' });
    opened.current = pair;
  }, [focusIndex, virtualizer, diff.run_a, diff.run_b]);
  const a = useEngineQuery('getRun', { runId: diff.run_a });
  const b = useEngineQuery('getRun', { runId: diff.run_b });
  const differentInputs = a.data && b.data ? inputsDiffer(a.data.run.input, b.data.run.input) : null;
  const nChanged = diff.rows.filter((r) => r.change !== 'same').length;
  return (
    <div className="diff-body">
      <div className="diff-heads">
        <span>
          <span className="side-tag">A · baseline</span> <RunId id={diff.run_a} copy />
        </span>
        <span>
          <span className="side-tag">B · candidate</span> <RunId id={diff.run_b} copy />
        </span>
        <span className="toolbar-spacer" />
        <label className="check-field">
          <input type="checkbox" checked={changedOnly} onChange={(e) => setChangedOnly(e.target.checked)} /> changed only{' '}
          <span className="muted">
            ({nChanged} of {diff.rows.length})
          </span>
        </label>
      </div>
      {differentInputs && (
        <div className="verdict-banner unknown" role="note" data-testid="diff-inputs-differ">
          <strong>The two runs were given different inputs.</strong> Differences below may come from the input, not from a change to the pipeline.
        </div>
      )}
      <div className={`verdict-banner diff-${diff.verdict}`} data-testid="diff-verdict">
        <strong>{diff.verdict === 'regression' ? 'Regression' : diff.verdict === 'improvement' ? 'Improvement' : 'No significant change'}</strong>
        {diff.step && (
          <>
            {' '}
            at <span className="mono">{diff.step.name}</span>
          </>
        )}
        {' — '}
        <TraceText text={diff.reason} truncateAt={600} />
        {diff.first_divergence && (
          <div className="small">
            {diff.first_divergence.kind === 'content' ? 'Runs first differ at' : 'Structure diverges first at'}{' '}
            <span className="mono">{diff.first_divergence.key}</span>:{' '}
            <TraceText text={diff.first_divergence.description} truncateAt={400} />
          </div>
        )}
      </div>
      <div className="diff-split">
        <div className="table diff-table" role="table" aria-label="Aligned steps">
          <div className="table-head diff-row" role="row">
            <span role="columnheader">Step (aligned by replay key)</span>
            <span role="columnheader" className="num">A</span>
            <span role="columnheader" className="num">B</span>
            <span role="columnheader" className="num">Δ score</span>
            <span role="columnheader">Change</span>
          </div>
          <div className="table-body" ref={scrollRef}>
            <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
              {virtualizer.getVirtualItems().map((item) => {
                const row = rows[item.index];
                const regressed = diff.step?.key === row.key;
                const divergent = diff.first_divergence?.key === row.key;
                return (
                  <div
                    key={row.key}
                    role="row"
                    data-key={row.key}
                    className={`diff-row change-${row.change}${regressed ? ` verdict-${diff.verdict}` : ''}${divergent ? ' divergence' : ''}${row.key === focusKey ? ' is-selected' : ''}`}
                    style={{ position: 'absolute', top: 0, left: 0, right: 0, height: ROW_HEIGHT, transform: `translateY(${item.start}px)` }}
                    onClick={() => act(selectDiffRow, row.key)}
                  >
                    <span role="cell" className="ellipsis-cell diff-step" title={row.key}>
                      <span style={{ width: keyDepth(row.key) * 12 }} className="diff-indent" />
                      <span className={`type-tag type-${(row.b ?? row.a)!.type}`}>{(row.b ?? row.a)!.type}</span>{' '}
                      <TraceText text={(row.b ?? row.a)!.name} truncateAt={80} />
                      <span className="muted mono small"> {keyOccurrence(row.key)}</span>
                      {divergent && <span className="badge badge-warn">diverges here</span>}
                    </span>
                    <SideCell side={row.a} />
                    <SideCell side={row.b} />
                    <span role="cell" className={`num mono delta ${deltaClass(row.delta)}`}>
                      {formatDelta(row.delta)}
                    </span>
                    <span role="cell" className="diff-badges">
                      <span className={`badge change-badge-${row.change}`}>{row.change}</span>
                      {regressed && <span className={`badge verdict-badge-${diff.verdict}`}>{diff.verdict}</span>}
                    </span>
                  </div>
                );
              })}
            </div>
          </div>
        </div>
        {chosen && <SideBySide row={chosen} runA={diff.run_a} runB={diff.run_b} />}
      </div>
    </div>
  );
}

function deltaClass(delta: number | null): string {
  if (delta === null || Math.abs(delta) < 0.005) return '';
  return delta < 0 ? 'delta-bad' : 'delta-good';
}

/** Replay keys look like "/parent#0/child#2": depth is the number of segments. */
function keyDepth(key: string): number {
  return Math.max(0, key.split('/').filter(Boolean).length - 1);
}

function keyOccurrence(key: string): string {
  const tail = key.split('/').pop() ?? '';
  const hash = tail.lastIndexOf('#');
  return hash >= 0 && tail.slice(hash) !== '#0' ? tail.slice(hash) : '';
}

function SideCell({ side }: { side: DiffRow['a'] }) {
  if (!side) {
    return (
      <span role="cell" className="num muted">
        absent
      </span>
    );
  }
  return (
    <span role="cell" className="num mono" title={`${side.name} · ${side.status}`}>
      {side.status === 'error' && <span className="badge badge-bad">error</span>}
      {formatScore(side.score)}
    </span>
  );
}

function SideBySide({ row, runA, runB }: { row: DiffRow; runA: string; runB: string }) {
  const a = useEngineQuery('getRun', { runId: runA });
  const b = useEngineQuery('getRun', { runId: runB });
  const stepA = row.a ? a.data?.steps.find((s) => s.step_id === row.a!.step_id) : undefined;
  const stepB = row.b ? b.data?.steps.find((s) => s.step_id === row.b!.step_id) : undefined;
  return (
    <div className="side-by-side" data-testid="side-by-side">
      <div className="pane-head">
        <span className="pane-title mono">{row.key}</span>
        <span className="muted small">differing values are marked</span>
      </div>
      <div className="side-columns">
        <StepTexts label="A" runId={runA} step={stepA} other={stepB} loading={a.loading && !a.data} />
        <StepTexts label="B" runId={runB} step={stepB} other={stepA} loading={b.loading && !b.data} />
      </div>
    </div>
  );
}

function StepTexts({ label, runId, step, other, loading }: { label: string; runId: string; step: Step | undefined; other: Step | undefined; loading: boolean }) {
  const changedInput = useMemo(() => (step && other ? changedPaths(step.input, other.input) : undefined), [step, other]);
  const changedOutput = useMemo(() => (step && other ? changedPaths(step.output, other.output) : undefined), [step, other]);
  return (
    <div className="side-column">
      <div className="side-label">
        {label}{' '}
        <button type="button" className="link-button" title={`Open run ${runId}`} onClick={() => act(openRun, runId, step?.step_id ?? null)}>
          <RunId id={runId} />
        </button>
      </div>
      {loading ? (
        <div className="muted">loading…</div>
      ) : !step ? (
        <div className="muted">This step does not exist in run {label}.</div>
      ) : (
        <>
          {step.error && (
            <div className="error-block trace-text">
              <strong>
                <TraceText text={step.error.type} truncateAt={200} />
              </strong>
              : <TraceText text={step.error.message} />
            </div>
          )}
          <div className="side-field">input</div>
          {step.input === null ? <span className="muted">none</span> : <JsonView value={step.input} needles={[]} changed={changedInput} />}
          <div className="side-field">output</div>
          {step.output === null ? <span className="muted">none</span> : <JsonView value={step.output} needles={[]} changed={changedOutput} />}
        </>
      )}
    </div>
  );
}
