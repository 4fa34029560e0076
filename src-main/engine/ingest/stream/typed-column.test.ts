/**
 * A typed column keeps every value across its chunks, and a column of a few
 * values holds a small buffer, not a full chunk.
 */
import { describe, expect, it } from 'vitest';
import { f64, i32 } from './typed-column';

describe('a typed column', () => {
  it('keeps every value through its first chunk doubling and later chunks, and joins them in one array', () => {
    const ints = i32();
    const doubles = f64();
    for (let i = 0; i < 200_000; i++) {
      ints.push(i * 3 - 7);
      doubles.push(i + 0.5);
    }
    expect([0, 255, 256, 65535, 65536, 131072, 199_999].map((i) => ints.get(i))).toEqual([0, 255, 256, 65535, 65536, 131072, 199_999].map((i) => i * 3 - 7));
    expect(doubles.get(123_456)).toBe(123_456.5);
    const all = ints.take();
    expect(all).toHaveLength(200_000);
    expect(all[199_999]).toBe(199_999 * 3 - 7);
  });

  it('of a few values holds a small buffer (a trace of a few runs opens 21 of them)', () => {
    const before = process.memoryUsage().arrayBuffers;
    const columns = Array.from({ length: 500 }, () => {
      const c = f64();
      c.push(1);
      return c;
    });
    const grown = process.memoryUsage().arrayBuffers - before;
    expect(columns).toHaveLength(500);
    // 500 columns of 256 doubles are 1 MB; with chunks of 65,536 from the start they were 256 MB.
    expect(grown).toBeLessThan(16 * 1024 * 1024);
  });
});
