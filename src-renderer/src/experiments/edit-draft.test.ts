import { describe, expect, it } from 'vitest';
import { MAX_EDIT_BYTES } from '../../../src-shared/experiments';
import { checkInstructionsEdit, checkJsonText, checkOutputEdit, initialOutputText, layoutJson, lineColumn, recordedInstructions, sameJsonValue } from './edit-draft';

describe('the fork editor checks the edit as it is typed', () => {
  it('a recorded object output opens pretty-printed as JSON, a string output opens as plain text', () => {
    expect(initialOutputText({ country: 'Aurelia', threshold: 1 })).toEqual({ text: '{\n  "country": "Aurelia",\n  "threshold": 1\n}', format: 'json' });
    expect(initialOutputText('The cities are A and B.')).toEqual({ text: 'The cities are A and B.', format: 'text' });
    expect(initialOutputText(null)).toEqual({ text: 'null', format: 'json' });
  });

  it('a missing comma is reported at the line and column where the parser stopped', () => {
    const text = '{\n  "a": 1\n  "b": 2\n}';
    const r = checkJsonText(text);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.line).toBe(3);
    expect(r.column).toBe(3);
    expect(r.message).toMatch(/^Invalid JSON at line 3, column 3: /);
    expect(r.message).not.toMatch(/position \d+/);
  });

  it('an empty box is not valid JSON, and says what to type', () => {
    const r = checkOutputEdit('   ', 'json');
    expect(r).toMatchObject({ ok: false });
    expect(!r.ok && r.message).toMatch(/Empty/);
  });

  it('in text mode anything typed is sent as one JSON string, even text that looks like JSON', () => {
    expect(checkOutputEdit('{"a": 1}', 'text')).toMatchObject({ ok: true, edit: { kind: 'output', output: '{"a": 1}' } });
  });

  it('an edit over the engine limit is refused before it is sent', () => {
    const big = JSON.stringify('x'.repeat(MAX_EDIT_BYTES));
    expect(checkOutputEdit(big, 'json')).toMatchObject({ ok: false });
    expect(checkInstructionsEdit('é'.repeat(MAX_EDIT_BYTES / 2 + 1))).toMatchObject({ ok: false });
  });

  it('a value nested deeper than the engine accepts is refused', () => {
    const deep = '['.repeat(202) + ']'.repeat(202);
    const r = checkOutputEdit(deep, 'json');
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toMatch(/deeper than 200/);
  });

  it('blank instructions are refused; any other text is an instructions edit', () => {
    expect(checkInstructionsEdit(' \n ')).toMatchObject({ ok: false });
    expect(checkInstructionsEdit('Measure by population.')).toMatchObject({ ok: true, edit: { kind: 'instructions', instructions: 'Measure by population.' } });
  });

  it('canonical layout is the exact bytes the trial receives, with key order kept', () => {
    const v = { z: 1, a: [1, { b: 'c' }] };
    expect(layoutJson(v, 'compact')).toBe('{"z":1,"a":[1,{"b":"c"}]}');
    expect(JSON.parse(layoutJson(v, 'pretty'))).toEqual(v);
  });

  it('an edit that only reorders keys is recognised as the recording itself', () => {
    expect(sameJsonValue({ a: 1, b: [1, 2] }, { b: [1, 2], a: 1 })).toBe(true);
    expect(sameJsonValue({ a: 1 }, { a: 2 })).toBe(false);
    expect(sameJsonValue([1, 2], [2, 1])).toBe(false);
  });

  it('instructions recorded in step metadata prefill the instructions editor', () => {
    expect(recordedInstructions({ instructions: 'Plan it.' })).toBe('Plan it.');
    expect(recordedInstructions({ instructions: 3 })).toBeNull();
    expect(recordedInstructions(undefined)).toBeNull();
  });

  it('line and column count from 1', () => {
    expect(lineColumn('ab\ncd', 0)).toEqual({ line: 1, column: 1 });
    expect(lineColumn('ab\ncd', 4)).toEqual({ line: 2, column: 2 });
  });
});
