/**
 * ROUGE-L (Lin 2004): F-measure of the longest common subsequence of two
 * token sequences. Used for self-consistency of sampled answers. Sequences are
 * capped (caller's choice) because LCS is quadratic.
 */
function lcsLength(a: string[], b: string[]): number {
  if (a.length === 0 || b.length === 0) return 0;
  let prev = new Uint16Array(b.length + 1);
  let cur = new Uint16Array(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      cur[j] = a[i - 1] === b[j - 1] ? prev[j - 1] + 1 : Math.max(prev[j], cur[j - 1]);
    }
    [prev, cur] = [cur, prev];
    cur.fill(0);
  }
  return prev[b.length];
}

export function rougeL(a: string[], b: string[]): number {
  if (a.length === 0 && b.length === 0) return 1;
  const lcs = lcsLength(a, b);
  if (lcs === 0) return 0;
  const p = lcs / a.length;
  const r = lcs / b.length;
  return (2 * p * r) / (p + r);
}

/** Mean ROUGE-L over all pairs of samples. */
export function meanPairwiseRougeL(samples: string[][]): number {
  let sum = 0;
  let n = 0;
  for (let i = 0; i < samples.length; i++) {
    for (let j = i + 1; j < samples.length; j++) {
      sum += rougeL(samples[i], samples[j]);
      n++;
    }
  }
  return n === 0 ? 1 : sum / n;
}
