import { useState } from 'react';
import type { Explanation, GatedCandidate } from '../../../src-shared/explain';
import type { ApiError } from '../../../src-shared/result';
import { INVALID_TIME_TEXT, usableTimeMs } from '../../../src-shared/usable-time';
import { useApi } from '../api/api-context';
import { useEngineQuery } from '../api/use-engine-query';
import { ErrorNote } from '../common/ErrorNote';
import { Section } from '../common/Section';
import { TraceText } from '../common/TraceText';
import { act, selectStep } from '../state/ui-store';
import { VerifyCandidates } from './VerifyCandidates';
import { RunId } from '../common/RunId';
import { openExperiment, openForkedRun } from '../experiments/experiment-routes';

/**
 * "Explain with a model…" beside the deterministic blame (docs/explain.md):
 * never automatic. The first click only shows what would be sent, to which
 * model, and what it may cost; the second sends it. The answer shows the
 * candidates that passed the evidence gate, the ones it dropped and why,
 * and says so when the model disagrees with the rules. "Seen before" lists
 * remembered failures close to this one.
 */
export function ExplainPanel({ runId }: { runId: string }) {
  const api = useApi();
  const stored = useEngineQuery('getExplanation', { runId });
  const seen = useEngineQuery('seenBefore', { runId });
  const [asking, setAsking] = useState(false);
  const [sending, setSending] = useState(false);
  const [answer, setAnswer] = useState<Explanation | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const estimate = useEngineQuery('estimateExplain', asking ? { runId } : null);
  const shown = answer ?? stored.data ?? null;

  const send = async () => {
    setSending(true);
    setError(null);
    const r = await api.invoke('explainRun', { runId });
    setSending(false);
    setAsking(false);
    if (r.ok) setAnswer(r.value);
    else setError(r.error);
  };

  return (
    <>
      {(seen.data?.length ?? 0) > 0 && (
        <Section title={`Seen before (${seen.data!.length})`} testId="seen-before">
          <ul className="plain-list">
            {seen.data!.map((m) => (
              <li key={m.motif_id} data-testid="seen-before-motif">
                <span className="mono">{m.similarity.toFixed(2)}</span> <TraceText text={m.name} truncateAt={200} />
                <div className="muted small">
                  {m.motif_id}
                  {m.source_run_id ? (
                    <>
                      {' · learned from '}
                      <button type="button" className="link-button" data-testid="seen-before-run" onClick={() => act(openForkedRun, m.source_run_id!)}>
                        <RunId id={m.source_run_id} />
                      </button>
                    </>
                  ) : (
                    ' · imported'
                  )}
                  {m.experiment_id && m.source_run_id && (
                    <>
                      {' · proved by '}
                      <button type="button" className="link-button" onClick={() => act(openExperiment, m.source_run_id!, m.experiment_id!)}>
                        experiment {m.experiment_id}
                      </button>
                    </>
                  )}
                </div>
              </li>
            ))}
          </ul>
        </Section>
      )}
      <Section title="Second opinion from a model" testId="explain-section">
        {!asking && (
          <button type="button" className="button" data-testid="explain-button" onClick={() => setAsking(true)} disabled={sending}>
            Explain with a model…
          </button>
        )}
        {asking && estimate.error && <ErrorNote error={estimate.error} />}
        {asking && estimate.data && (
          <div className="explain-estimate" data-testid="explain-estimate">
            <p>
              Sends this run to <strong>{estimate.data.model}</strong>: about {estimate.data.input_tokens.toLocaleString()} input tokens and up to{' '}
              {estimate.data.max_output_tokens.toLocaleString()} output tokens, at most <strong>${estimate.data.cost_usd.toFixed(4)}</strong> (budget $
              {estimate.data.budget_usd.toFixed(2)}).
            </p>
            <p className="muted small">
              Full text of {estimate.data.full_text_steps.length} step(s) (the lineage path and the suspects); every other step as id, name, type and status.
              Secrets and your redaction rules applied: {estimate.data.redactions} value(s) redacted. Needs ANTHROPIC_API_KEY and the network.
            </p>
            <button type="button" className="button primary" data-testid="explain-send" onClick={() => void send()} disabled={sending || !estimate.data.within_budget}>
              {sending ? 'Asking…' : estimate.data.within_budget ? 'Send to the model' : 'Over budget'}
            </button>{' '}
            <button type="button" className="button" onClick={() => setAsking(false)} disabled={sending}>
              Cancel
            </button>
          </div>
        )}
        {error && <ErrorNote error={error} />}
        {shown && <ExplanationView e={shown} />}
        {shown && shown.candidates.length > 0 && <VerifyCandidates e={shown} onVerified={setAnswer} />}
      </Section>
    </>
  );
}

function ExplanationView({ e }: { e: Explanation }) {
  return (
    <div data-testid="explanation">
      {e.disagrees_with_blame && (
        <div className="verdict-banner unknown" data-testid="explain-disagrees">
          <strong>Disagrees with the deterministic blame.</strong> The model names another step than the rules; an experiment can settle it.
        </div>
      )}
      {e.note && (
        <p className="muted">
          <TraceText text={e.note} truncateAt={600} />
        </p>
      )}
      {e.candidates.map((c) => (
        <CandidateCard key={`${c.step_id}:${c.category}`} c={c} />
      ))}
      {e.rejected.length > 0 && (
        <Section title={`Rejected by the evidence gate (${e.rejected.length})`} testId="explain-rejected">
          {e.rejected.map((c) => (
            <CandidateCard key={`${c.step_id}:${c.category}`} c={c} rejected />
          ))}
        </Section>
      )}
      <div className="muted small">
        {e.model} · {usableTimeMs(e.created_at) === null ? INVALID_TIME_TEXT : new Date(e.created_at).toLocaleString()}
        {e.usage ? ` · ${e.usage.input_tokens} + ${e.usage.output_tokens} tokens` : ''}
      </div>
    </div>
  );
}

function CandidateCard({ c, rejected = false }: { c: GatedCandidate; rejected?: boolean }) {
  return (
    <div className={`blamed-card${rejected ? ' suspect' : ' primary'}`} data-testid={rejected ? 'explain-rejected-candidate' : 'explain-candidate'}>
      <div className="blamed-head">
        <button type="button" className="link-button blamed-name" onClick={() => act(selectStep, c.step_id)}>
          <TraceText text={c.step_name ?? c.step_id} truncateAt={200} />
        </button>
        <span className="badge">{c.category}</span>
        <span className="mono muted">confidence {c.confidence.toFixed(2)}</span>
      </div>
      <p className="blamed-reason">
        <TraceText text={c.hypothesis} truncateAt={1000} />
      </p>
      <ul className="evidence-list">
        {c.evidence.map((q, i) => (
          <li key={i} className={q.grounded ? '' : 'muted'}>
            <span className="evidence-field">{q.grounded ? `${q.field} ✓` : `${q.field} ✗ ${q.match.replace('_', ' ')}`}</span>{' '}
            <q className="trace-text">
              <TraceText text={q.quote} truncateAt={300} />
            </q>
          </li>
        ))}
      </ul>
      {c.rejected_because.map((r, i) => (
        <div key={i} className="small" data-testid="explain-rejection-reason">
          Dropped: <TraceText text={r} truncateAt={400} />
        </div>
      ))}
    </div>
  );
}
