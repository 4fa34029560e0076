import { describe, expect, it } from 'vitest';
import { DEFAULT_TRIAL_SETTINGS, parseTrialSettings } from './trial-settings';

describe('trial settings of a fork', () => {
  it('the defaults make 8 trials per arm, machine parallelism and a 300 s timeout', () => {
    expect(parseTrialSettings(DEFAULT_TRIAL_SETTINGS)).toEqual({ ok: true, value: { n: 8, timeoutS: 300 } });
  });

  it('N outside 1–500 or not whole names the field', () => {
    expect(parseTrialSettings({ ...DEFAULT_TRIAL_SETTINGS, n: '0' })).toMatchObject({ ok: false, field: 'n' });
    expect(parseTrialSettings({ ...DEFAULT_TRIAL_SETTINGS, n: '501' })).toMatchObject({ ok: false, field: 'n' });
    expect(parseTrialSettings({ ...DEFAULT_TRIAL_SETTINGS, n: '2.5' })).toMatchObject({ ok: false, field: 'n' });
  });

  it('parallelism, timeout and label are passed only when given and valid', () => {
    expect(parseTrialSettings({ n: '2', parallel: '2', timeoutS: '0.5', label: ' fix ' })).toEqual({ ok: true, value: { n: 2, parallel: 2, timeoutS: 0.5, label: 'fix' } });
    expect(parseTrialSettings({ ...DEFAULT_TRIAL_SETTINGS, parallel: '65' })).toMatchObject({ ok: false, field: 'parallel' });
    expect(parseTrialSettings({ ...DEFAULT_TRIAL_SETTINGS, timeoutS: '0' })).toMatchObject({ ok: false, field: 'timeoutS' });
  });
});
