import type { Run } from '../../../src-shared/model';
import { TraceText } from '../common/TraceText';
import { act } from '../state/ui-store';
import { RunId } from '../common/RunId';
import { openExperiment, openForkedRun } from './experiment-routes';
import './experiments.css';

/** On a run a fork experiment wrote: which experiment, arm and trial, and the way back. */
export function ForkProvenanceBanner({ run }: { run: Run }) {
  const p = run.provenance;
  if (!p) return null;
  return (
    <div className={`xp-provenance${p.diverged ? ' is-diverged' : ''}`} data-testid="fork-provenance" role="note">
      <span className={`xp-arm-dot arm-${p.arm}`} aria-hidden="true" />
      <span>
        Forked run: <strong>{p.arm}</strong>
        {p.trial !== undefined && <> trial {p.trial}</>} of experiment <span className="mono">{p.experiment_id}</span>, forked at{' '}
        <span className="mono">{p.fork_step_key}</span> of run <RunId id={p.source_run_id} />.
        {p.diverged && (
          <>
            {' '}
            <strong>Diverged</strong> before the fork{p.divergence ? <>: <TraceText text={p.divergence} truncateAt={300} /></> : ''} — it did not test the edit.
          </>
        )}
      </span>
      <span className="toolbar-spacer" />
      <button type="button" className="mini-button" onClick={() => act(openExperiment, p.source_run_id, p.experiment_id)}>
        Scoreboard
      </button>
      <button type="button" className="mini-button" onClick={() => act(openForkedRun, p.source_run_id)}>
        Source run
      </button>
    </div>
  );
}
