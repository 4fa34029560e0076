import { useEffect, useMemo, useRef } from 'react';
import type { BlameResult, Evidence, StepHealth } from '../../../src-shared/analysis';
import { stepRoles, type StepRole } from '../../../src-shared/run-state';
import type { Run, Step } from '../../../src-shared/model';
import type { Json } from '../../../src-shared/trace-format';
import { CopyButton } from '../common/CopyButton';
import { JsonView } from '../common/JsonView';
import { ContentView } from '../common/ContentView';
import { ForkFromHereButton } from '../experiments/ForkFromHereButton';
import { Section } from '../common/Section';
import { useEngineQuery } from '../api/use-engine-query';
import { TraceText } from '../common/TraceText';
import { act, setStepSearch, useUi } from '../state/ui-store';
import { formatDuration, formatScore } from '../text/format';
import { countMatches, type Needle } from '../text/highlight';
import { stringLeaves, toCopyText } from '../text/json-text';

type Field = Evidence['field'];

export function StepPanel({ run, step, health, blame }: { run: Run; step: Step; health: StepHealth | undefined; blame?: BlameResult }) {
  const search = useUi((s) => s.stepSearch);
  const evidence = useUi((s) => s.focusedEvidence);
  const ref = useRef<HTMLDivElement>(null);

  const needlesFor = (field: Field): Needle[] => {
    const out: Needle[] = [];
    if (search.trim()) out.push({ text: search.trim(), kind: 'search', caseSensitive: false });
    if (evidence && evidence.step_id === step.step_id && evidence.field === field && evidence.quote) {
      out.push({ text: evidence.quote, kind: 'evidence', caseSensitive: true });
    }
    return out;
  };

  const matches = useMemo(() => {
    const q = search.trim();
    if (!q) return 0;
    const texts = [
      ...stringLeaves(step.input ?? undefined),
      ...stringLeaves(step.output ?? undefined),
      ...stringLeaves(step.metadata as Json),
      step.error?.message ?? '',
      step.error?.stack ?? '',
    ];
    return texts.reduce((n, t) => n + countMatches(t, q), 0);
  }, [search, step]);

  // Bring the clicked evidence quote into view once it is rendered.
  useEffect(() => {
    if (!evidence || evidence.step_id !== step.step_id) return;
    const mark = ref.current?.querySelector('mark.hl-evidence');
    mark?.scrollIntoView({ block: 'center' });
  }, [evidence, step.step_id]);

  const offset = step.started_at - run.started_at;
  const usage = step.usage;
  const remountKey = `${step.step_id}|${search}|${evidence?.quote ?? ''}`;

  return (
    <div className="step-panel" ref={ref} data-testid="step-panel" data-step-id={step.step_id}>
      <div className="pane-head">
        <span className={`type-tag type-${step.type}`}>{step.type}</span>
        <span className="pane-title step-title">
          <TraceText text={step.name} truncateAt={200} />
        </span>
        <StepRolePill step={step} blame={blame} />
        <ForkFromHereButton runId={run.run_id} stepId={step.step_id} />
      </div>
      <div className="pane-head secondary">
        <input
          type="search"
          className="search small"
          placeholder="Search in this step…"
          aria-label="Search in this step"
          value={search}
          onChange={(e) => act(setStepSearch, e.target.value)}
        />
        {search.trim() && (
          <span className="muted" data-testid="step-search-count">
            {matches} match{matches === 1 ? '' : 'es'}
          </span>
        )}
      </div>

      <dl className="facts">
        <dt>step</dt>
        <dd className="mono">
          #{step.index} · {step.step_id} <CopyButton text={() => step.step_id} label="copy id" />
        </dd>
        <dt>replay key</dt>
        <dd className="mono">
          <TraceText text={step.replay_key} truncateAt={300} />
        </dd>
        <dt>timing</dt>
        <dd className="mono">
          {formatDuration(step.duration_ms)} <span className="muted">at +{formatDuration(offset)}</span>
        </dd>
        {step.model && (
          <>
            <dt>model</dt>
            <dd className="mono">
              <TraceText text={step.model} truncateAt={200} />
            </dd>
          </>
        )}
        {usage && (
          <>
            <dt>tokens</dt>
            <dd className="mono">
              in {usage.input_tokens ?? '—'} · out {usage.output_tokens ?? '—'} · total{' '}
              {usage.total_tokens ?? (usage.input_tokens ?? 0) + (usage.output_tokens ?? 0)}
              {usage.cost_usd !== undefined && ` · $${usage.cost_usd.toFixed(4)}`}
            </dd>
          </>
        )}
        {step.replayed && (
          <>
            <dt>replayed</dt>
            <dd>output came from a replay plan</dd>
          </>
        )}
      </dl>

      {step.error && (
        <Section
          title="Error"
          testId="step-error"
          actions={<CopyButton text={() => [step.error!.type + ': ' + step.error!.message, step.error!.stack ?? ''].join('\n')} />}
        >
          <div className="error-block trace-text" key={remountKey}>
            <strong>
              <TraceText text={step.error.type} needles={needlesFor('error')} truncateAt={200} />
            </strong>
            {step.error.status !== undefined && <span className="badge badge-bad">status {step.error.status}</span>}
            {': '}
            <TraceText text={step.error.message} needles={needlesFor('error')} />
          </div>
          {step.error.stack && (
            <pre className="stack trace-text" key={`s${remountKey}`}>
              <TraceText text={step.error.stack} needles={needlesFor('error')} truncateAt={8000} />
            </pre>
          )}
        </Section>
      )}

      <ScoresSection health={health} step={step} blame={blame} />

      {/* The answer first: a chat step's output would otherwise sit under its whole input conversation. */}
      <Section title="Output" testId="step-output" actions={<CopyButton text={() => toCopyText(step.output ?? undefined)} />}>
        {step.output === null || step.output === undefined ? (
          <span className="muted">{step.status === 'running' ? 'still running' : 'none recorded'}</span>
        ) : (
          <ContentView key={remountKey} value={step.output} needles={needlesFor('output')} />
        )}
      </Section>
      <Section title="Input" testId="step-input" actions={<CopyButton text={() => toCopyText(step.input ?? undefined)} />}>
        {step.input === null || step.input === undefined ? <span className="muted">none recorded</span> : <ContentView key={remountKey} value={step.input} needles={needlesFor('input')} />}
      </Section>
      {Object.keys(step.metadata ?? {}).length > 0 && (
        <Section title="Metadata" testId="step-metadata" actions={<CopyButton text={() => toCopyText(step.metadata as Json)} />}>
          <JsonView key={remountKey} value={step.metadata as Json} needles={needlesFor('metadata')} />
        </Section>
      )}
      {Object.keys(step.extra ?? {}).length > 0 && (
        <Section title="Unknown fields (kept from the trace)" defaultOpen={false}>
          <JsonView value={step.extra as Json} needles={[]} />
        </Section>
      )}
    </div>
  );
}

const ROLE_WORDS: Record<StepRole, string> = {
  blamed: 'blamed',
  'co-blamed': 'co-blamed',
  suspect: 'suspect',
  symptom: 'symptom',
  recovered: 'recovered',
};

/**
 * The step's state as the blame panel sees it: the culprit reads "blamed" here
 * too, never "ok" with a perfect health score; a step's own status shows only
 * when blame gives it no part.
 */
function StepRolePill({ step, blame }: { step: Step; blame?: BlameResult }) {
  const role = useMemo(() => stepRoles(blame).get(step.step_id), [blame, step.step_id]);
  const finding = blame ? [...blame.blamed, ...blame.co_blamed].find((b) => b.step_id === step.step_id) : undefined;
  if (role) {
    const bad = role === 'blamed' || role === 'co-blamed' || role === 'symptom';
    return (
      <span
        className={`status-pill status-${bad ? 'failed' : role === 'recovered' ? 'healthy' : 'unknown'}`}
        data-testid="step-role"
        title={finding ? `blame ${formatScore(finding.score)} · ${finding.confidence} confidence · rule ${finding.rule}` : undefined}
      >
        {ROLE_WORDS[role]}
        {finding && ` · ${formatScore(finding.score)}`}
      </span>
    );
  }
  const word = step.status === 'error' ? 'error' : step.status === 'running' ? 'running' : 'ok';
  return (
    <span className={`status-pill status-${step.status === 'error' ? 'failed' : step.status === 'running' ? 'running' : 'healthy'}`} data-testid="step-role">
      {word}
    </span>
  );
}

function ScoresSection({ health, step, blame }: { health: StepHealth | undefined; step: Step; blame?: BlameResult }) {
  // A big run's blame lists steps whose every check passed by id only: their checks come when the panel opens.
  const unlisted = !health?.checks.length && health?.score === 1 && blame?.step_scores_passed !== undefined;
  const fetched = useEngineQuery('getStepScores', unlisted ? { runId: step.run_id, stepIds: [step.step_id] } : null);
  const checks = health?.checks.length ? health.checks : (fetched.data?.[0]?.checks ?? []);
  // A step blame names reads as blamed here too: its scorers' verdict is shown as theirs, not as the step's health.
  const finding = blame ? [...blame.blamed, ...blame.co_blamed].find((b) => b.step_id === step.step_id) : undefined;
  const user = step.user_scores.filter((u) => !checks.some((c) => c.name === u.name && c.source === u.source));
  const all = [...checks, ...user];
  return (
    <Section
      title="Scores"
      testId="step-scores"
      badge={
        <span className="mono score-badge">
          {!blame ? 'not scored yet' : health?.score === null || health?.score === undefined ? 'unscored' : `${finding ? 'scorers' : 'health'} ${formatScore(health.score)}`}
        </span>
      }
    >
      {finding && (
        <p className="blamed-note" data-testid="step-blamed-note">
          Blamed ({finding.rule}, {formatScore(finding.score)}) whatever its scorers said: <TraceText text={finding.reason} truncateAt={400} />
        </p>
      )}
      {all.length === 0 && unlisted ? (
        <span className="muted" data-testid="checks-passed-unlisted">
          {fetched.error ? 'Every check passed (they could not be listed).' : 'Every check passed; listing them…'}
        </span>
      ) : all.length === 0 && !blame ? (
        <span className="muted">Scored with the run's blame, which is not worked out yet.</span>
      ) : all.length === 0 ? (
        <span className="muted">No scorer applied to this step.</span>
      ) : (
        <ul className="checks">
          {all.map((c, i) => (
            <li key={`${c.source}:${c.name}:${i}`} className={c.value < 0.5 ? 'check-bad' : 'check-good'}>
              <span className="check-bar">
                <span style={{ width: `${Math.max(0, Math.min(1, c.value)) * 100}%` }} />
              </span>
              <span className="mono check-value">{formatScore(c.value)}</span>
              <span className="check-name">
                <TraceText text={c.name} truncateAt={120} /> <span className="muted">({c.source})</span>
              </span>
              {c.explanation && (
                <span className="check-explanation">
                  <TraceText text={c.explanation} truncateAt={600} />
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
    </Section>
  );
}
