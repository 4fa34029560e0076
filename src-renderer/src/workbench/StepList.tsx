import { memo, useMemo, type KeyboardEvent } from 'react';
import { STEP_ROW_HEIGHT, useStepRows } from './use-step-rows';
import type { Step } from '../../../src-shared/model';
import { stepPath } from '../find/find-in-run';
import type { FindState } from '../find/use-find';
import { stepLook, type StepLook } from '../graph/step-look';
import { visibleRows, type ListRow } from '../graph/step-tree';
import { act, selectStep, setExpanded } from '../state/ui-store';
import { formatDuration, formatScore } from '../text/format';
import { revealControls } from '../text/visible-controls';
import type { RunModel } from './use-run-model';


function plain(text: string): string {
  return revealControls(text)
    .map((p) => p.text)
    .join('');
}

/** The run's steps as an indented, virtualized tree; find-in-run (or a roll-up filter) turns it into a flat list of its steps, with their paths where names repeat. */
export function StepList({ model, selected, find }: { model: RunModel; selected: string | null; find: FindState }) {
  const { tree, expanded, blameIndex } = model;
  const rows = useMemo<ListRow[]>(() => {
    if (!tree) return [];
    if (!find.listed) return visibleRows(tree, expanded);
    return find.listed.map((id) => ({ id, depth: 0, hasChildren: false, expanded: false }));
  }, [tree, expanded, find.listed]);
  const flat = find.listed !== null;
  const { scrollRef, virtualizer, selectedIndex } = useStepRows(rows, selected);

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
      else if (e.key === 'ArrowLeft' && tree?.parentOf(row.id)) act(selectStep, tree.parentOf(row.id)!);
    }
  };

  return (
    <div className="step-list">
      <div className="pane-head">
        <span className="pane-title">Steps</span>
        <span className="muted mono">{tree ? tree.steps.length.toLocaleString('en-US') : ''}</span>
        {flat && <span className="muted small">showing {rows.length.toLocaleString('en-US')} found</span>}
      </div>
      <div className="step-list-body" ref={scrollRef} tabIndex={0} onKeyDown={onKeyDown} role="tree" aria-label="Steps">
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((item) => {
            const row = rows[item.index];
            const step = tree!.byId.get(row.id)!;
            const repeated = find.repeated.has(step.name);
            const parent = flat && repeated ? tree!.parentOf(row.id) : null;
            return (
              <StepRow
                key={row.id}
                step={step}
                row={row}
                look={stepLook(step, blameIndex)}
                holdsError={model.holding.has(row.id)}
                score={blameIndex.health.get(step.step_id)?.score ?? null}
                selected={row.id === selected}
                top={item.start}
                title={repeated ? plain(stepPath(tree!, row.id, 12)) : null}
                path={parent !== null ? plain(stepPath(tree!, parent, 3)) : null}
                where={flat ? (find.hitOf.get(row.id)?.fields.join(' ') ?? null) : null}
              />
            );
          })}
        </div>
      </div>
    </div>
  );
}

/** One row, memoized on plain values: scrolling re-renders the list, and only rows coming into view render. */
const StepRow = memo(function StepRow({
  step,
  row,
  look,
  holdsError,
  score,
  selected,
  top,
  title,
  path,
  where,
}: {
  step: Step;
  row: ListRow;
  look: StepLook;
  holdsError: boolean;
  score: number | null;
  selected: boolean;
  top: number;
  title: string | null;
  path: string | null;
  where: string | null;
}) {
  const name = plain(step.name);
  return (
    <div
      role="treeitem"
      aria-selected={selected}
      aria-expanded={row.hasChildren ? row.expanded : undefined}
      aria-level={row.depth + 1}
      data-step-id={row.id}
      className={`step-row look-${look}${holdsError ? ' holds-error' : ''}${selected ? ' is-selected' : ''}`}
      style={{ position: 'absolute', top: 0, left: 0, right: 0, height: STEP_ROW_HEIGHT, transform: `translateY(${top}px)` }}
      onClick={() => act(selectStep, row.id)}
    >
      <span className="step-row-indent" style={{ width: row.depth * 14 }} />
      {row.hasChildren ? (
        <button
          type="button"
          className="tree-toggle"
          aria-label={row.expanded ? 'Collapse' : 'Expand'}
          onClick={(e) => {
            e.stopPropagation();
            act(setExpanded, row.id, !row.expanded);
          }}
        >
          {row.expanded ? '▾' : '▸'}
        </button>
      ) : (
        <span className="tree-toggle-space" />
      )}
      <span className="look-dot" title={holdsError ? 'a step inside this one failed' : undefined} />
      <span className="step-row-name" title={title ?? name}>
        {name}
        {path !== null && <span className="step-row-path"> in {path}</span>}
      </span>
      {where !== null && <span className="step-row-where">{where}</span>}
      <span className={`type-tag type-${step.type}`}>{step.type}</span>
      <span className="step-row-num mono" title={look === 'blamed' || look === 'co-blamed' ? 'blamed in the blame panel, whatever its scorers said' : 'health score'}>
        {look === 'blamed' || look === 'co-blamed' ? <span className="row-role">{look}</span> : score === null ? '' : formatScore(score)}
      </span>
      <span className="step-row-num mono muted">{formatDuration(step.duration_ms)}</span>
    </div>
  );
});
