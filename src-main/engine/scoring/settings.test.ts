import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, loadSettings, settingsHash } from './settings';

describe('settings', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tb-settings-'));

  it('without a user file the defaults apply', () => {
    expect(loadSettings(join(dir, 'missing.json'))).toEqual(DEFAULT_SETTINGS);
  });

  it('a user file overrides only what it names, and the hash changes with it', () => {
    const file = join(dir, 'settings.json');
    writeFileSync(file, JSON.stringify({ scoring: { unhealthy_below: 0.4 }, blame: { co_blame_gap: 0.1 } }));
    const s = loadSettings(file);
    expect(s.scoring.unhealthy_below).toBe(0.4);
    expect(s.blame.co_blame_gap).toBe(0.1);
    expect(s.scoring.retrieval).toEqual(DEFAULT_SETTINGS.scoring.retrieval);
    expect(settingsHash(s)).not.toBe(settingsHash(DEFAULT_SETTINGS));
    expect(settingsHash(loadSettings(file))).toBe(settingsHash(s));
  });

  it('a typo or a wrong type is reported and ignored, never silently applied', () => {
    const file = join(dir, 'typo.json');
    writeFileSync(file, JSON.stringify({ scoring: { unhealthy_belo: 0.9, retrieval: { relevant_at: 'high' } } }));
    const problems: string[] = [];
    const s = loadSettings(file, (p) => problems.push(p));
    expect(s.scoring).toEqual(DEFAULT_SETTINGS.scoring);
    expect(problems.join('\n')).toMatch(/unhealthy_belo: unknown setting/);
    expect(problems.join('\n')).toMatch(/relevant_at: expected a number/);
  });

  it('a file that is not JSON is bad input naming the file', () => {
    const file = join(dir, 'broken.json');
    writeFileSync(file, '{ not json');
    expect(() => loadSettings(file)).toThrow(/broken\.json: not valid JSON/);
  });

  it('the hash does not depend on key order', () => {
    const a = { ...DEFAULT_SETTINGS };
    const b = Object.fromEntries(Object.entries(DEFAULT_SETTINGS).reverse()) as typeof DEFAULT_SETTINGS;
    expect(settingsHash(a)).toBe(settingsHash(b));
  });
});
