/**
 * The streamed import's strings kept outside V8's heap come back exactly as
 * they went in (ids with any characters, lone surrogates too), equal strings
 * share a number and different ones never do, across hash-table growth and
 * buffer boundaries.
 */
import { describe, expect, it } from 'vitest';
import { TextArena } from './text-arena';

describe('a text arena', () => {
  it('gives ids with any characters back as they were, one number per distinct string', () => {
    const arena = new TextArena();
    const ids = ['', 'run-1', 'café', 'Ünïcödé ✓', '😀 emoji', 'lone \ud800 high', 'lone \udc00 low', '\ufffd', 'a\u0000b', 'ÿ', 'Ā', 'x'.repeat(5000)];
    const numbers = ids.map((s) => arena.intern(s));
    expect(new Set(numbers).size).toBe(ids.length);
    expect(numbers.map((k) => arena.text(k))).toEqual(ids);
    // Equal strings made afresh (not the same string object) get the same number.
    expect(ids.map((s) => arena.intern(`${s.slice(0, 1)}${s.slice(1)}`))).toEqual(numbers);
    // A lone surrogate is not its replacement character (UTF-8 would have made them one).
    expect(arena.intern('lone \ud800 high')).not.toBe(arena.intern('lone \ufffd high'));
  });

  it('keeps 200,000 ids apart and together past table growth and 1 MB buffers, and strings added without interning', () => {
    const arena = new TextArena();
    const id = (i: number) => `0190aaaa-bbbb-7ccc-8ddd-${i.toString(16).padStart(12, '0')}${i % 7 === 0 ? 'é' : ''}`;
    const numbers: number[] = [];
    for (let i = 0; i < 200_000; i++) numbers.push(arena.intern(id(i)));
    const big = arena.add('y'.repeat(3 * 1024 * 1024));
    const loose = arena.add(id(5));
    expect(new Set(numbers).size).toBe(200_000);
    for (let i = 0; i < 200_000; i += 997) {
      expect(arena.intern(id(i))).toBe(numbers[i]);
      expect(arena.text(numbers[i])).toBe(id(i));
    }
    expect(arena.text(big)).toHaveLength(3 * 1024 * 1024);
    expect(loose).not.toBe(numbers[5]);
    expect(arena.text(loose)).toBe(id(5));
    expect(arena.count).toBe(200_002);
  });
});
