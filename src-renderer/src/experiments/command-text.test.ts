import { describe, expect, it } from 'vitest';
import { commandLine, envLines, hasEntry } from './command-text';

describe('the command shown for approval', () => {
  it('quotes arguments a shell would split or expand, so what is read is what runs', () => {
    expect(commandLine(['node', 'run.js', '--q', 'a b', "it's", '$HOME', '--seed', '7'])).toBe(`node run.js --q 'a b' 'it'\\''s' '$HOME' --seed 7`);
  });

  it('redacted environment values are marked, since they are not passed on', () => {
    expect(envLines({ B: '[REDACTED]', A: '1' })).toEqual([
      { name: 'A', value: '1', redacted: false },
      { name: 'B', value: '[REDACTED]', redacted: true },
    ]);
  });

  it('a run without an entry command cannot be forked', () => {
    expect(hasEntry(null)).toBe(false);
    expect(hasEntry({ command: [] })).toBe(false);
    expect(hasEntry({ command: [''] })).toBe(false);
    expect(hasEntry({ command: ['node', 'x.js'] })).toBe(true);
  });
});
