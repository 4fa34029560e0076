import { describe, expect, it } from 'vitest';
import { buildOracle, describeOracle, EMPTY_ORACLE_DRAFT, jsonOrText } from './oracle-draft';

const draft = (patch: Partial<typeof EMPTY_ORACLE_DRAFT>) => ({ ...EMPTY_ORACLE_DRAFT, ...patch });

describe('choosing how trials are judged', () => {
  it("by default a trial is judged by the pipeline's own verdict", () => {
    expect(buildOracle(EMPTY_ORACLE_DRAFT)).toEqual({ ok: true, oracle: { kind: 'verdict' } });
  });

  it('an expected value is JSON when it parses and text otherwise, as on the command line', () => {
    expect(jsonOrText('{"n": 2}')).toEqual({ n: 2 });
    expect(jsonOrText('Port Aurel')).toBe('Port Aurel');
    expect(buildOracle(draft({ kind: 'equals', value: '42' }))).toEqual({ ok: true, oracle: { kind: 'equals', value: 42 } });
  });

  it('a broken regular expression keeps Start disabled with the reason', () => {
    const r = buildOracle(draft({ kind: 'regex', pattern: '(unclosed' }));
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toMatch(/Invalid regular expression/);
    expect(buildOracle(draft({ kind: 'regex', pattern: 'a', flags: 'g' }))).toMatchObject({ ok: false });
    expect(buildOracle(draft({ kind: 'regex', pattern: 'port aurel', flags: 'i' }))).toEqual({ ok: true, oracle: { kind: 'regex', pattern: 'port aurel', flags: 'i' } });
  });

  it('a JSON path oracle needs both the path and the value', () => {
    expect(buildOracle(draft({ kind: 'json-path', path: 'a.b' }))).toMatchObject({ ok: false });
    expect(buildOracle(draft({ kind: 'json-path', path: ' a.b ', value: 'true' }))).toEqual({ ok: true, oracle: { kind: 'json-path', path: 'a.b', value: true } });
  });

  it('empty contains and command oracles are refused', () => {
    expect(buildOracle(draft({ kind: 'contains' }))).toMatchObject({ ok: false });
    expect(buildOracle(draft({ kind: 'command', command: '  ' }))).toMatchObject({ ok: false });
    expect(buildOracle(draft({ kind: 'command', command: 'jq -e .pass' }))).toEqual({ ok: true, oracle: { kind: 'command', command: 'jq -e .pass' } });
  });

  it('the scoreboard describes the oracle in words', () => {
    expect(describeOracle({ kind: 'verdict' })).toBe("the pipeline's own verdict");
    expect(describeOracle({ kind: 'regex', pattern: 'x+', flags: 'i' })).toBe('output matches /x+/i');
  });
});
