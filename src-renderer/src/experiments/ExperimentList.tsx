import type { ExperimentSummary } from '../../../src-shared/experiments';
import { TraceText } from '../common/TraceText';
import { act } from '../state/ui-store';
import { formatTime } from '../text/format';
import { RunId } from '../common/RunId';
import { formatEffect, formatP, formatSplit, STATUS_LABEL, statusTone } from './experiment-format';
import { openExperiment } from './experiment-routes';
import './experiments.css';

/** A table of experiments, newest first; a row opens its scoreboard in the source run's Experiments tab. */
export function ExperimentList({ experiments, showRun = false }: { experiments: ExperimentSummary[]; showRun?: boolean }) {
  const sorted = [...experiments].sort((a, b) => b.created_at - a.created_at);
  return (
    <table className="xp-table xp-list" data-testid="experiment-list">
      <thead>
        <tr>
          <th scope="col">status</th>
          <th scope="col">experiment</th>
          {showRun && <th scope="col">source run</th>}
          <th scope="col" className="num">
            treatment
          </th>
          <th scope="col" className="num">
            control
          </th>
          <th scope="col" className="num">
            effect
          </th>
          <th scope="col" className="num">
            p
          </th>
          <th scope="col">started</th>
        </tr>
      </thead>
      <tbody>
        {sorted.map((e) => {
          const open = () => act(openExperiment, e.run_id, e.experiment_id);
          return (
            <tr key={e.experiment_id} className="clickable" data-testid="experiment-row" data-experiment-id={e.experiment_id} onClick={open}>
              <td>
                <span className={`status-pill status-${statusTone(e.status)}`}>{STATUS_LABEL[e.status]}</span>
              </td>
              <td className="xp-list-name">
                <button
                  type="button"
                  className="link-button"
                  onClick={(ev) => {
                    ev.stopPropagation();
                    open();
                  }}
                >
                  {e.label ? <TraceText text={e.label} truncateAt={80} /> : <>fork at <TraceText text={e.at} truncateAt={60} /></>}
                </button>
                <div className="muted small mono">
                  {e.edit.kind} edit at {e.fork_step_key} · N={e.n}
                  {e.group_id ? ' · blame confirmation' : ''}
                </div>
              </td>
              {showRun && (
                <td className="mono small">
                  <TraceText text={e.pipeline} truncateAt={40} /> <RunId id={e.run_id} className="muted" />
                </td>
              )}
              <td className="num mono">
                <strong>{formatSplit(e.treatment)}</strong>
              </td>
              <td className="num mono">{formatSplit(e.control)}</td>
              <td className="num mono">{formatEffect(e.effect)}</td>
              <td className="num mono">{e.treatment.trials && e.control.trials ? formatP(e.p_value) : '—'}</td>
              <td className="mono small muted">{formatTime(e.created_at)}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
