import { useId, useMemo, useState } from 'react';
import type { BlameCandidateResult } from '../../../src-shared/experiments';
import type { Run } from '../../../src-shared/model';
import type { Json } from '../../../src-shared/trace-format';
import type { ApiClient } from '../../../src-shared/client';
import { useApi } from '../api/api-context';
import { useEngineQuery } from '../api/use-engine-query';
import { ErrorNote } from '../common/ErrorNote';
import { TraceText } from '../common/TraceText';
import { act, selectStep } from '../state/ui-store';
import { formatTime } from '../text/format';
import { RunId } from '../common/RunId';
import { useShortRunId } from '../runs/use-short-ids';
import { commandLine, hasEntry } from './command-text';
import { armsLine, formatEffect, formatP } from './experiment-format';
import { openExperiment } from './experiment-routes';
import { actExperiments, setConfirmation, useExperimentUi } from './experiment-ui';
import { useLiveExperimentList } from './use-experiment-events';
import './experiments.css';

const DEFAULT_N = 5;

/** Fires confirmBlame and records its answer in the session store, whichever view is open when it ends. */
async function runConfirmation(api: ApiClient, runId: string, n: number, scope: 'blamed' | 'differing', referenceRunId: string | null, approvedCommand: string) {
  actExperiments(setConfirmation, runId, { state: 'running', startedAt: Date.now(), n, scope });
  const r = await api.invoke('confirmBlame', { runId, n, scope, approve: true, approvedCommand, ...(referenceRunId ? { referenceRunId } : {}) });
  actExperiments(setConfirmation, runId, r.ok ? { state: 'done', result: r.value, n, scope } : { state: 'error', error: r.error, n, scope });
}

/**
 * "Confirm blame by counterfactual": for each blamed step, fork this run with
 * a passing run's output at that step and measure whether it fixes the run.
 * The answer ranks the candidates by measured effect with BH-adjusted p.
 */
export function ConfirmBlame({ run, nameOf, probe }: { run: Run; nameOf: (stepId: string) => string; probe: { at: string; output: Json } | null }) {
  const api = useApi();
  const ids = useId();
  const confirmation = useExperimentUi((s) => s.confirmations[run.run_id]);
  const [n, setN] = useState(String(DEFAULT_N));
  const [differing, setDiffering] = useState(false);
  const [reference, setReference] = useState('');
  // Approval is of the exact command the engine shows (escaped, one line) and the run's content now: its hash.
  const [approvedSha, setApprovedSha] = useState<string | null>(null);
  const runs = useEngineQuery('listRuns', { pipeline: run.pipeline, limit: 2000 });
  const shortRunId = useShortRunId();
  const passing = useMemo(
    () => (runs.data ?? []).filter((r) => r.verdict?.pass && !r.forked && r.run_id !== run.run_id).sort((a, b) => b.started_at - a.started_at),
    [runs.data, run.run_id],
  );

  const nValue = /^\d+$/.test(n.trim()) ? Number(n) : NaN;
  const nOk = nValue >= 1 && nValue <= 500;
  const estimate = useEngineQuery('estimateExperiment', hasEntry(run.entry) && probe && nOk ? { runId: run.run_id, at: probe.at, edit: { kind: 'output', output: probe.output }, n: nValue } : null);
  const approval = estimate.data?.approval ?? null;
  const approved = approval !== null && approvedSha === approval.sha;
  const canRun = hasEntry(run.entry);
  const running = confirmation?.state === 'running';
  const ready = canRun && nOk && approved && passing.length > 0 && !running;

  return (
    <div className="xp-confirm" data-testid="confirm-blame">
      {confirmation?.state === 'running' && <ConfirmationProgress runId={run.run_id} since={confirmation.startedAt} />}
      {confirmation?.state === 'error' && <ErrorNote error={confirmation.error} />}
      {confirmation?.state === 'done' && <ConfirmationResult candidates={confirmation.result.candidates} rootCause={confirmation.result.root_cause_step_id} reference={confirmation.result.reference_run_id} runId={run.run_id} nameOf={nameOf} />}
      <p className="muted small">
        Which step really causes the failure? For each blamed step, Traceback forks this run with a passing run's output at that step (a
        transplant) and measures whether it fixes the run — treatment against control, N trials each.
      </p>
      {!canRun ? (
        <p className="muted small">View-only: this run has no recorded entry command.</p>
      ) : (
        <>
          <div className="xp-confirm-fields">
            <label className="xp-field">
              <span>Passing run to copy from</span>
              <select value={reference} onChange={(e) => setReference(e.target.value)} disabled={passing.length === 0}>
                <option value="">{passing.length ? 'newest passing run' : 'no passing run of this pipeline'}</option>
                {passing.map((r) => (
                  <option key={r.run_id} value={r.run_id}>
                    {shortRunId(r.run_id)} · {formatTime(r.started_at)}
                  </option>
                ))}
              </select>
            </label>
            <label className="xp-field xp-narrow">
              <span>N per arm</span>
              <input type="number" min={1} max={500} value={n} onChange={(e) => setN(e.target.value)} aria-invalid={!nOk || undefined} />
            </label>
          </div>
          <label className="xp-approve small">
            <input type="checkbox" checked={differing} onChange={(e) => setDiffering(e.target.checked)} />
            <span>Also test every other step whose output differs from the passing run's</span>
          </label>
          <div className="xp-command small" aria-labelledby={`${ids}-cmd`}>
            <div id={`${ids}-cmd`} className="muted">
              Each trial runs, on this machine{run.entry!.cwd ? ' in ' : ''}
              {run.entry!.cwd && <TraceText text={run.entry!.cwd} truncateAt={300} />}:
            </div>
            <div className="xp-command-line">
              <span className="xp-prompt" aria-hidden="true">
                $
              </span>{' '}
              <TraceText text={approval ? approval.shown : commandLine(run.entry!.command)} truncateAt={2000} />
            </div>
            {approval && <div className="muted small mono">approval {approval.sha.slice(0, 16)}</div>}
          </div>
          {estimate.error && <ErrorNote error={estimate.error} />}
          <label className="xp-approve">
            <input
              type="checkbox"
              checked={approved}
              disabled={approval === null}
              onChange={(e) => setApprovedSha(e.target.checked && approval ? approval.sha : null)}
              data-testid="confirm-approve"
            />
            <span>I approve running this command</span>
          </label>
          <div className="xp-confirm-actions">
            <button
              type="button"
              className="button"
              disabled={!ready}
              data-testid="confirm-blame-start"
              onClick={() => approvedSha && void runConfirmation(api, run.run_id, nValue, differing ? 'differing' : 'blamed', reference || null, approvedSha)}
            >
              {running ? 'Confirming…' : 'Confirm blame by counterfactual'}
            </button>
            {!nOk && <span className="xp-inline-error">N must be 1 to 500</span>}
          </div>
        </>
      )}
    </div>
  );
}

/** The confirmation's experiments as they run (they carry a group id and started after the request). */
function ConfirmationProgress({ runId, since }: { runId: string; since: number }) {
  const args = { runId };
  const list = useEngineQuery('listExperiments', args);
  useLiveExperimentList(args);
  const mine = (list.data ?? []).filter((e) => e.group_id && e.created_at >= since - 1000).sort((a, b) => a.created_at - b.created_at);
  return (
    <div className="xp-confirm-progress" role="status" data-testid="confirm-progress">
      <div>
        <span className="xp-spinner" aria-hidden="true" /> Testing candidates: {mine.filter((e) => e.status !== 'running').length} of {mine.length || '…'} done
      </div>
      <ul className="plain-list small">
        {mine.map((e) => (
          <li key={e.experiment_id}>
            <button type="button" className="link-button" onClick={() => act(openExperiment, runId, e.experiment_id)}>
              <TraceText text={e.at} truncateAt={60} />
            </button>{' '}
            <span className="mono muted">{armsLine(e)}</span> {e.status === 'running' && <span className="muted">running</span>}
          </li>
        ))}
      </ul>
    </div>
  );
}

function ConfirmationResult({
  candidates,
  rootCause,
  reference,
  runId,
  nameOf,
}: {
  candidates: BlameCandidateResult[];
  rootCause: string | null;
  reference: string;
  runId: string;
  nameOf: (id: string) => string;
}) {
  return (
    <div className="xp-confirm-result" data-testid="confirm-result">
      <div className={`xp-root ${rootCause ? 'found' : 'none'}`} data-testid="confirm-root-cause">
        {rootCause ? (
          <>
            Root cause, confirmed by counterfactual:{' '}
            <button type="button" className="link-button xp-root-name" onClick={() => act(selectStep, rootCause)}>
              <TraceText text={nameOf(rootCause)} truncateAt={80} />
            </button>
            <div className="muted small">the earliest step where transplanting the passing run's output fixes the run; later confirmed steps only carry the fault</div>
          </>
        ) : (
          <>No candidate was confirmed (effect &gt; 0 with adjusted p &lt; 0.05).</>
        )}
      </div>
      <table className="xp-table xp-confirm-table">
        <thead>
          <tr>
            <th scope="col">candidate</th>
            <th scope="col" className="num" title="Position in blame's ranking">
              blame
            </th>
            <th scope="col" className="num" title="treatment − control success rate">
              effect
            </th>
            <th scope="col" className="num" title="Benjamini–Hochberg adjusted p-value">
              adj. p
            </th>
            <th scope="col">result</th>
          </tr>
        </thead>
        <tbody>
          {candidates.map((c) => (
            <tr key={c.step_id} data-testid="confirm-candidate" data-confirmed={c.confirmed}>
              <td>
                <button type="button" className="link-button" onClick={() => act(selectStep, c.step_id)}>
                  <TraceText text={c.name} truncateAt={60} />
                </button>
              </td>
              <td className="num mono">{c.blame_rank === null ? '—' : `#${c.blame_rank + 1}`}</td>
              <td className="num mono">{formatEffect(c.effect)}</td>
              <td className="num mono">{formatP(c.p_adjusted)}</td>
              <td>
                {c.skipped ? (
                  <span className="muted small">
                    not tested: <TraceText text={c.skipped} truncateAt={160} />
                  </span>
                ) : (
                  <>
                    <span className={`badge ${c.confirmed ? 'badge-good' : ''}`}>{c.confirmed ? 'confirmed' : 'not confirmed'}</span>
                    {c.experiment_id && (
                      <button type="button" className="link-button small" onClick={() => act(openExperiment, runId, c.experiment_id!)}>
                        scoreboard
                      </button>
                    )}
                  </>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="muted small">
        outputs copied from run <RunId id={reference} />; ranked by measured effect
      </div>
    </div>
  );
}

/** Beside a blamed step: what the counterfactual test measured for it, once one ran in this session. */
export function ConfirmationBadge({ runId, stepId }: { runId: string; stepId: string }) {
  const c = useExperimentUi((s) => s.confirmations[runId]);
  if (!c) return null;
  if (c.state === 'running') return <div className="xp-badge-line muted small">counterfactual test running…</div>;
  if (c.state !== 'done') return null;
  const found = c.result.candidates.find((x) => x.step_id === stepId);
  if (!found) return null;
  if (found.skipped) return <div className="xp-badge-line muted small">counterfactual: not tested ({found.skipped})</div>;
  const root = c.result.root_cause_step_id === stepId;
  return (
    <div className={`xp-badge-line small ${found.confirmed ? 'is-confirmed' : ''}`} data-testid="confirmation-badge">
      <span className={`badge ${found.confirmed ? 'badge-good' : ''}`}>{found.confirmed ? (root ? 'root cause confirmed' : 'confirmed') : 'not confirmed'}</span>
      counterfactual effect <strong className="mono">{formatEffect(found.effect)}</strong> · adj. p <span className="mono">{formatP(found.p_adjusted)}</span>
    </div>
  );
}
