import { describe, expect, it } from 'vitest';
import { formatRoute, parseRoute, type Route } from '../state/route';
import { initialUiState, openRun, selectStep } from '../state/ui-store';
import { closeExperiment, openExperiment, openExperimentsList, openExperimentsTab, openForkedRun } from './experiment-routes';
import { closeForkEditor, discardForkDraft, draftKey, initialExperimentUiState, openForkEditor, saveForkDraft, setConfirmation, type ForkDraft } from './experiment-ui';
import { EMPTY_ORACLE_DRAFT } from './oracle-draft';
import { DEFAULT_TRIAL_SETTINGS } from './trial-settings';

describe('where the experiment views live', () => {
  it('a link to a scoreboard restores the run, the Experiments tab and the experiment', () => {
    const routes: Route[] = [
      { view: 'run', runId: 'r1', stepId: 's0', tab: 'experiments', exp: 'exp-abc' },
      { view: 'experiments', runId: null },
      { view: 'experiments', runId: 'r 1/?' },
    ];
    for (const r of routes) expect(parseRoute(formatRoute(r))).toEqual(r);
  });

  it('opening a scoreboard of the open run keeps the selected step', () => {
    const s = openExperiment(selectStep(openRun(initialUiState, 'r1'), 's3'), 'r1', 'exp-1');
    expect(s.route).toEqual({ view: 'run', runId: 'r1', stepId: 's3', tab: 'experiments', exp: 'exp-1' });
  });

  it('going back from a scoreboard stays in the tab, without the experiment', () => {
    const s = closeExperiment(openExperiment(initialUiState, 'r1', 'exp-1'));
    expect(s.route).toEqual({ view: 'run', runId: 'r1', stepId: null, tab: 'experiments' });
    expect(formatRoute(s.route)).toBe('#/run/r1?tab=experiments');
  });

  it('a trial opens as a run of its own on the graph', () => {
    expect(openForkedRun(openExperiment(initialUiState, 'r1', 'exp-1'), 'exp-1-t2').route).toEqual({ view: 'run', runId: 'exp-1-t2', stepId: null, tab: 'graph' });
  });

  it('the experiments list can be filtered by run, and the tab opens only inside a run', () => {
    expect(openExperimentsList(initialUiState, 'r1').route).toEqual({ view: 'experiments', runId: 'r1' });
    expect(openExperimentsTab(initialUiState)).toBe(initialUiState);
    expect(openExperimentsTab(openRun(initialUiState, 'r1')).route).toMatchObject({ tab: 'experiments' });
  });

  it('the fork editor is opened for one step and closed again; confirmations are kept per run', () => {
    const open = openForkEditor(initialExperimentUiState, 'r1', 's0');
    expect(open.fork).toEqual({ runId: 'r1', stepId: 's0' });
    expect(closeForkEditor(open).fork).toBeNull();
    expect(closeForkEditor(initialExperimentUiState)).toBe(initialExperimentUiState);
    const c = setConfirmation(open, 'r1', { state: 'running', startedAt: 5, n: 3, scope: 'blamed' });
    expect(c.confirmations.r1).toMatchObject({ state: 'running', n: 3 });
  });

  it('an edit survives a look at another tab, and discarding it closes the editor', () => {
    const draft: ForkDraft = { kind: 'output', outputText: '{"a":1}', format: 'json', layout: 'pretty', instructions: '', settings: DEFAULT_TRIAL_SETTINGS, oracle: EMPTY_ORACLE_DRAFT };
    const open = openForkEditor(initialExperimentUiState, 'r1', 's0');
    const saved = saveForkDraft(closeForkEditor(open), 'r1', 's0', draft);
    expect(saved.drafts[draftKey('r1', 's0')]).toBe(draft);
    const reopened = openForkEditor(saved, 'r1', 's0');
    const gone = discardForkDraft(reopened, 'r1', 's0');
    expect(gone.drafts).toEqual({});
    expect(gone.fork).toBeNull();
    expect(discardForkDraft(openForkEditor(saved, 'r1', 's9'), 'r1', 's0').fork).toEqual({ runId: 'r1', stepId: 's9' });
  });
});
