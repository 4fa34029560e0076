import type { KeyboardEvent } from 'react';
import { act, selectStep, setFind, setStepSearch, useUi, type FindFilter } from '../state/ui-store';
import type { RunModel } from '../workbench/use-run-model';
import type { FindState } from './use-find';
import './find.css';

const ROLLUP: [FindFilter, string, string][] = [
  ['errors', 'error', 'errors'],
  ['warnings', 'warning', 'warnings'],
  ['low-score', 'low score', 'low scores'],
];

/**
 * The workbench's search box: finds text in step names, inputs, outputs and
 * errors; Enter / Shift+Enter (or the arrows) walk the hits, selecting each
 * step and highlighting the text in its panel. Below it, the roll-up of
 * errors, warnings and low scores; a chip filters the step list to those.
 */
export function FindInRun({ model, selected, find }: { model: RunModel; selected: string | null; find: FindState }) {
  const { tree } = model;
  const raw = useUi((s) => s.find.query);
  const { hits, rollup, filter, listed } = find;
  const order = listed ?? [];
  const at = selected ? order.indexOf(selected) : -1;

  const go = (delta: 1 | -1) => {
    if (order.length === 0) return;
    const next = at < 0 ? (delta === 1 ? 0 : order.length - 1) : (at + delta + order.length) % order.length;
    act(selectStep, order[next]);
    // The step panel highlights what was searched.
    if (find.query) act(setStepSearch, find.query);
  };
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      go(e.shiftKey ? -1 : 1);
    } else if (e.key === 'Escape') {
      act(setFind, { query: '' });
    }
  };
  const total = hits?.reduce((n, h) => n + h.count, 0) ?? 0;

  return (
    <div className="find-in-run" data-testid="find-in-run">
      <div className="find-row">
        <input
          type="search"
          className="search small find-input"
          placeholder="Find in run: names, inputs, outputs, errors"
          aria-label="Find in run"
          value={raw}
          onChange={(e) => act(setFind, { query: e.target.value })}
          onKeyDown={onKeyDown}
        />
        <button type="button" className="mini-button" aria-label="Previous match" disabled={order.length === 0} onClick={() => go(-1)}>
          ↑
        </button>
        <button type="button" className="mini-button" aria-label="Next match" disabled={order.length === 0} onClick={() => go(1)}>
          ↓
        </button>
      </div>
      {!hits && find.searching && (
        <div className="find-status small" data-testid="find-status" role="status">
          Searching every step&apos;s input and output…
        </div>
      )}
      {find.searchError && (
        <div className="find-status small find-none" data-testid="find-status" role="status">
          Search failed: {find.searchError}
        </div>
      )}
      {hits && (
        <div className="find-status small" data-testid="find-status" role="status">
          {hits.length === 0 ? (
            <span className="find-none">No step matches “{find.query.length > 60 ? `${find.query.slice(0, 60)}…` : find.query}”{tree && tree.steps.length ? '' : ' (no steps)'}.</span>
          ) : (
            <span>
              {at >= 0 ? `${(at + 1).toLocaleString('en-US')} of ` : ''}
              {order.length.toLocaleString('en-US')} step{order.length === 1 ? '' : 's'}
              {filter && order.length !== hits.length ? ` (${hits.length.toLocaleString('en-US')} before the ${filter} filter)` : ''} · {total.toLocaleString('en-US')} match
              {total === 1 ? '' : 'es'}
              {find.truncated ? ` (the first ${hits.length.toLocaleString('en-US')} matching steps)` : ''} · Enter for next
            </span>
          )}
        </div>
      )}
      {rollup && (
        <div className="chip-group find-rollup" role="group" aria-label="Filter the steps">
          {ROLLUP.map(([kind, one, many]) => {
            const n = rollup[kind].length;
            return (
              <button
                key={kind}
                type="button"
                className={`chip find-chip find-chip-${kind}${filter === kind ? ' chip-on' : ''}`}
                aria-pressed={filter === kind}
                disabled={n === 0 && filter !== kind}
                title={ROLLUP_TITLE[kind]}
                onClick={() => act(setFind, { filter: filter === kind ? null : kind })}
              >
                {n.toLocaleString('en-US')} {n === 1 ? one : many}
              </button>
            );
          })}
        </div>
      )}
    </div>
  );
}

const ROLLUP_TITLE: Record<FindFilter, string> = {
  errors: 'Steps that failed. Click to list only them.',
  warnings: 'Steps that did not fail themselves but hold a failed step, carry an error record, or never ended. Click to list only them.',
  'low-score': 'Steps a scorer rated below 0.5. Click to list only them.',
};
