import { describe, expect, it } from 'vitest';
import {
  focusEvidence,
  initialUiState,
  navigate,
  openDiff,
  openRun,
  selectStep,
  setDataFlow,
  setExpanded,
  setExpandedMany,
  setRunsQuery,
  setShowWrappers,
  showMoreChildren,
  toggleComparePick,
  togglePanel,
} from './ui-store';

describe('UI state', () => {
  it('a fresh window opens on the runs list with nothing selected', () => {
    expect(initialUiState.route).toMatchObject({ view: 'runs', filter: 'all', search: '' });
    expect(initialUiState.comparePick).toEqual([]);
  });

  it('opening a run and picking a step puts both in the route', () => {
    const s = selectStep(openRun(initialUiState, 'run-1'), 'step-7');
    expect(s.route).toEqual({ view: 'run', runId: 'run-1', stepId: 'step-7', tab: 'auto' });
  });

  it('selecting a step outside a run view changes nothing', () => {
    expect(selectStep(initialUiState, 'step-1')).toBe(initialUiState);
  });

  it('graph expansion and paging are forgotten when another run is opened', () => {
    let s = openRun(initialUiState, 'run-1');
    s = showMoreChildren(setExpanded(s, 'a', true), 'a');
    expect(s.expansion).toEqual({ a: true });
    expect(s.childPages).toEqual({ a: 2 });
    expect(openRun(s, 'run-1').expansion).toEqual({ a: true });
    const other = openRun(s, 'run-2');
    expect(other.expansion).toEqual({});
    expect(other.childPages).toEqual({});
  });

  it('clicking evidence selects its step, opens the step panel and remembers the quote', () => {
    let s = togglePanel(openRun(initialUiState, 'run-1'), 'step');
    expect(s.panels.step).toBe(false);
    s = focusEvidence(s, { step_id: 'retrieve', field: 'output', quote: 'Paris is in Texas' });
    expect(s.route).toMatchObject({ stepId: 'retrieve' });
    expect(s.panels.step).toBe(true);
    expect(s.focusedEvidence?.quote).toBe('Paris is in Texas');
  });

  it('moving to another step drops the highlighted evidence of the previous one', () => {
    let s = focusEvidence(openRun(initialUiState, 'run-1'), { step_id: 'a', field: 'output', quote: 'q' });
    s = selectStep(s, 'b');
    expect(s.focusedEvidence).toBeNull();
  });

  it('ticking a third run for comparison keeps the last two picks', () => {
    let s = toggleComparePick(initialUiState, 'r1');
    s = toggleComparePick(s, 'r2');
    s = toggleComparePick(s, 'r3');
    expect(s.comparePick).toEqual(['r2', 'r3']);
    expect(toggleComparePick(s, 'r2').comparePick).toEqual(['r3']);
  });

  it('opening the diff of two picks clears the picks and shows the pair', () => {
    const s = openDiff(toggleComparePick(toggleComparePick(initialUiState, 'r1'), 'r2'), 'r1', 'r2');
    expect(s.route).toEqual({ view: 'diff', runA: 'r1', runB: 'r2', key: null });
    expect(s.comparePick).toEqual([]);
  });

  it('changing the runs filter from a run view returns to the runs list with that filter', () => {
    const s = setRunsQuery(openRun(initialUiState, 'run-1'), { filter: 'failed' });
    expect(s.route).toMatchObject({ view: 'runs', filter: 'failed', search: '' });
  });

  it('updates never mutate the state they were given', () => {
    const frozen = Object.freeze({ ...initialUiState, panels: Object.freeze({ ...initialUiState.panels }) });
    expect(() => togglePanel(navigate(frozen, { view: 'diff', runA: null, runB: null, key: null }), 'blame')).not.toThrow();
    expect(frozen.panels.blame).toBe(true);
  });

  it('the graph starts with only the selected step\'s data flow; asking for all of it is kept when another run is opened, and can be undone', () => {
    expect(initialUiState.dataFlow).toBe(false);
    const all = setDataFlow(openRun(initialUiState, 'run-1'), true);
    expect(all.dataFlow).toBe(true);
    expect(openRun(all, 'run-2').dataFlow).toBe(true);
    expect(setDataFlow(all, true)).toBe(all);
    expect(setDataFlow(all, false).dataFlow).toBe(false);
  });

  it('framework wrapper steps start hidden on the graph, and showing them is kept across runs', () => {
    expect(initialUiState.showWrappers).toBe(false);
    const shown = setShowWrappers(openRun(initialUiState, 'run-1'), true);
    expect(openRun(shown, 'run-2').showWrappers).toBe(true);
  });

  it('Expand all opens every given step and Collapse all closes them, overriding the outline a big run opens with', () => {
    const open = setExpandedMany(openRun(initialUiState, 'run-1'), ['a', 'b'], true);
    expect(open.expansion).toEqual({ a: true, b: true });
    expect(setExpandedMany(open, ['a', 'b'], false).expansion).toEqual({ a: false, b: false });
  });
});
