import { useMemo } from 'react';
import { AUTO_BLAME_MAX_STEPS, type BlamedStep, type BlameResult } from '../../../src-shared/analysis';
import type { Json } from '../../../src-shared/trace-format';
import { ErrorNote } from '../common/ErrorNote';
import { ExplainPanel } from '../explain/ExplainPanel';
import { ConfirmationBadge, ConfirmBlame } from '../experiments/ConfirmBlame';
import { ForkFromHereButton } from '../experiments/ForkFromHereButton';
import { useExperimentUi } from '../experiments/experiment-ui';
import { Section } from '../common/Section';
import { TraceText } from '../common/TraceText';
import { act, focusEvidence, selectStep } from '../state/ui-store';
import { formatScore } from '../text/format';
import type { RunModel } from './use-run-model';
import { importCounts, useRunImportProblems } from './RunImportProblems';
import { useEngineQuery } from '../api/use-engine-query';
import { withPayload } from '../../../src-shared/run-skeleton';

const OTHER_SCORES_SHOWN = 12;

/** A run too large to blame unasked (AUTO_BLAME_MAX_STEPS): what blaming it takes, and the button that does it. */
function DeferredBlame({ steps, onAsk }: { steps: number; onAsk: () => void }) {
  return (
    <div className="blame-panel" data-testid="blame-deferred">
      <div className="verdict-banner unknown">
        <strong>Not blamed yet.</strong> This run has {steps.toLocaleString('en-US')} steps. Runs of more than {AUTO_BLAME_MAX_STEPS.toLocaleString('en-US')} steps are
        blamed only when you ask: unless a blame of this state of the run is stored, blaming reads the whole run into memory (about 1–1.5 kB a step, here some{' '}
        {Math.round((steps * 1.5) / 1000).toLocaleString('en-US')} MB) and can take a while. Marking the run failed blames it too.
      </div>
      <div className="pad">
        <button type="button" className="button" onClick={onAsk}>
          Blame this run
        </button>
      </div>
    </div>
  );
}

export function BlamePanel({ model }: { model: RunModel }) {
  const { blame, blameError, tree } = model;
  const nameOf = (id: string) => tree?.byId.get(id)?.name ?? id;
  const confirmed = useExperimentUi((s) => !!model.detail && !!s.confirmations[model.detail.run.run_id]);
  const lost = importCounts(useRunImportProblems(model.detail?.run.run_id ?? null)).errors;
  const probe = useProbe(model);
  if (blameError) return <ErrorNote error={blameError} />;
  if (model.blameDeferred !== null) return <DeferredBlame steps={model.blameDeferred} onAsk={model.askBlame} />;
  if (!blame) return <div className="muted pad">Working out blame…</div>;
  return (
    <div className="blame-panel" data-testid="blame-panel">
      {blame.healthy && blame.detection?.status === 'unknown' ? (
        <div className="verdict-banner unknown" data-testid="blame-verdict">
          <strong>Possibly failed.</strong> <TraceText text={blame.detection.description} truncateAt={400} /> The signs are not strong enough to blame a
          step; use <em>Mark as failed…</em> if the run did fail.
        </div>
      ) : blame.healthy ? (
        <div className={`verdict-banner ${lost ? 'unknown' : 'healthy'}`} data-testid="blame-verdict">
          {lost ? (
            <>
              <strong>No failure found in what was imported.</strong> The trace file lost {lost} line{lost === 1 ? '' : 's'} (see the import problems above), so a
              failing step may be missing.
            </>
          ) : (
            <>
              <strong>Healthy run.</strong> Nothing is blamed.
            </>
          )}
        </div>
      ) : (
        <div className="verdict-banner failed" data-testid="blame-verdict">
          <strong>{blame.asserted ? 'Failed (marked by you).' : `Failed${blame.failure ? `: ${blame.failure.kind}` : ''}.`}</strong>{' '}
          {blame.failure && <TraceText text={blame.failure.description} truncateAt={400} />}
        </div>
      )}
      <FailureSignals blame={blame} />
      {blame.blamed.length > 0 && <BlamedCard finding={blame.blamed[0]} primary runId={model.detail?.run.run_id} />}
      {blame.blamed.length === 0 && !blame.healthy && <div className="muted pad">No step could be blamed with the evidence in this trace.</div>}
      {blame.co_blamed.length > 0 && (
        <Section title="Co-blamed (a near tie with the top finding)" testId="co-blamed">
          {blame.co_blamed.map((f) => (
            <BlamedCard key={`${f.step_id}:${f.rule}`} finding={f} runId={model.detail?.run.run_id} />
          ))}
        </Section>
      )}
      {blame.blamed.length > 1 && (
        <Section title={`Other suspects, ranked lower (${blame.blamed.length - 1})`} testId="other-suspects" defaultOpen={blame.asserted === true}>
          {blame.blamed.slice(1).map((f) => (
            <BlamedCard key={`${f.step_id}:${f.rule}`} finding={f} runId={model.detail?.run.run_id} suspect />
          ))}
        </Section>
      )}
      {blame.symptoms.length > 0 && (
        <Section title="Symptoms (failed because of an upstream cause)" defaultOpen={false}>
          <ul className="plain-list">
            {blame.symptoms.map((s) => (
              <li key={s.step_id}>
                <button type="button" className="link-button" onClick={() => act(selectStep, s.step_id)}>
                  <TraceText text={s.name} truncateAt={100} />
                </button>{' '}
                <span className="muted">← caused by</span>{' '}
                <button type="button" className="link-button" onClick={() => act(selectStep, s.caused_by)}>
                  <TraceText text={nameOf(s.caused_by)} truncateAt={100} />
                </button>
                <div className="muted small">
                  <TraceText text={s.reason} truncateAt={400} />
                </div>
              </li>
            ))}
          </ul>
        </Section>
      )}
      {blame.lineage_path.length > 0 && (
        <Section title="Lineage path (cause → output)" testId="lineage-path">
          <ol className="lineage-chain">
            {blame.lineage_path.map((id, i) => (
              <li key={`${id}:${i}`}>
                <button type="button" className="chip chip-label" title="Select this step" onClick={() => act(selectStep, id)}>
                  <TraceText text={nameOf(id)} truncateAt={10_000} />
                </button>
              </li>
            ))}
          </ol>
        </Section>
      )}
      {!blame.healthy && blame.blamed.length > 0 && model.detail && (
        <Section title="Confirm blame by counterfactual" testId="confirm-blame-section" defaultOpen={confirmed}>
          <ConfirmBlame run={model.detail.run} nameOf={nameOf} probe={probe} />
        </Section>
      )}
      {!blame.healthy && model.detail && <ExplainPanel runId={model.detail.run.run_id} />}
      <OtherScores blame={blame} />
    </div>
  );
}

/**
 * A step to ask the engine's estimate about, only to learn the exact command it will show and its approval hash:
 * the top blamed step, with its payload fetched when the run was read in parts (the skeleton has no replay key).
 */
function useProbe(model: RunModel): { at: string; output: Json } | null {
  const top = model.blame?.blamed[0];
  const step = top ? model.tree?.byId.get(top.step_id) : undefined;
  const payload = useEngineQuery('getStepPayloads', model.paged && step && model.detail ? { runId: model.detail.run.run_id, stepIds: [step.step_id] } : null);
  if (!step) return null;
  const full = withPayload(step, payload.data?.[0]);
  return full.replay_key ? { at: full.replay_key, output: full.output ?? null } : null;
}

function BlamedCard({ finding, primary = false, suspect = false, runId }: { finding: BlamedStep; primary?: boolean; suspect?: boolean; runId?: string }) {
  return (
    <div className={`blamed-card${primary ? ' primary' : suspect ? ' suspect' : ''}`} data-testid={primary ? 'blamed-step' : suspect ? 'suspect-step' : 'co-blamed-step'}>
      <div className="blamed-head">
        <span className={`type-tag type-${finding.type}`}>{finding.type}</span>
        <button type="button" className="link-button blamed-name" title={finding.name} onClick={() => act(selectStep, finding.step_id)}>
          <TraceText text={finding.name} truncateAt={300} />
        </button>
        <span className={`badge confidence-${finding.confidence}`}>{finding.confidence} confidence</span>
        <span className="mono muted">blame {formatScore(finding.score)}</span>
      </div>
      <p className="blamed-reason" data-testid="blame-reason">
        <TraceText text={finding.reason} truncateAt={1000} />
      </p>
      {runId && <ConfirmationBadge runId={runId} stepId={finding.step_id} />}
      {finding.evidence.length > 0 && (
        <ul className="evidence-list">
          {finding.evidence.map((ev, i) => (
            <li key={i}>
              <button
                type="button"
                className="evidence"
                data-testid="evidence"
                title="Show this quote in the step"
                onClick={() => act(focusEvidence, ev)}
              >
                <span className="evidence-field">{ev.field}</span>
                <q className="trace-text">
                  <TraceText text={ev.quote} truncateAt={300} />
                </q>
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="blamed-foot">
        <span className="muted small">rule: {finding.rule}</span>
        <span className="toolbar-spacer" />
        {primary && runId && <ForkFromHereButton runId={runId} stepId={finding.step_id} />}
      </div>
    </div>
  );
}

/** What made the detector call the run failed (or possibly failed), strongest first. */
function FailureSignals({ blame }: { blame: BlameResult }) {
  const signals = blame.detection?.signals ?? blame.failure?.signals ?? [];
  if (signals.length === 0) return null;
  return (
    <Section title={`Failure signals (${signals.length})`} testId="failure-signals" defaultOpen={!blame.healthy || blame.detection?.status === 'unknown'}>
      <ul className="signal-list">
        {signals.slice(0, 8).map((s, i) => (
          <li key={`${s.name}:${i}`} data-testid="failure-signal">
            <span className="mono">{s.strength.toFixed(2)}</span> <strong>{s.name}</strong>{' '}
            {s.step_id ? (
              <button type="button" className="link-button" onClick={() => act(selectStep, s.step_id!)}>
                <TraceText text={s.description} truncateAt={300} />
              </button>
            ) : (
              <TraceText text={s.description} truncateAt={300} />
            )}
          </li>
        ))}
      </ul>
    </Section>
  );
}

function OtherScores({ blame }: { blame: BlameResult }) {
  const scored = useMemo(() => {
    const blamed = new Set([...blame.blamed, ...blame.co_blamed].map((b) => b.step_id));
    return blame.step_scores.filter((s) => s.score !== null && !blamed.has(s.step_id)).sort((a, b) => (a.score ?? 1) - (b.score ?? 1));
  }, [blame]);
  if (scored.length === 0) return null;
  return (
    <Section title={`Other steps' scores (${scored.length})`} defaultOpen={!blame.healthy}>
      <table className="mini-table">
        <tbody>
          {scored.slice(0, OTHER_SCORES_SHOWN).map((s) => (
            <tr key={s.step_id} onClick={() => act(selectStep, s.step_id)} className="clickable">
              <td className="mono num">{formatScore(s.score)}</td>
              <td>
                <TraceText text={s.name} truncateAt={80} />
              </td>
              <td>
                <span className={`type-tag type-${s.type}`}>{s.type}</span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {scored.length > OTHER_SCORES_SHOWN && <div className="muted small">lowest {OTHER_SCORES_SHOWN} shown</div>}
    </Section>
  );
}
