import { describe, expect, it } from 'vitest';
import { benjaminiHochberg, clopperPearsonInterval, fisherExactTwoSided, wilsonInterval } from './statistics';

// Reference values from SciPy 1.17 (scipy.stats.fisher_exact, binomtest(...).proportion_ci,
// false_discovery_control), which agree with R's fisher.test, binom.test / prop.test and p.adjust.
describe('experiment statistics', () => {
  it('a fix that turns 0/8 failures into 8/8 passes has a Fisher p of about 0.000155', () => {
    expect(fisherExactTwoSided(8, 0, 0, 8)).toBeCloseTo(0.0001554001554, 12);
    // The mirror table is exactly as likely: the test is two-sided.
    expect(fisherExactTwoSided(0, 8, 8, 0)).toBeCloseTo(0.0001554001554, 12);
  });

  it('Fisher p-values match SciPy on uneven tables', () => {
    expect(fisherExactTwoSided(3, 5, 7, 1)).toBeCloseTo(0.11888111888, 10);
    expect(fisherExactTwoSided(1, 9, 11, 3)).toBeCloseTo(0.00275945618522, 12);
    expect(fisherExactTwoSided(2, 7, 8, 2)).toBeCloseTo(0.02301413756522, 12);
  });

  it('arms with identical results have p = 1, and an empty table too', () => {
    expect(fisherExactTwoSided(4, 4, 4, 4)).toBeCloseTo(1, 12);
    expect(fisherExactTwoSided(0, 0, 0, 0)).toBe(1);
  });

  it('Wilson 95% intervals for 0/8, 4/8 and 8/8 match published values', () => {
    const cases: [number, number, number][] = [
      [0, 0, 0.32440756488388],
      [4, 0.21521606221388, 0.78478393778612],
      [8, 0.67559243511612, 1],
    ];
    for (const [x, lo, hi] of cases) {
      const [l, h] = wilsonInterval(x, 8);
      expect(l).toBeCloseTo(lo, 10);
      expect(h).toBeCloseTo(hi, 10);
    }
    const [l, h] = wilsonInterval(3, 20);
    expect(l).toBeCloseTo(0.05236874589622, 10);
    expect(h).toBeCloseTo(0.36041886474074, 10);
  });

  it('Clopper–Pearson intervals (on request) are the exact binomial bounds', () => {
    const cases: [number, number, number, number][] = [
      [0, 8, 0, 0.36941664755282],
      [4, 8, 0.15701277048706, 0.84298722951294],
      [8, 8, 0.63058335244718, 1],
      [3, 20, 0.03207093718554, 0.37892682654530],
    ];
    for (const [x, n, lo, hi] of cases) {
      const [l, h] = clopperPearsonInterval(x, n);
      expect(l).toBeCloseTo(lo, 9);
      expect(h).toBeCloseTo(hi, 9);
    }
  });

  it('an arm with no trials says nothing: the interval is [0, 1]', () => {
    expect(wilsonInterval(0, 0)).toEqual([0, 1]);
    expect(clopperPearsonInterval(0, 0)).toEqual([0, 1]);
  });

  it('impossible counts are refused rather than turned into numbers', () => {
    expect(() => wilsonInterval(5, 4)).toThrow(RangeError);
    expect(() => fisherExactTwoSided(-1, 0, 0, 0)).toThrow(RangeError);
  });

  it('Benjamini–Hochberg adjusts a known vector as R and SciPy do, in input order', () => {
    const adj = benjaminiHochberg([0.005, 0.011, 0.02, 0.04, 0.13]);
    [0.025, 0.0275, 0.0333333333, 0.05, 0.13].forEach((v, i) => expect(adj[i]).toBeCloseTo(v, 9));
    const unordered = benjaminiHochberg([0.01, 0.04, 0.03, 0.005, 0.2, 0.5]);
    [0.03, 0.06, 0.06, 0.03, 0.24, 0.5].forEach((v, i) => expect(unordered[i]).toBeCloseTo(v, 12));
    expect(benjaminiHochberg([])).toEqual([]);
    expect(benjaminiHochberg([0.9, 0.95])).toEqual([0.95, 0.95]);
  });
});
