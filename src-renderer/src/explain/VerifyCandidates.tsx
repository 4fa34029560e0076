import { useState } from 'react';
import type { Explanation } from '../../../src-shared/explain';
import type { ForkEdit } from '../../../src-shared/replay-plan';
import type { Json } from '../../../src-shared/trace-format';
import type { ApiError } from '../../../src-shared/result';
import { useApi } from '../api/api-context';
import { useEngineQuery } from '../api/use-engine-query';
import { ErrorNote } from '../common/ErrorNote';
import { TraceText } from '../common/TraceText';

const DEFAULT_N = 5;

function forkEditOf(edit: { kind: 'output' | 'instructions'; value: unknown }): ForkEdit {
  return edit.kind === 'output' ? { kind: 'output', output: edit.value as Json } : { kind: 'instructions', instructions: String(edit.value) };
}

/**
 * "Verify": the accepted candidates that carry an edit run as fork experiments
 * (N trials per arm) and are re-ranked by measured effect. The command the
 * trials run is shown and must be approved first, as for every experiment.
 */
export function VerifyCandidates({ e, onVerified }: { e: Explanation; onVerified: (e: Explanation) => void }) {
  const api = useApi();
  const [n, setN] = useState(String(DEFAULT_N));
  const [approvedSha, setApprovedSha] = useState<string | null>(null);
  const [running, setRunning] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const withEdit = e.candidates.find((c) => c.proposed_edit);
  const nValue = /^\d+$/.test(n.trim()) ? Number(n) : NaN;
  const nOk = nValue >= 1 && nValue <= 500;
  const estimate = useEngineQuery('estimateExperiment', withEdit && nOk ? { runId: e.run_id, at: withEdit.step_id, edit: forkEditOf(withEdit.proposed_edit!), n: nValue } : null);
  const approval = estimate.data?.approval ?? null;
  if (!withEdit) return <p className="muted small">No accepted candidate proposes an edit, so there is nothing to verify by experiment.</p>;

  const verify = async () => {
    if (!approval) return;
    setRunning(true);
    setError(null);
    const r = await api.invoke('verifyExplanation', { runId: e.run_id, n: nValue, approve: true, approvedCommand: approval.sha });
    setRunning(false);
    if (r.ok) onVerified(r.value);
    else setError(r.error);
  };

  return (
    <div className="xp-confirm" data-testid="explain-verify">
      {(e.verification?.length ?? 0) > 0 && (
        <ol className="plain-list">
          {e.verification!.map((v) => (
            <li key={v.step_id} data-testid="explain-verification">
              <strong>{e.candidates.find((c) => c.step_id === v.step_id)?.step_name ?? v.step_id}</strong>:{' '}
              {v.skipped
                ? v.skipped
                : `effect ${v.effect === null ? 'n/a' : v.effect.toFixed(2)}, p = ${v.p_value === null ? 'n/a' : v.p_value.toPrecision(2)}${v.confirmed ? ' — confirmed' : ''}`}
              {v.motif_id && <span className="muted small"> · remembered as {v.motif_id}</span>}
            </li>
          ))}
        </ol>
      )}
      <p className="muted small">Verify runs each accepted candidate&apos;s proposed edit as a fork experiment and ranks them by measured effect.</p>
      <label className="xp-field xp-narrow">
        <span>N per arm</span>
        <input type="number" min={1} max={500} value={n} onChange={(ev) => setN(ev.target.value)} aria-invalid={!nOk || undefined} />
      </label>
      {estimate.error && <ErrorNote error={estimate.error} />}
      {approval && (
        <div className="xp-command small">
          <div className="muted">Each trial runs, on this machine:</div>
          <div className="xp-command-line">
            <TraceText text={approval.shown} truncateAt={2000} />
          </div>
        </div>
      )}
      <label className="xp-approve">
        <input type="checkbox" checked={approval !== null && approvedSha === approval.sha} disabled={approval === null} onChange={(ev) => setApprovedSha(ev.target.checked && approval ? approval.sha : null)} data-testid="verify-approve" />
        <span>I approve running this command</span>
      </label>
      <button type="button" className="button" data-testid="verify-start" disabled={running || !nOk || approval === null || approvedSha !== approval.sha} onClick={() => void verify()}>
        {running ? 'Verifying…' : 'Verify by experiment'}
      </button>
      {error && <ErrorNote error={error} />}
    </div>
  );
}
