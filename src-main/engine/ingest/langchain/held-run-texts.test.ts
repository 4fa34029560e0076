/**
 * Runs read before their turn come back exactly as they were held, in
 * whatever order their turns come, while others are held meanwhile and the
 * buffer is compacted or grown under them.
 */
import { describe, expect, it } from 'vitest';
import { HeldRunTexts } from './held-run-texts';

describe('held run texts', () => {
  it('give back each run held, in any order, with any characters, past compaction and growth', () => {
    const held = new HeldRunTexts();
    const text = (i: number) => JSON.stringify({ id: `run-${i}`, name: i % 3 ? 'ChatOpenAI' : 'café ✓ 😀', outputs: { text: 'x'.repeat((i * 7919) % 20000) } });
    const waiting = new Map<number, number>();
    // Runs arrive and leave out of order; a round never empties until the end, so the buffer must compact and grow.
    for (let i = 0; i < 3000; i++) {
      waiting.set(i, held.hold(text(i)));
      if (i % 3 === 2) {
        for (const j of [i - 2, i]) {
          expect(held.take(waiting.get(j)!)).toBe(text(j));
          waiting.delete(j);
        }
      }
    }
    expect(held.held).toBe([...waiting.keys()].reduce((sum, i) => sum + Buffer.byteLength(text(i)), 0));
    for (const [i, handle] of [...waiting].reverse()) expect(held.take(handle)).toBe(text(i));
    expect(held.held).toBe(0);
  });

  it('holds a run bigger than its buffer', () => {
    const held = new HeldRunTexts();
    const small = held.hold('{"id":"a"}');
    const big = `{"outputs":"${'y'.repeat(5 * 1024 * 1024)}"}`;
    const handle = held.hold(big);
    expect(held.take(small)).toBe('{"id":"a"}');
    expect(held.take(handle)).toBe(big);
  });
});
