import { memo, useEffect, useMemo, useRef, useState, type KeyboardEvent, type PointerEvent as ReactPointerEvent } from 'react';
import { STEP_ROW_HEIGHT, useStepRows } from '../workbench/use-step-rows';
import type { Step } from '../../../src-shared/model';
import { stepLook, type StepLook } from '../graph/step-look';
import { visibleRows } from '../graph/step-tree';
import { act, selectStep, setExpanded, setExpandedMany } from '../state/ui-store';
import { formatDuration } from '../text/format';
import { revealControls } from '../text/visible-controls';
import type { RunModel } from '../workbench/use-run-model';
import { WaterfallMinimap } from './WaterfallMinimap';
import { axisTicks, barGeometry, endOf, formatOffset, rangeFromDrag, runSpan, type TimeRange } from './time-axis';
import './waterfall.css';

/** Drags narrower than this (fraction of the axis) are clicks, not zooms. */
const MIN_DRAG = 0.004;

function plain(text: string): string {
  return revealControls(text)
    .map((p) => p.text)
    .join('');
}

function tokensOf(step: Step): number | null {
  const u = step.usage;
  if (!u) return null;
  const total = u.total_tokens ?? (u.input_tokens ?? 0) + (u.output_tokens ?? 0);
  return total > 0 ? total : null;
}

/**
 * The run as a span timeline: one row per step in tree order (sharing the step
 * list's expansion), bars on one time axis, errors red and the blamed step
 * marked as in the blame panel. Rows are virtualized, so 100,000 steps scroll.
 */
export function Waterfall({ model, selected }: { model: RunModel; selected: string | null }) {
  const { tree, expanded, blameIndex } = model;
  const span = useMemo(() => runSpan(tree?.steps ?? []), [tree]);
  const [view, setView] = useState<TimeRange | null>(null);
  const shown = view ?? span;
  const rows = useMemo(() => (tree ? visibleRows(tree, expanded) : []), [tree, expanded]);
  const { scrollRef, virtualizer, selectedIndex } = useStepRows(rows, selected);
  // About one labelled tick per 90 px of axis, so that labels never collide.
  const rootRef = useRef<HTMLDivElement>(null);
  const [axisWidth, setAxisWidth] = useState(600);
  useEffect(() => {
    const el = rootRef.current?.querySelector('.wf-axis');
    if (!el) return;
    const ro = new ResizeObserver(() => setAxisWidth(el.clientWidth));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  const ticks = useMemo(() => axisTicks(shown, span.from, Math.max(2, Math.floor(axisWidth / 90))), [shown, span.from, axisWidth]);

  if (!tree) return null;

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (!rows.length) return;
    const row = rows[selectedIndex];
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const next = selectedIndex < 0 ? 0 : Math.max(0, Math.min(rows.length - 1, selectedIndex + (e.key === 'ArrowDown' ? 1 : -1)));
      act(selectStep, rows[next].id);
    } else if (row && (e.key === 'ArrowRight' || e.key === 'ArrowLeft')) {
      e.preventDefault();
      if (row.hasChildren && row.expanded !== (e.key === 'ArrowRight')) act(setExpanded, row.id, e.key === 'ArrowRight');
      else if (e.key === 'ArrowLeft' && tree.parentOf(row.id)) act(selectStep, tree.parentOf(row.id)!);
    }
  };

  return (
    <div className="waterfall" ref={rootRef} data-testid="waterfall" data-row-count={rows.length}>
      <div className="wf-toolbar">
        <span className="muted small">
          {view
            ? `Showing ${formatOffset(shown.from - span.from, 1)} – ${formatOffset(shown.to - span.from, 1)} of ${formatDuration(span.to - span.from)}`
            : `Whole run · ${formatDuration(span.to - span.from)}`}
          {' · drag on the axis or the overview to zoom'}
        </span>
        <span className="toolbar-spacer" />
        <button type="button" className="mini-button" onClick={() => act(setExpandedMany, parentsOf(tree), true)} title="Open every step (rows stay virtualized, so even 100,000 scroll)">
          Expand all
        </button>
        <button type="button" className="mini-button" onClick={() => act(setExpandedMany, parentsOf(tree), false)}>
          Collapse all
        </button>
        <button type="button" className="mini-button" disabled={!view} onClick={() => setView(null)} data-testid="waterfall-reset">
          Reset zoom
        </button>
      </div>
      <WaterfallMinimap steps={tree.steps} span={span} view={shown} onRange={(r) => setView(r.from <= span.from && r.to >= span.to ? null : r)} />
      <div className="wf-head">
        <div className="wf-label-col">
          <span className="wf-head-name">Step</span>
          <span className="wf-num">duration</span>
          <span className="wf-num">tokens</span>
        </div>
        <TimeAxis ticks={ticks} onDrag={(a, b) => setView(rangeFromDrag(shown, a, b))} />
      </div>
      <div className="wf-body-wrap">
        <div className="wf-grid" aria-hidden="true">
          {ticks.map((t) => (
            <span key={t.label} className="wf-gridline" style={{ left: `${t.at * 100}%` }} />
          ))}
        </div>
        <div className="wf-body" ref={scrollRef} tabIndex={0} onKeyDown={onKeyDown} role="tree" aria-label="Waterfall. Up and down move the selection, right and left expand and collapse.">
          <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
            {virtualizer.getVirtualItems().map((item) => {
              const row = rows[item.index];
              const step = tree.byId.get(row.id)!;
              return (
                <WaterfallRow
                  key={row.id}
                  step={step}
                  depth={row.depth}
                  hasChildren={row.hasChildren}
                  expanded={row.expanded}
                  look={stepLook(step, blameIndex)}
                  holdsError={model.holding.has(row.id)}
                  selected={row.id === selected}
                  top={item.start}
                  view={shown}
                  origin={span.from}
                  runEnd={span.to}
                />
              );
            })}
          </div>
        </div>
      </div>
    </div>
  );
}

/**
 * One row; memoized on plain values so that scrolling (which re-renders the
 * list) only renders the rows coming into view.
 */
const WaterfallRow = memo(function WaterfallRow({
  step,
  depth,
  hasChildren,
  expanded,
  look,
  holdsError,
  selected,
  top,
  view,
  origin,
  runEnd,
}: {
  step: Step;
  depth: number;
  hasChildren: boolean;
  expanded: boolean;
  look: StepLook;
  holdsError: boolean;
  selected: boolean;
  top: number;
  view: TimeRange;
  origin: number;
  runEnd: number;
}) {
  const id = step.step_id;
  const bar = barGeometry(step.started_at, endOf(step, runEnd), view);
  const tokens = tokensOf(step);
  const name = plain(step.name);
  return (
    <div
      role="treeitem"
      aria-selected={selected}
      aria-expanded={hasChildren ? expanded : undefined}
      aria-level={depth + 1}
      data-step-id={id}
      className={`wf-row look-${look}${holdsError ? ' holds-error' : ''}${selected ? ' is-selected' : ''}`}
      style={{ height: STEP_ROW_HEIGHT, transform: `translateY(${top}px)` }}
      onClick={() => act(selectStep, id)}
    >
      <div className="wf-label-col">
        <span className="step-row-indent" style={{ width: Math.min(depth, 24) * 12 }} />
        {hasChildren ? (
          <button
            type="button"
            className="tree-toggle"
            aria-label={expanded ? 'Collapse' : 'Expand'}
            onClick={(e) => {
              e.stopPropagation();
              act(setExpanded, id, !expanded);
            }}
          >
            {expanded ? '▾' : '▸'}
          </button>
        ) : (
          <span className="tree-toggle-space" />
        )}
        <span className="look-dot" title={holdsError ? 'a step inside this one failed' : undefined} />
        <span className="wf-name" title={name}>
          {name}
        </span>
        {look === 'blamed' && <span className="wf-flag wf-flag-blamed">blamed</span>}
        {look === 'co-blamed' && <span className="wf-flag wf-flag-co">co-blamed</span>}
        {step.status === 'error' && look !== 'blamed' && <span className="wf-flag wf-flag-error">error</span>}
        <span className="wf-num mono">{formatDuration(step.duration_ms)}</span>
        <span className="wf-num mono muted">{tokens === null ? '' : tokens.toLocaleString('en-US')}</span>
      </div>
      <div className="wf-track">
        {bar && (
          <span
            className={`wf-bar type-bar-${step.type}${step.ended_at === null ? ' is-open' : ''}`}
            style={{ left: `${bar.left * 100}%`, width: `max(2px, ${bar.width * 100}%)` }}
            title={`${name} · starts ${formatOffset(step.started_at - origin, 1)} · ${formatDuration(step.duration_ms)}${step.ended_at === null ? ' (no end recorded)' : ''}`}
          />
        )}
      </div>
    </div>
  );
});

function parentsOf(tree: NonNullable<RunModel['tree']>): string[] {
  const out: string[] = [];
  for (const id of tree.children.keys()) if (id !== null) out.push(id);
  return out;
}

/** Tick labels over the bars; dragging across it zooms to the dragged range. */
function TimeAxis({ ticks, onDrag }: { ticks: { at: number; label: string }[]; onDrag: (a: number, b: number) => void }) {
  const ref = useRef<HTMLDivElement>(null);
  const [drag, setDrag] = useState<{ a: number; b: number } | null>(null);
  const frac = (e: ReactPointerEvent) => {
    const r = ref.current!.getBoundingClientRect();
    return Math.max(0, Math.min(1, (e.clientX - r.left) / Math.max(1, r.width)));
  };
  return (
    <div
      className="wf-axis"
      ref={ref}
      data-testid="waterfall-axis"
      title="Drag to zoom to a time range"
      onPointerDown={(e) => {
        e.currentTarget.setPointerCapture(e.pointerId);
        const a = frac(e);
        setDrag({ a, b: a });
      }}
      onPointerMove={(e) => drag && setDrag({ a: drag.a, b: frac(e) })}
      onPointerUp={(e) => {
        if (!drag) return;
        const b = frac(e);
        setDrag(null);
        if (Math.abs(b - drag.a) >= MIN_DRAG) onDrag(drag.a, b);
      }}
    >
      {ticks.map((t) => (
        <span key={t.label} className="wf-tick" style={{ left: `${t.at * 100}%` }}>
          {t.label}
        </span>
      ))}
      {drag && <span className="wf-brush" style={{ left: `${Math.min(drag.a, drag.b) * 100}%`, width: `${Math.abs(drag.b - drag.a) * 100}%` }} />}
    </div>
  );
}
