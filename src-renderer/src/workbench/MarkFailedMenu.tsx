import { useCallback, useEffect, useId, useRef, useState } from 'react';
import type { BlameResult } from '../../../src-shared/analysis';
import { useApi } from '../api/api-context';
import { TraceText } from '../common/TraceText';
import { useDismiss } from '../common/use-dismiss';

/**
 * "Mark as failed…": the user says the run failed, optionally with the answer
 * it should have given. Stored on the run (markRun); blame then always ranks
 * suspects, and reports, diff and the gate use it. When the run is marked,
 * the button says so and offers to clear the mark.
 */
export function MarkFailedMenu({ runId, blame, onMarked }: { runId: string; blame: BlameResult | undefined; onMarked?: () => void }) {
  const api = useApi();
  const ids = useId();
  const [open, setOpen] = useState(false);
  const [expected, setExpected] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const first = useRef<HTMLTextAreaElement>(null);
  const marked = blame?.assertion?.failed === true;

  const wrap = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (open) first.current?.focus();
  }, [open]);
  // Escape (also from inside the textarea) or a click elsewhere closes it unmarked; the typed answer is kept for a second try.
  useDismiss(open, useCallback(() => setOpen(false), []), wrap, button);

  const send = async (clear: boolean) => {
    setBusy(true);
    setError(null);
    const text = expected.trim();
    const result = await api.invoke('markRun', { runId, failed: !clear, ...(clear ? { clear: true } : {}), ...(!clear && text ? { expected: text } : {}) });
    setBusy(false);
    if (!result.ok) {
      setError(result.error.message);
      return;
    }
    setOpen(false);
    setExpected('');
    // The engine blamed the run to answer the mark: a run whose blame waited for the user's word shows it now.
    onMarked?.();
  };

  if (marked) {
    return (
      <span className="mark-state" data-testid="marked-failed">
        <span className="badge mark-badge" title={blame?.assertion?.expected ? `expected: ${blame.assertion.expected}` : undefined}>
          marked failed by you
        </span>
        <button type="button" className="button ghost" disabled={busy} onClick={() => send(true)}>
          Clear mark
        </button>
      </span>
    );
  }
  return (
    <div className="menu-wrap" ref={wrap}>
      <button ref={button} type="button" className="button" aria-haspopup="dialog" aria-expanded={open} onClick={() => setOpen(!open)} data-testid="mark-failed-button">
        Mark as failed…
      </button>
      {open && (
        <div className="menu mark-dialog" role="dialog" aria-labelledby={`${ids}-title`} data-testid="mark-failed-dialog">
          <div className="pane-title" id={`${ids}-title`}>
            This run failed
          </div>
          <p className="muted small">
            Blame will rank the steps most likely to have caused it, even when the trace shows no error.
            {blame?.healthy && blame.detection?.status === 'unknown' && (
              <>
                {' '}
                Traceback saw signs of it: <TraceText text={blame.detection.description} truncateAt={200} />
              </>
            )}
          </p>
          <label className="xp-field">
            <span>Expected answer (optional)</span>
            <textarea
              ref={first}
              rows={3}
              value={expected}
              maxLength={100_000}
              placeholder="What the answer should have said"
              onChange={(e) => setExpected(e.target.value)}
              data-testid="mark-failed-expected"
            />
          </label>
          <div className="mark-actions">
            <button type="button" className="button ghost" onClick={() => setOpen(false)}>
              Cancel
            </button>
            <button type="button" className="button primary" disabled={busy} onClick={() => send(false)} data-testid="mark-failed-confirm">
              {busy ? 'Marking…' : 'Mark as failed'}
            </button>
          </div>
          {error && (
            <div className="error-note small" role="alert">
              {error}
            </div>
          )}
        </div>
      )}
    </div>
  );
}
