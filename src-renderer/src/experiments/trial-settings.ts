/**
 * The number fields of the fork editor, as typed, and the startExperiment
 * arguments they make. Limits are the API's (src-shared/api.ts): N 1–500 per
 * arm, parallelism 1–64, a per-trial timeout of 0.1 s to 24 h.
 */
export interface TrialSettingsDraft {
  n: string;
  /** Empty: the engine uses the machine's available parallelism. */
  parallel: string;
  timeoutS: string;
  label: string;
}

export const DEFAULT_TRIAL_SETTINGS: TrialSettingsDraft = { n: '8', parallel: '', timeoutS: '300', label: '' };

export interface TrialSettings {
  n: number;
  parallel?: number;
  timeoutS: number;
  label?: string;
}

function wholeNumber(raw: string, min: number, max: number, what: string): number | string {
  const t = raw.trim();
  if (!/^\d+$/.test(t)) return `${what} must be a whole number from ${min} to ${max}.`;
  const v = Number(t);
  return v < min || v > max ? `${what} must be from ${min} to ${max}.` : v;
}

export function parseTrialSettings(d: TrialSettingsDraft): { ok: true; value: TrialSettings } | { ok: false; field: keyof TrialSettingsDraft; message: string } {
  const n = wholeNumber(d.n, 1, 500, 'Trials per arm');
  if (typeof n === 'string') return { ok: false, field: 'n', message: n };
  let parallel: number | undefined;
  if (d.parallel.trim() !== '') {
    const p = wholeNumber(d.parallel, 1, 64, 'Parallel trials');
    if (typeof p === 'string') return { ok: false, field: 'parallel', message: p };
    parallel = p;
  }
  const timeoutS = Number(d.timeoutS.trim());
  if (d.timeoutS.trim() === '' || !Number.isFinite(timeoutS) || timeoutS < 0.1 || timeoutS > 86_400) {
    return { ok: false, field: 'timeoutS', message: 'The timeout per trial must be from 0.1 to 86400 seconds.' };
  }
  const label = d.label.trim();
  if (label.length > 200) return { ok: false, field: 'label', message: 'The label may be at most 200 characters.' };
  return { ok: true, value: { n, timeoutS, ...(parallel !== undefined ? { parallel } : {}), ...(label ? { label } : {}) } };
}
