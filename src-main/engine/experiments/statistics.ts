/**
 * Statistics of fork experiments (DESIGN.md §7): a success rate per arm with
 * its 95% interval, the difference between arms by Fisher's exact test, and
 * Benjamini–Hochberg adjustment when several steps are tested at once.
 * Pure functions; no library, so every number can be traced to a formula.
 */

/** Two-sided 95% normal quantile (Φ⁻¹(0.975)). */
const Z95 = 1.959963984540054;

export type Interval = [number, number];

/**
 * Wilson score interval (Wilson 1927). Chosen over the normal ("Wald")
 * interval because it stays inside [0, 1] and keeps its coverage at the
 * small N and 0% / 100% rates that fork experiments produce.
 * With no trials there is no information: [0, 1].
 */
export function wilsonInterval(successes: number, trials: number, z = Z95): Interval {
  checkCounts(successes, trials);
  if (trials === 0) return [0, 1];
  const p = successes / trials;
  const z2 = z * z;
  const denom = 1 + z2 / trials;
  const center = (p + z2 / (2 * trials)) / denom;
  const half = (z / denom) * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials));
  // At 0/n and n/n the bound is exactly 0 or 1 in theory; clamp the rounding.
  return [successes === 0 ? 0 : Math.max(0, center - half), successes === trials ? 1 : Math.min(1, center + half)];
}

/**
 * Clopper–Pearson "exact" interval: the bounds are the rates at which the
 * observed count sits exactly at the α/2 tail of the binomial. Found by
 * bisection on the binomial tail (equivalent to the beta quantiles), which
 * needs no special functions beyond log-factorials.
 */
export function clopperPearsonInterval(successes: number, trials: number, alpha = 0.05): Interval {
  checkCounts(successes, trials);
  if (trials === 0) return [0, 1];
  const half = alpha / 2;
  // P(X ≥ x | p) rises with p: the lower bound is where it reaches α/2.
  const lower = successes === 0 ? 0 : bisect((p) => binomialUpperTail(successes, trials, p) - half);
  // P(X ≤ x | p) falls with p: the upper bound is where it drops to α/2.
  const upper = successes === trials ? 1 : bisect((p) => half - binomialLowerTail(successes, trials, p));
  return [lower, upper];
}

/** Root of an increasing function on [0, 1]; 60 halvings reach double precision. */
function bisect(f: (p: number) => number): number {
  let lo = 0;
  let hi = 1;
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (f(mid) < 0) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** P(X ≤ x) for X ~ Binomial(n, p). */
function binomialLowerTail(x: number, n: number, p: number): number {
  let sum = 0;
  for (let k = 0; k <= x; k++) sum += binomialPmf(k, n, p);
  return Math.min(1, sum);
}

/** P(X ≥ x) for X ~ Binomial(n, p). */
function binomialUpperTail(x: number, n: number, p: number): number {
  let sum = 0;
  for (let k = x; k <= n; k++) sum += binomialPmf(k, n, p);
  return Math.min(1, sum);
}

function binomialPmf(k: number, n: number, p: number): number {
  if (p <= 0) return k === 0 ? 1 : 0;
  if (p >= 1) return k === n ? 1 : 0;
  return Math.exp(logChoose(n, k) + k * Math.log(p) + (n - k) * Math.log1p(-p));
}

const logFactorials: number[] = [0];

function logFactorial(n: number): number {
  for (let i = logFactorials.length; i <= n; i++) logFactorials[i] = logFactorials[i - 1] + Math.log(i);
  return logFactorials[n];
}

function logChoose(n: number, k: number): number {
  return logFactorial(n) - logFactorial(k) - logFactorial(n - k);
}

/**
 * Fisher's exact test, two-sided, on the 2×2 table
 *   treatment: a passed, b failed
 *   control:   c passed, d failed.
 * The p-value sums the hypergeometric probabilities of every table with the
 * same margins that is no more likely than the observed one (the convention
 * of R's fisher.test and SciPy). The relative tolerance keeps tables whose
 * probability equals the observed one up to rounding (e.g. the mirror image
 * of a symmetric table) inside the sum.
 */
export function fisherExactTwoSided(a: number, b: number, c: number, d: number): number {
  for (const v of [a, b, c, d]) if (!Number.isInteger(v) || v < 0) throw new RangeError(`table cells must be whole numbers ≥ 0 (got ${v})`);
  const row1 = a + b;
  const col1 = a + c;
  const n = a + b + c + d;
  if (n === 0) return 1;
  const logDenominator = logChoose(n, col1);
  const logP = (x: number) => logChoose(row1, x) + logChoose(n - row1, col1 - x) - logDenominator;
  const observed = logP(a);
  const lo = Math.max(0, col1 - (n - row1));
  const hi = Math.min(row1, col1);
  const tolerance = 1e-7;
  let p = 0;
  for (let x = lo; x <= hi; x++) {
    const lp = logP(x);
    if (lp <= observed + Math.log1p(tolerance)) p += Math.exp(lp);
  }
  return Math.min(1, p);
}

/**
 * Benjamini–Hochberg adjusted p-values (the false discovery rate step-up
 * procedure), returned in the input's order: adj(i) = min over j ≥ i of
 * m·p(j)/j on the ascending order, capped at 1 — what R's
 * p.adjust(method = "BH") returns.
 */
export function benjaminiHochberg(pValues: readonly number[]): number[] {
  const m = pValues.length;
  for (const p of pValues) if (!(p >= 0 && p <= 1)) throw new RangeError(`p-values must be in [0, 1] (got ${p})`);
  const order = pValues.map((p, i) => ({ p, i })).sort((x, y) => x.p - y.p);
  const adjusted = new Array<number>(m);
  let running = 1;
  for (let rank = m; rank >= 1; rank--) {
    const { p, i } = order[rank - 1];
    running = Math.min(running, (m * p) / rank);
    adjusted[i] = Math.min(1, running);
  }
  return adjusted;
}

function checkCounts(successes: number, trials: number): void {
  if (!Number.isInteger(trials) || trials < 0) throw new RangeError(`trials must be a whole number ≥ 0 (got ${trials})`);
  if (!Number.isInteger(successes) || successes < 0 || successes > trials) {
    throw new RangeError(`successes must be a whole number from 0 to ${trials} (got ${successes})`);
  }
}
