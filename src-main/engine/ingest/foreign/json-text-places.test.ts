import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fuzzCase } from '../../../../test/fuzz/trace-mutations';
import { brokenDocumentError, firstJsonSyntaxError, listElementLines, valueLinesAt } from './json-text-places';

/** The line of one path's value. */
const valueLineAt = (text: string, path: (string | number)[]) => valueLinesAt(text, [path])[0];

const FOREIGN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../test/fixtures/foreign');

const parses = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

describe('the place of a JSON syntax error', () => {
  it('is the line and column where the text stops being JSON', () => {
    expect(firstJsonSyntaxError('{\n  "a": 1\n  "b": 2\n}')).toMatchObject({ line: 3, column: 3, problem: "expected ',' or '}', found '\"'" });
    expect(firstJsonSyntaxError('[\n  1,\n  2,\n]')).toMatchObject({ line: 4, column: 1, problem: "expected a value, found ']'" });
    expect(firstJsonSyntaxError('{"a":\n  "tab\there"}')).toMatchObject({ line: 2, column: 7, problem: 'the control character U+0009 inside a string (it must be escaped)' });
    expect(firstJsonSyntaxError('[1]\n[2]')).toMatchObject({ line: 2, column: 1, problem: "more text after the end of the JSON document: '['" });
    // Cut off while written: the end of the text, on its last line.
    expect(firstJsonSyntaxError('{\n  "runs": [\n    {"id": "a"')).toMatchObject({ line: 3, column: 15, problem: expect.stringContaining('cut off') });
    expect(firstJsonSyntaxError('{"a": "unterminated')).toMatchObject({ line: 1, problem: 'the file ends inside a string' });
    for (const bad of ['1.', '[1e]', '{"a": 01}', '-']) expect(firstJsonSyntaxError(bad), bad).toMatchObject({ problem: 'a malformed number' });
  });

  it('names a character that does not read as itself by its code, never raw', () => {
    expect(firstJsonSyntaxError('[\u00a01]')?.problem).toBe('expected a value, found the character U+00A0');
    expect(firstJsonSyntaxError('["\\\u202e"]')?.problem).toBe('a backslash before the character U+202E is not an escape JSON allows');
    expect(firstJsonSyntaxError('[1 \u001b]')?.problem).toBe("expected ',' or ']', found the control character U+001B");
    expect(firstJsonSyntaxError('[x]')?.problem).toBe("expected a value, found 'x'");
  });

  it('agrees with JSON.parse on what is valid: the fixtures, their truncations and the fuzz corpus', () => {
    const texts: string[] = [];
    for (const name of fs.readdirSync(FOREIGN).filter((n) => n.endsWith('.json'))) {
      const text = fs.readFileSync(path.join(FOREIGN, name), 'utf8');
      texts.push(text);
      for (let cut = 1; cut < 40; cut++) texts.push(text.slice(0, Math.floor((text.length * cut) / 40)));
    }
    for (let i = 0; i < 300; i++) texts.push(fuzzCase(7, i).bytes.toString('utf8'));
    texts.push('', ' ', '-', '-0', '01', '1.', '.5', '1e', '1e+', '"\\u00e9"', '"\\ud800"', '[]', '{}', '[,]', '{"a" : [ true , false , null ] }', '\u00a0[]', '[1,]', 'nul', 'true false');
    let invalid = 0;
    for (const text of texts) {
      const ok = parses(text);
      if (!ok) invalid++;
      expect(firstJsonSyntaxError(text) === null, JSON.stringify(text.slice(0, 120))).toBe(ok);
    }
    expect(invalid).toBeGreaterThan(100);
  });

  it('nested 100,000 deep does not overflow', () => {
    expect(firstJsonSyntaxError('['.repeat(100_000) + ']'.repeat(100_000))).toBeNull();
    expect(firstJsonSyntaxError('['.repeat(100_000))).toMatchObject({ line: 1, column: 100_001 });
  });
});

describe('a broken document or JSON Lines', () => {
  it('a pretty-printed document is one error at its place; JSON Lines, or an error on the first line, read line by line', () => {
    const pretty = JSON.stringify({ messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }] }, null, 2);
    const cut = pretty.slice(0, pretty.indexOf('"hello"'));
    expect(brokenDocumentError(cut)).toMatchObject({ line: cut.split('\n').length, problem: expect.stringContaining('cut off') });
    expect(cut.split('\n').length).toBe(9);
    expect(brokenDocumentError('{"role": "user", "content": "hi"}\n{"role": "assistant", "content": broken}')).toBeNull();
    // A cut first line of JSON Lines: the lines after it are kept by the line-by-line read.
    expect(brokenDocumentError('{"role": "user", "content": \n{"role": "assistant", "content": "ok"}\n{"role": "user", "content": "more"}')).toBeNull();
    // More bad lines than good (a message whose text holds raw line breaks): still JSON Lines, the good lines are kept.
    const ok = '{"role": "user", "content": "hi"}';
    expect(brokenDocumentError([ok, '{"role": "assistant", "content": "one', 'two', 'three"}', ok].join('\n'))).toBeNull();
    // A line that is an object only once trim() drops a space JSON does not allow (NBSP) is not one.
    expect(brokenDocumentError('{\n "messages": [\n  \u00a0{"role": "user", "content": "hi"}\n ]\n}')).toMatchObject({ line: 3, column: 3, problem: 'expected a value, found the character U+00A0' });
    // JSON Lines whose first line is whole: never a document, whatever follows.
    expect(brokenDocumentError([ok, 'junk', 'junk', 'junk'].join('\n'))).toBeNull();
  });
});

describe('the lines of a list', () => {
  it('are where each element starts: of the top-level array, or of the list under a key (its last value when the key repeats)', () => {
    expect(listElementLines('[\n  {"a": 1},\n  {\n    "b": [1,\n 2]\n  }\n]', null)).toEqual([2, 3]);
    expect(listElementLines('{"other": [0, 0],\n "messages": [\n  {"a": 1},\n\n  {"b": 2}\n ],\n "more": [9]}', 'messages')).toEqual([3, 5]);
    expect(listElementLines('{"messages": [1],\n"messages": [\n2]}', 'messages')).toEqual([3]);
    expect(listElementLines('{"messages": [1', 'messages')).toBeNull();
  });
});

describe('the line of a value by its path', () => {
  const text = '{\n "a": [\n  1,\n  {"b": [\n   true,\n   {"c": null}\n  ]},\n  "x"\n ],\n "b": 2\n}';
  it('follows keys and list positions from the document down', () => {
    expect(valueLineAt(text, [])).toBe(1);
    expect(valueLineAt(text, ['a'])).toBe(2);
    expect(valueLineAt(text, ['a', 0])).toBe(3);
    expect(valueLineAt(text, ['a', 1])).toBe(4);
    expect(valueLineAt(text, ['a', 1, 'b', 1])).toBe(6);
    expect(valueLineAt(text, ['a', 1, 'b', 1, 'c'])).toBe(6);
    expect(valueLineAt(text, ['a', 2])).toBe(8);
    // A key of the same name elsewhere is not the one asked for.
    expect(valueLineAt(text, ['b'])).toBe(10);
  });
  it('is null where the path leads nowhere or the text is not one document', () => {
    expect(valueLineAt(text, ['a', 3])).toBeNull();
    expect(valueLineAt(text, ['a', 0, 'b'])).toBeNull();
    expect(valueLineAt(text, ['c'])).toBeNull();
    expect(valueLineAt('{"a": [1,', ['a', 0])).toBeNull();
  });
  it('takes the last of repeated keys, as JSON.parse does', () => {
    expect(valueLineAt('{"a": [1],\n"a": [\n2]}', ['a', 0])).toBe(3);
    // Only the first value under the key had a second element: JSON.parse's document has none.
    expect(valueLineAt('{"a": [1,\n2],\n"a": [3]}', ['a', 1])).toBeNull();
  });
  it('finds many paths in one scan, each as it would alone', () => {
    const paths = [['a', 2], ['b'], ['a', 1, 'b', 1], ['nowhere'], []];
    expect(valueLinesAt(text, paths)).toEqual(paths.map((p) => valueLineAt(text, p)));
    expect(valueLinesAt(text, paths)).toEqual([8, 10, 6, null, 1]);
  });
});
