import { describe, expect, it } from 'vitest';
import type { Step } from '../../../src-shared/model';
import { stripCoverage } from './strip-coverage';

const step = (started_at: number, ended_at: number | null, status: Step['status'] = 'ok') => ({ started_at, ended_at, status }) as Step;
const row = (g: Int32Array, width: number, y: number) => [...g.slice(y * width, (y + 1) * width)].map((v) => (v > 0 ? 1 : 0)).join('');

describe('the minimap strip', () => {
  it('marks each step in its own pixel row, errors apart so they are drawn over the rest', () => {
    const steps = [step(0, 100), step(50, 60, 'error'), step(90, 100), step(0, 10)];
    const [ok, bad] = stripCoverage(steps, { from: 0, to: 100 }, 10, 4);
    expect([0, 1, 2, 3].map((y) => row(ok, 10, y))).toEqual(['1111111111', '0000000000', '0000000001', '1100000000']);
    expect(row(bad, 10, 1)).toBe('0000011000');
  });

  it('a step ending at the right edge does not spill into the next row, and thousands of steps share rows', () => {
    const steps = Array.from({ length: 10_000 }, (_, i) => step(i % 2 ? 90 : 0, 100));
    const [ok] = stripCoverage(steps, { from: 0, to: 100 }, 10, 2);
    expect([row(ok, 10, 0), row(ok, 10, 1)]).toEqual(['1111111111', '1111111111']);
    const [one] = stripCoverage([step(95, 100), step(0, 1)], { from: 0, to: 100 }, 10, 2);
    expect([row(one, 10, 0), row(one, 10, 1)]).toEqual(['0000000001', '1000000000']);
  });
});
