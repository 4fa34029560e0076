import { useEffect, useId, useRef, useState } from 'react';
import type { Run, Step } from '../../../src-shared/model';
import type { ApiError } from '../../../src-shared/result';
import { useApi } from '../api/api-context';
import { ErrorNote } from '../common/ErrorNote';
import { TraceText } from '../common/TraceText';
import { act } from '../state/ui-store';
import { commandLine, envLines, hasEntry } from './command-text';
import {
  checkInstructionsEdit,
  checkOutputEdit,
  initialOutputText,
  layoutJson,
  recordedInstructions,
  sameJsonValue,
  type JsonLayout,
  type OutputFormat,
} from './edit-draft';
import { formatCost, formatTokens } from './experiment-format';
import { openExperiment } from './experiment-routes';
import { actExperiments, closeForkEditor, discardForkDraft, draftKey, saveForkDraft, useExperimentUi, type ForkDraft } from './experiment-ui';
import { buildOracle, EMPTY_ORACLE_DRAFT, ORACLE_CHOICES, type OracleDraft, type OracleKind } from './oracle-draft';
import { DEFAULT_TRIAL_SETTINGS, parseTrialSettings, type TrialSettingsDraft } from './trial-settings';
import { useEstimate } from './use-estimate';
import './experiments.css';

type EditKind = 'output' | 'instructions';

/**
 * "Fork from here": edit what one step produced (or an llm step's
 * instructions), choose the trials and the oracle, read what it will cost and
 * run, approve the command, start. Nothing runs before Start, and Start needs
 * the explicit approval of the exact command read from the trace.
 */
export function ForkEditor({ run, step, steps }: { run: Run; step: Step; steps: Step[] }) {
  const api = useApi();
  const ids = useId();
  const textRef = useRef<HTMLTextAreaElement>(null);
  const canFork = hasEntry(run.entry);
  const isLlm = step.type === 'llm';

  const { recordedInstr, kind, setKind, outputText, setOutputText, format, setFormat, layout, setLayout, instructions, setInstructions, settings, setSettings, oracleDraft, setOracleDraft, discard } =
    useForkDraft(run, step);
  // The approval is of one exact command and run content (the estimate's sha): when the estimate changes, it lapses.
  const [approvedSha, setApprovedSha] = useState<string | null>(null);
  const [starting, setStarting] = useState(false);
  const [startError, setStartError] = useState<ApiError | null>(null);

  const check = kind === 'output' ? checkOutputEdit(outputText, format) : checkInstructionsEdit(instructions);
  const unchanged =
    check.ok &&
    (kind === 'output'
      ? sameJsonValue(check.edit.kind === 'output' ? check.edit.output : null, step.output)
      : recordedInstr !== null && instructions === recordedInstr);
  const trial = parseTrialSettings(settings);
  const oracle = buildOracle(oracleDraft);
  const n = trial.ok ? trial.value.n : null;
  const est = useEstimate(run.run_id, step.replay_key, check.ok ? check.edit : null, n, canFork);
  const command = est.estimate?.command ?? (run.entry ? { argv: run.entry.command, cwd: run.entry.cwd ?? null, env: run.entry.env ?? {} } : null);
  const shownSha = est.estimate?.approval?.sha ?? null;
  const approved = approvedSha !== null && approvedSha === shownSha;

  const blockers: string[] = [];
  if (!check.ok) blockers.push('fix the edit');
  if (!trial.ok) blockers.push(trial.message.replace(/\.$/, '').toLowerCase());
  if (!oracle.ok) blockers.push('complete the oracle');
  if (est.error) blockers.push('resolve the estimate error');
  if (!approved) blockers.push('approve the command');
  const ready = canFork && check.ok && trial.ok && oracle.ok && !est.error && approved && !starting;

  const position = steps.findIndex((s) => s.step_id === step.step_id);

  const reformat = (next: JsonLayout) => {
    setLayout(next);
    if (kind === 'output' && format === 'json' && check.ok && check.edit.kind === 'output') setOutputText(layoutJson(check.edit.output, next));
  };
  const switchFormat = (next: OutputFormat) => {
    if (next === format) return;
    // Text ↔ JSON keeps the value when it can: a JSON string becomes its text, text becomes a JSON string.
    if (next === 'text') {
      const parsed = checkOutputEdit(outputText, 'json');
      if (parsed.ok && parsed.edit.kind === 'output' && typeof parsed.edit.output === 'string') setOutputText(parsed.edit.output);
    } else {
      setOutputText(JSON.stringify(outputText));
    }
    setFormat(next);
  };
  const reset = () => {
    if (kind === 'output') {
      const again = initialOutputText(step.output, layout);
      setOutputText(again.text);
      setFormat(again.format);
    } else setInstructions(recordedInstr ?? '');
  };
  const goToError = () => {
    if (check.ok || !('line' in check) || !check.line || !textRef.current) return;
    const lines = outputText.split('\n');
    let offset = 0;
    for (let i = 0; i < check.line - 1 && i < lines.length; i++) offset += lines[i].length + 1;
    offset += (check.column ?? 1) - 1;
    textRef.current.focus();
    textRef.current.setSelectionRange(offset, Math.min(offset + 1, outputText.length));
  };

  const start = async () => {
    if (!ready || !check.ok || !trial.ok || !oracle.ok) return;
    setStarting(true);
    setStartError(null);
    const result = await api.invoke('startExperiment', {
      runId: run.run_id,
      at: step.replay_key,
      edit: check.edit,
      ...trial.value,
      oracle: oracle.oracle,
      approve: true,
      ...(approvedSha ? { approvedCommand: approvedSha } : {}),
    });
    setStarting(false);
    if (!result.ok) {
      setStartError(result.error);
      return;
    }
    discard();
    act(openExperiment, run.run_id, result.value.experiment_id);
  };

  const trials = n === null ? null : 2 * n;

  return (
    // Not a <form>: Enter in a number field must never start trials.
    <div className="xp-editor" role="form" data-testid="fork-editor" aria-labelledby={`${ids}-title`}>
      <header className="xp-editor-head">
        <div>
          <div className="xp-kicker">Fork experiment</div>
          <h2 id={`${ids}-title`} className="xp-title">
            Fork at <span className={`type-tag type-${step.type}`}>{step.type}</span>{' '}
            <TraceText text={step.name} truncateAt={120} />
          </h2>
          <div className="muted small mono">
            {step.replay_key} · step {position + 1} of {steps.length}
          </div>
        </div>
        <span className="toolbar-spacer" />
        <button type="button" className="button ghost" onClick={() => actExperiments(closeForkEditor)} title="Close; the edit is kept until you discard it">
          Close
        </button>
      </header>

      <p className="xp-lede">
        Steps before this one replay from the recording (no model or tool calls). <strong>Treatment</strong> gets your edit here,{' '}
        <strong>control</strong> the recorded {kind === 'output' ? 'output' : 'instructions'}; everything after runs live in both.
      </p>

      {!canFork && (
        <div className="xp-viewonly" role="note" data-testid="fork-view-only">
          <strong>View-only:</strong> this run has no recorded entry command, so Traceback cannot start it again.
          {run.source_format !== 'native' && <> It was imported from a {run.source_format} file.</>} Record it with the Traceback SDK to fork it.
        </div>
      )}

      <section className="xp-block" aria-labelledby={`${ids}-edit`}>
        <div className="xp-block-head">
          <h3 id={`${ids}-edit`}>1 · The edit</h3>
          {isLlm && (
            <div className="segmented" role="group" aria-label="What to edit">
              <button type="button" aria-pressed={kind === 'output'} onClick={() => setKind('output')}>
                Output
              </button>
              <button type="button" aria-pressed={kind === 'instructions'} onClick={() => setKind('instructions')}>
                Instructions
              </button>
            </div>
          )}
          <span className="toolbar-spacer" />
          {kind === 'output' && (
            <>
              <div className="segmented" role="group" aria-label="Read the text as">
                <button type="button" aria-pressed={format === 'json'} onClick={() => switchFormat('json')} title="The text is a JSON value">
                  JSON
                </button>
                <button type="button" aria-pressed={format === 'text'} onClick={() => switchFormat('text')} title="The text is sent as one JSON string">
                  Text
                </button>
              </div>
              {format === 'json' && (
                <div className="segmented" role="group" aria-label="JSON layout">
                  <button type="button" aria-pressed={layout === 'pretty'} onClick={() => reformat('pretty')} disabled={!check.ok}>
                    Pretty
                  </button>
                  <button
                    type="button"
                    aria-pressed={layout === 'compact'}
                    onClick={() => reformat('compact')}
                    disabled={!check.ok}
                    title="Canonical: one line, exactly the bytes the trial receives (key order kept)"
                  >
                    Canonical
                  </button>
                </div>
              )}
            </>
          )}
        </div>

        {kind === 'output' ? (
          <textarea
            ref={textRef}
            className={`xp-code${check.ok ? '' : ' is-invalid'}`}
            aria-label={`New output of ${step.name}`}
            aria-invalid={!check.ok}
            aria-describedby={`${ids}-check`}
            data-testid="fork-edit-output"
            spellCheck={false}
            value={outputText}
            rows={Math.min(14, Math.max(4, outputText.split('\n').length))}
            onChange={(e) => setOutputText(e.target.value)}
          />
        ) : (
          <>
            {recordedInstr === null && (
              <p className="muted small">
                This step recorded no instructions. Text typed here replaces the default the pipeline passes to the SDK's{' '}
                <code>instructions()</code> call.
              </p>
            )}
            <textarea
              className={`xp-code xp-prose${check.ok ? '' : ' is-invalid'}`}
              aria-label={`New instructions for ${step.name}`}
              aria-invalid={!check.ok}
              aria-describedby={`${ids}-check`}
              data-testid="fork-edit-instructions"
              value={instructions}
              rows={8}
              onChange={(e) => setInstructions(e.target.value)}
            />
          </>
        )}
        <div id={`${ids}-check`} className={`xp-check ${check.ok ? (unchanged ? 'warn' : 'ok') : 'bad'}`} role="status" data-testid="fork-edit-check">
          {check.ok ? (
            <>
              <span aria-hidden="true">{unchanged ? '!' : '✓'}</span>{' '}
              {kind === 'output' ? (format === 'json' ? 'Valid JSON' : 'Text, sent as a JSON string') : 'Instructions'} ·{' '}
              {check.bytes.toLocaleString('en-US')} bytes ·{' '}
              {unchanged ? 'same as the recording: both arms would be identical' : 'differs from the recording'}
            </>
          ) : (
            <>
              <span aria-hidden="true">✗</span> {check.message}{' '}
              {'line' in check && check.line && (
                <button type="button" className="link-button" onClick={goToError}>
                  go to error
                </button>
              )}
            </>
          )}
          <span className="toolbar-spacer" />
          <button type="button" className="mini-button" onClick={reset}>
            Reset to recorded
          </button>
        </div>
      </section>

      <TrialsAndOracle ids={ids} settings={settings} setSettings={setSettings} trial={trial} oracleDraft={oracleDraft} setOracleDraft={setOracleDraft} oracle={oracle} trials={trials} />

      <WhatWillRun ids={ids} canFork={canFork} est={est} n={n} inputsValid={check.ok && trial.ok} />

      {canFork && command && (
        <ApproveCommand ids={ids} pipeline={run.pipeline} command={command} est={est} trials={trials} approved={approved} shownSha={shownSha} onApprove={setApprovedSha} />
      )}

      {startError && <ErrorNote error={startError} />}
      <footer className="xp-editor-foot">
        {canFork ? (
          <>
            <button type="button" className="button primary xp-start" disabled={!ready} data-testid="fork-start" onClick={() => void start()}>
              {starting ? 'Starting…' : `Start ${trials ?? ''} trials`.replace('  ', ' ')}
            </button>
            {!ready && !starting && blockers.length > 0 && <span className="muted small">To start: {blockers.join(', ')}.</span>}
          </>
        ) : (
          <span className="muted">View-only: this run has no recorded entry command.</span>
        )}
        <span className="toolbar-spacer" />
        <button type="button" className="button" onClick={discard} title="Close the editor and forget this edit">
          Discard
        </button>
      </footer>
    </div>
  );
}

/**
 * The editor's draft (what to edit, the new output or instructions, trial settings, oracle): it starts from a
 * draft left in another tab, or from the recording, and is saved when the editor closes unless discarded.
 */
function useForkDraft(run: Run, step: Step) {
  const recordedInstr = recordedInstructions(step.metadata);
  // A draft left in another tab comes back; otherwise the editor starts from the recording.
  const [saved] = useState<ForkDraft | undefined>(() => useExperimentUi.getState().drafts[draftKey(run.run_id, step.step_id)]);
  const [initial] = useState(() => initialOutputText(step.output, 'pretty'));
  const [kind, setKind] = useState<EditKind>(saved?.kind ?? 'output');
  const [outputText, setOutputText] = useState(saved?.outputText ?? initial.text);
  const [format, setFormat] = useState<OutputFormat>(saved?.format ?? initial.format);
  const [layout, setLayout] = useState<JsonLayout>(saved?.layout ?? 'pretty');
  const [instructions, setInstructions] = useState(saved?.instructions ?? recordedInstr ?? '');
  const [settings, setSettings] = useState<TrialSettingsDraft>(saved?.settings ?? DEFAULT_TRIAL_SETTINGS);
  const [oracleDraft, setOracleDraft] = useState<OracleDraft>(saved?.oracle ?? EMPTY_ORACLE_DRAFT);
  const draft = useRef<ForkDraft | null>(null);
  draft.current = { kind, outputText, format, layout, instructions, settings, oracle: oracleDraft };
  const discarded = useRef(false);
  useEffect(
    () => () => {
      if (!discarded.current && draft.current) actExperiments(saveForkDraft, run.run_id, step.step_id, draft.current);
    },
    [run.run_id, step.step_id],
  );
  const discard = () => {
    discarded.current = true;
    actExperiments(discardForkDraft, run.run_id, step.step_id);
  };
  return { recordedInstr, kind, setKind, outputText, setOutputText, format, setFormat, layout, setLayout, instructions, setInstructions, settings, setSettings, oracleDraft, setOracleDraft, discard };
}

type Estimate = ReturnType<typeof useEstimate>;
type ShownCommand = { argv: string[]; cwd: string | null; env: Record<string, string> };

/** 2 · Trials and oracle: N, parallelism, timeout, label, and how each trial is judged. */
function TrialsAndOracle({
  ids,
  settings,
  setSettings,
  trial,
  oracleDraft,
  setOracleDraft,
  oracle,
  trials,
}: {
  ids: string;
  settings: TrialSettingsDraft;
  setSettings: (s: TrialSettingsDraft) => void;
  trial: ReturnType<typeof parseTrialSettings>;
  oracleDraft: OracleDraft;
  setOracleDraft: (d: OracleDraft) => void;
  oracle: ReturnType<typeof buildOracle>;
  trials: number | null;
}) {
  const field = (name: keyof TrialSettingsDraft) => ({
    value: settings[name],
    onChange: (e: { target: { value: string } }) => setSettings({ ...settings, [name]: e.target.value }),
    'aria-invalid': !trial.ok && trial.field === name ? true : undefined,
  });
  const oracleField = (name: keyof OracleDraft) => ({
    value: oracleDraft[name],
    onChange: (e: { target: { value: string } }) => setOracleDraft({ ...oracleDraft, [name]: e.target.value }),
  });
  return (
    <section className="xp-block" aria-labelledby={`${ids}-trials`}>
      <div className="xp-block-head">
        <h3 id={`${ids}-trials`}>2 · Trials and oracle</h3>
      </div>
      <div className="xp-grid xp-grid-trials">
        <label className="xp-field">
          <span>Trials per arm (N)</span>
          <input type="number" min={1} max={500} inputMode="numeric" data-testid="fork-n" {...field('n')} />
        </label>
        <label className="xp-field">
          <span>Parallel trials</span>
          <input type="number" min={1} max={64} placeholder="all cores" {...field('parallel')} />
        </label>
        <label className="xp-field">
          <span>Timeout per trial (s)</span>
          <input type="number" min={0.1} max={86400} step="any" {...field('timeoutS')} />
        </label>
        <label className="xp-field">
          <span>Label (optional)</span>
          <input type="text" maxLength={200} placeholder="e.g. plan by population" {...field('label')} />
        </label>
      </div>
      {!trial.ok && (
        <div className="xp-check bad" role="alert">
          ✗ {trial.message}
        </div>
      )}
      <div className="xp-grid">
        <label className="xp-field xp-wide">
          <span>Judge each trial by</span>
          <select
            value={oracleDraft.kind}
            data-testid="fork-oracle"
            onChange={(e) => setOracleDraft({ ...oracleDraft, kind: e.target.value as OracleKind })}
          >
            {ORACLE_CHOICES.map((c) => (
              <option key={c.kind} value={c.kind}>
                {c.label}
              </option>
            ))}
          </select>
        </label>
        {oracleDraft.kind === 'equals' && (
          <label className="xp-field xp-wide">
            <span>Expected output (JSON, or text)</span>
            <input type="text" className="mono" {...oracleField('value')} />
          </label>
        )}
        {oracleDraft.kind === 'contains' && (
          <label className="xp-field xp-wide">
            <span>Text the output contains</span>
            <input type="text" className="mono" {...oracleField('text')} />
          </label>
        )}
        {oracleDraft.kind === 'regex' && (
          <>
            <label className="xp-field xp-wide">
              <span>Regular expression</span>
              <input type="text" className="mono" {...oracleField('pattern')} />
            </label>
            <label className="xp-field">
              <span>Flags (i m s u)</span>
              <input type="text" className="mono" maxLength={4} {...oracleField('flags')} />
            </label>
          </>
        )}
        {oracleDraft.kind === 'json-path' && (
          <>
            <label className="xp-field">
              <span>Path</span>
              <input type="text" className="mono" placeholder="answer.cities[0]" {...oracleField('path')} />
            </label>
            <label className="xp-field xp-wide">
              <span>Equals (JSON, or text)</span>
              <input type="text" className="mono" {...oracleField('value')} />
            </label>
          </>
        )}
        {oracleDraft.kind === 'command' && (
          <label className="xp-field xp-full">
            <span>Command (gets the final output as JSON on stdin; exit 0 = pass)</span>
            <input type="text" className="mono" {...oracleField('command')} />
          </label>
        )}
      </div>
      <p className="muted small xp-hint">{ORACLE_CHOICES.find((c) => c.kind === oracleDraft.kind)?.hint}</p>
      {oracleDraft.kind === 'command' && (
        <div className="xp-check warn" role="note">
          ! This command runs on this machine, through the shell, once per trial ({trials ?? '2N'} times), for up to 60 s each.
        </div>
      )}
      {!oracle.ok && <div className="xp-check bad">✗ {oracle.message}</div>}
    </section>
  );
}

/** 3 · What will run: replayed and live steps, trials, and the cost estimated from the recording. */
function WhatWillRun({ ids, canFork, est, n, inputsValid }: { ids: string; canFork: boolean; est: Estimate; n: number | null; inputsValid: boolean }) {
  return (
    <section className="xp-block" aria-labelledby={`${ids}-cost`} data-testid="fork-estimate">
      <div className="xp-block-head">
        <h3 id={`${ids}-cost`}>3 · What will run</h3>
        {est.loading && <span className="muted small">estimating…</span>}
      </div>
      {!canFork ? (
        <p className="muted">Nothing: a view-only run cannot be forked.</p>
      ) : est.error ? (
        <ErrorNote error={est.error} />
      ) : est.estimate ? (
        <>
          <dl className="xp-estimate">
            <div>
              <dt>Replayed from the recording</dt>
              <dd>
                <strong>{est.estimate.replayed_steps}</strong> step{est.estimate.replayed_steps === 1 ? '' : 's'} <span className="muted">· no calls</span>
              </dd>
            </div>
            <div>
              <dt>Re-run live, per trial</dt>
              <dd data-testid="estimate-downstream">
                <strong>{est.estimate.downstream_steps}</strong> step{est.estimate.downstream_steps === 1 ? '' : 's'}
              </dd>
            </div>
            <div>
              <dt>Trials</dt>
              <dd>
                <strong>{est.estimate.trials}</strong> <span className="muted">({n} treatment + {n} control)</span>
              </dd>
            </div>
            <div>
              <dt>All trials, from recorded usage</dt>
              <dd>
                <strong>{est.estimate.total.calls.toLocaleString('en-US')}</strong> calls · <strong>{formatTokens(est.estimate.total.tokens)}</strong> tokens ·{' '}
                <strong>{formatCost(est.estimate.total.cost_usd)}</strong>
              </dd>
            </div>
            <div>
              <dt>Replaying the prefix saves</dt>
              <dd>
                {est.estimate.saved.calls.toLocaleString('en-US')} calls · {formatTokens(est.estimate.saved.tokens)} tokens ·{' '}
                {formatCost(est.estimate.saved.cost_usd)}
              </dd>
            </div>
          </dl>
          {est.estimate.warnings.length > 0 && (
            <ul className="xp-warnings" data-testid="estimate-warnings">
              {est.estimate.warnings.map((w, i) => (
                <li key={i}>
                  <TraceText text={w} truncateAt={600} />
                </li>
              ))}
            </ul>
          )}
        </>
      ) : (
        <p className="muted">{inputsValid ? 'Estimating…' : 'The estimate appears once the edit and N are valid.'}</p>
      )}
    </section>
  );
}

/** 4 · Approve the command: exactly what each trial starts, and an approval bound to the estimate's sha. */
function ApproveCommand({
  ids,
  pipeline,
  command,
  est,
  trials,
  approved,
  shownSha,
  onApprove,
}: {
  ids: string;
  pipeline: string;
  command: ShownCommand;
  est: Estimate;
  trials: number | null;
  approved: boolean;
  shownSha: string | null;
  onApprove: (sha: string | null) => void;
}) {
  return (
    <section className="xp-block xp-safety" aria-labelledby={`${ids}-cmd`}>
      <div className="xp-block-head">
        <h3 id={`${ids}-cmd`}>4 · Approve the command</h3>
      </div>
      <p className="xp-safety-lede">
        Each trial starts this command, read from the run's trace, on this machine{trials ? ` — ${trials} times` : ''}, with a minimal
        environment{est.estimate?.trial_env?.length ? ` (${est.estimate.trial_env.join(', ')})` : ''}: never your keys or Traceback's own
        variables.
      </p>
      {est.estimate?.approval ? (
        <div className="xp-command" data-testid="fork-command">
          <div className="xp-command-line">
            <span className="xp-prompt" aria-hidden="true">
              $
            </span>{' '}
            <TraceText text={est.estimate.approval.shown} truncateAt={4000} />
          </div>
          <div className="muted small mono">approval {est.estimate.approval.sha.slice(0, 16)}{est.estimate.approval.foreign ? ' · imported run: never remembered' : ''}</div>
        </div>
      ) : (
      <div className="xp-command" data-testid="fork-command">
        {command.cwd && (
          <div className="xp-command-cwd">
            <span className="muted">in</span> <TraceText text={command.cwd} truncateAt={500} />
          </div>
        )}
        {envLines(command.env).map((e) => (
          <div key={e.name} className="xp-command-env">
            <TraceText text={`${e.name}=${e.value}`} truncateAt={300} />
            {e.redacted && <span className="muted"> (redacted in the trace: not passed on)</span>}
          </div>
        ))}
        <div className="xp-command-line">
          <span className="xp-prompt" aria-hidden="true">
            $
          </span>{' '}
          <TraceText text={commandLine(command.argv)} truncateAt={4000} />
        </div>
      </div>
      )}
      {est.estimate && !est.estimate.approval_needed && (
        <p className="muted small">You approved this exact command for pipeline “{pipeline}” before; approve it again to start.</p>
      )}
      <label className="xp-approve">
        <input
          type="checkbox"
          checked={approved}
          disabled={shownSha === null}
          onChange={(e) => onApprove(e.target.checked ? shownSha : null)}
          data-testid="fork-approve"
        />
        <span>I approve running this command</span>
      </label>
    </section>
  );
}
