import { useMemo, useState } from 'react';
import { RunId } from '../common/RunId';
import type { Arm, ArmSummary, ExperimentDetail, TrialSummary } from '../../../src-shared/experiments';
import type { ApiError } from '../../../src-shared/result';
import { useApi } from '../api/api-context';
import { useEngineQuery, useQueryCache } from '../api/use-engine-query';
import { ErrorNote } from '../common/ErrorNote';
import { JsonView } from '../common/JsonView';
import { Section } from '../common/Section';
import { TraceText } from '../common/TraceText';
import { act } from '../state/ui-store';
import { formatDuration, formatTime } from '../text/format';
import { ArmChart } from './ArmChart';
import {
  findingSentence,
  formatCost,
  formatEffect,
  formatInterval,
  formatP,
  formatPercent,
  formatSplit,
  formatTokens,
  outcomeTone,
  STATUS_LABEL,
  statusTone,
} from './experiment-format';
import { openForkedRun } from './experiment-routes';
import { describeOracle } from './oracle-draft';
import { useLiveExperiment } from './use-experiment-events';
import './experiments.css';

const TRIALS_SHOWN = 100;
const ARMS: Arm[] = ['treatment', 'control'];

export function ExperimentScoreboard({ experimentId, onBack }: { experimentId: string; onBack?: () => void }) {
  const q = useEngineQuery('getExperiment', { experimentId });
  useLiveExperiment(experimentId);
  if (q.error && !q.data) return <ErrorNote error={q.error} />;
  if (!q.data) return <div className="pad muted">Loading experiment…</div>;
  return <Scoreboard e={q.data} onBack={onBack} />;
}

function Scoreboard({ e, onBack }: { e: ExperimentDetail; onBack?: () => void }) {
  const running = e.status === 'running';
  const unfinished = e.treatment.unfinished + e.control.unfinished;
  return (
    <article className="xp-board" data-testid="experiment-scoreboard" data-experiment-id={e.experiment_id} data-status={e.status}>
      <header className="xp-board-head">
        {onBack && (
          <button type="button" className="button ghost" onClick={onBack}>
            ← Experiments
          </button>
        )}
        <span className={`status-pill status-${statusTone(e.status)}`} data-testid="experiment-status">
          {STATUS_LABEL[e.status]}
        </span>
        <h2 className="xp-title">
          {e.label ? <TraceText text={e.label} truncateAt={200} /> : <>Fork at <TraceText text={e.at} truncateAt={120} /></>}
        </h2>
        <span className="toolbar-spacer" />
        {running && <CancelButton experimentId={e.experiment_id} />}
      </header>
      <div className="xp-board-sub muted small mono">
        {e.experiment_id} · {e.edit.kind === 'output' ? 'output' : 'instructions'} edit at {e.fork_step_key} · N = {e.n} per arm · {e.parallel} at once ·{' '}
        judged by {describeOracle(e.oracle).slice(0, 120)} · {formatTime(e.created_at)}
      </div>
      {e.stop_reason && (
        <div className="xp-check warn" role="note">
          ! <TraceText text={e.stop_reason} truncateAt={600} />
        </div>
      )}

      {(e.warnings ?? []).map((w) => (
        <div key={w} className="xp-check warn" role="alert" data-testid="experiment-warning">
          ! <TraceText text={w} truncateAt={600} />
        </div>
      ))}

      {(running || unfinished > 0) && <ArmProgress e={e} />}

      <section className="xp-finding" aria-label="Finding">
        <p className="xp-finding-text" data-testid="experiment-finding">
          {findingSentence(e)}
        </p>
        <div className="xp-stats-line">
          {e.treatment.trials > 0 && e.control.trials > 0 && (
            <>
              <span data-testid="experiment-p">
                <strong>p = {formatP(e.p_value)}</strong> <span className="muted">Fisher's exact test, two-sided</span>
              </span>
              <span>
                effect <strong>{formatEffect(e.effect)}</strong> <span className="muted">(treatment − control)</span>
              </span>
            </>
          )}
          {e.small_n && (
            <span className="badge badge-warn" data-testid="small-n" title="Fewer than 10 judged trials in an arm: read the direction, not the size.">
              small N: directional evidence
            </span>
          )}
        </div>
      </section>

      <div className="xp-board-grid">
        <ArmChart experiment={e} />
        <ArmTable e={e} />
      </div>

      <TrialsTable trials={e.trials} />

      <Section title="What was tested" defaultOpen={false}>
        <dl className="facts">
          <dt>fork step</dt>
          <dd className="mono">{e.fork_step_key}</dd>
          <dt>edit</dt>
          <dd>
            {e.edit.kind === 'output' ? (
              <JsonView value={e.edit.output} needles={[]} />
            ) : (
              <div className="trace-text">
                <TraceText text={e.edit.instructions} />
              </div>
            )}
          </dd>
          <dt>oracle</dt>
          <dd>
            <TraceText text={describeOracle(e.oracle)} truncateAt={600} />
          </dd>
          <dt>saved</dt>
          <dd>
            replaying the prefix saved {e.saved.calls.toLocaleString('en-US')} calls and {formatTokens(e.saved.tokens)} tokens over the trials that ran
          </dd>
          <dt>timeout</dt>
          <dd>{e.timeout_s} s per trial</dd>
        </dl>
      </Section>
    </article>
  );
}

function CancelButton({ experimentId }: { experimentId: string }) {
  const api = useApi();
  const cache = useQueryCache();
  const [state, setState] = useState<'idle' | 'busy'>('idle');
  const [error, setError] = useState<ApiError | null>(null);
  return (
    <>
      {error && <span className="xp-inline-error" role="alert">{error.message}</span>}
      <button
        type="button"
        className="button"
        disabled={state === 'busy'}
        data-testid="experiment-cancel"
        onClick={async () => {
          setState('busy');
          const r = await api.invoke('cancelExperiment', { experimentId });
          setState('idle');
          if (!r.ok) setError(r.error);
          cache.refetch('getExperiment', { experimentId });
        }}
      >
        {state === 'busy' ? 'Cancelling…' : 'Cancel experiment'}
      </button>
    </>
  );
}

function armCounts(trials: TrialSummary[], arm: Arm) {
  const mine = trials.filter((t) => t.arm === arm);
  const count = (pred: (t: TrialSummary) => boolean) => mine.filter(pred).length;
  return {
    total: mine.length,
    pass: count((t) => t.outcome === 'pass'),
    fail: count((t) => t.outcome === 'fail' || t.outcome === 'crashed' || t.outcome === 'timeout'),
    other: count((t) => ['diverged', 'skipped', 'cancelled', 'interrupted'].includes(t.outcome)),
    running: count((t) => t.outcome === 'running'),
    pending: count((t) => t.outcome === 'pending'),
  };
}

/** One bar per arm: passed, failed, excluded, running and waiting trials, left to right. */
function ArmProgress({ e }: { e: ExperimentDetail }) {
  return (
    <section className="xp-progress" aria-label="Progress" data-testid="experiment-progress">
      {ARMS.map((arm) => {
        const c = armCounts(e.trials, arm);
        const done = c.pass + c.fail + c.other;
        const pct = (n: number) => `${c.total ? (n / c.total) * 100 : 0}%`;
        return (
          <div key={arm} className="xp-progress-row" data-testid={`progress-${arm}`} data-done={done} data-total={c.total}>
            <span className="xp-progress-arm">{arm}</span>
            <div
              className="xp-progress-track"
              role="progressbar"
              aria-label={`${arm} trials finished`}
              aria-valuemin={0}
              aria-valuemax={c.total}
              aria-valuenow={done}
            >
              <span className="seg seg-pass" style={{ width: pct(c.pass) }} />
              <span className="seg seg-fail" style={{ width: pct(c.fail) }} />
              <span className="seg seg-other" style={{ width: pct(c.other) }} />
              <span className="seg seg-running" style={{ width: pct(c.running) }} />
            </div>
            <span className="xp-progress-text mono">
              {done}/{c.total} done · {c.pass} passed{c.running ? ` · ${c.running} running` : ''}
            </span>
          </div>
        );
      })}
    </section>
  );
}

function ArmTable({ e }: { e: ExperimentDetail }) {
  const row = (arm: Arm, a: ArmSummary) => (
    <tr key={arm} data-testid={`arm-${arm}`}>
      <th scope="row">
        <span className={`xp-arm-dot arm-${arm}`} aria-hidden="true" /> {arm}
      </th>
      <td className="num">
        <strong data-testid={`arm-${arm}-split`}>{formatSplit(a)}</strong> <span className="muted">{formatPercent(a.rate)}</span>
      </td>
      <td className="num mono">{a.trials ? formatInterval(a.wilson) : '—'}</td>
      <td className="num mono">{formatTokens(a.tokens)}</td>
      <td className="num mono">{formatDuration(a.duration_ms)}</td>
      <td className="num mono">{formatCost(a.cost_usd)}</td>
      <td className="xp-beside">
        {a.diverged > 0 && <span className="badge badge-warn">{a.diverged} diverged</span>}
        {a.crashed > 0 && <span className="badge badge-bad">{a.crashed} crashed</span>}
        {a.timeouts > 0 && <span className="badge badge-bad">{a.timeouts} timed out</span>}
        {a.unfinished > 0 && <span className="badge">{a.unfinished} unfinished</span>}
        {a.diverged + a.crashed + a.timeouts + a.unfinished === 0 && <span className="muted">—</span>}
      </td>
    </tr>
  );
  return (
    <div className="xp-arm-table-wrap">
      <table className="xp-table xp-arm-table" aria-label="Arms">
        <thead>
          <tr>
            <th scope="col">arm</th>
            <th scope="col" className="num" title="Passes over judged trials">
              passed
            </th>
            <th scope="col" className="num">
              Wilson 95%
            </th>
            <th scope="col" className="num">
              tokens
            </th>
            <th scope="col" className="num" title="Summed wall time of the arm's trial processes">
              time
            </th>
            <th scope="col" className="num">
              cost
            </th>
            <th scope="col" className="xp-outcomes-head" title="Diverged trials are in neither denominator; crashes and timeouts count as failures">
              diverged, crashed, timed out
            </th>
          </tr>
        </thead>
        <tbody>{ARMS.map((arm) => row(arm, e[arm]))}</tbody>
      </table>
      <p className="muted small xp-note">
        Crashed and timed-out trials count as failures. Diverged trials left the recording before the fork, so they did not test the edit: they are
        in neither denominator.
      </p>
    </div>
  );
}

function TrialsTable({ trials }: { trials: TrialSummary[] }) {
  const [limit, setLimit] = useState(TRIALS_SHOWN);
  const sorted = useMemo(() => [...trials].sort((a, b) => (a.arm === b.arm ? a.trial - b.trial : a.arm === 'treatment' ? -1 : 1)), [trials]);
  return (
    <section className="xp-trials" aria-label="Trials">
      <h3 className="xp-section-title">
        Trials <span className="muted small">· each is a run of its own; open one to see its steps</span>
      </h3>
      <table className="xp-table xp-trials-table" data-testid="trials-table">
        <thead>
          <tr>
            <th scope="col">arm</th>
            <th scope="col" className="num">
              #
            </th>
            <th scope="col">outcome</th>
            <th scope="col">detail</th>
            <th scope="col" className="num">
              time
            </th>
            <th scope="col" className="num">
              tokens
            </th>
            <th scope="col">run</th>
          </tr>
        </thead>
        <tbody>
          {sorted.slice(0, limit).map((t) => {
            const opened = t.outcome !== 'pending' && t.outcome !== 'skipped';
            return (
              <tr
                key={`${t.arm}-${t.trial}`}
                className={opened ? 'clickable' : undefined}
                data-testid="trial-row"
                data-arm={t.arm}
                data-outcome={t.outcome}
                onClick={opened ? () => act(openForkedRun, t.run_id) : undefined}
              >
                <td>
                  <span className={`xp-arm-dot arm-${t.arm}`} aria-hidden="true" /> {t.arm}
                </td>
                <td className="num mono">{t.trial}</td>
                <td>
                  <span className={`xp-outcome tone-${outcomeTone(t.outcome)}`}>{t.outcome}</span>
                  {t.edit_applied === false && (
                    <span className="badge badge-warn" data-testid="edit-not-applied" title="The pipeline never consumed the edit in this trial: it tested nothing.">
                      edit not applied
                    </span>
                  )}
                </td>
                <td className="xp-detail">
                  {t.detail ? <TraceText text={t.detail} truncateAt={160} /> : <span className="muted">—</span>}
                  {t.stderr_tail && (
                    <details className="xp-stderr" data-testid="trial-stderr" onClick={(ev) => ev.stopPropagation()}>
                      <summary>last lines of stderr</summary>
                      <pre>
                        <TraceText text={t.stderr_tail} truncateAt={4000} />
                      </pre>
                      {t.log_file && (
                        <div className="muted small mono">
                          full log: <TraceText text={t.log_file} truncateAt={400} />
                        </div>
                      )}
                    </details>
                  )}
                </td>
                <td className="num mono">{formatDuration(t.duration_ms)}</td>
                <td className="num mono">{t.tokens ? formatTokens(t.tokens) : '—'}</td>
                <td>
                  {opened ? (
                    <button
                      type="button"
                      className="link-button mono"
                      data-testid="open-trial-run"
                      aria-label={`Open the run of ${t.arm} trial ${t.trial}`}
                      onClick={(ev) => {
                        ev.stopPropagation();
                        act(openForkedRun, t.run_id);
                      }}
                    >
                      <RunId id={t.run_id} /> →
                    </button>
                  ) : (
                    <span className="muted">—</span>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {sorted.length > limit && (
        <button type="button" className="link-button" onClick={() => setLimit(sorted.length)}>
          show all {sorted.length.toLocaleString('en-US')} trials
        </button>
      )}
    </section>
  );
}
