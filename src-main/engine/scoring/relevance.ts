/**
 * Relevance of passages to a query. The default is lexical and offline:
 * BM25's saturating term frequency and length normalisation (Robertson &
 * Zaragoza 2009, k1 = 1.2, b = 0.75), summed over the query's content terms
 * and divided by what a passage of average length holding each term once
 * would get. That ratio is "how much of the query the passage covers"; a
 * logistic calibration maps it to [0, 1] so that 0.5 means "probably
 * relevant" (midpoint and slope set on the scenario traces in bench/blame,
 * see docs/blame.md).
 *
 * IDF is not used: with the 3–10 passages of one retrieval every query term
 * tends to occur in all of them, and IDF would then call a perfect result set
 * irrelevant.
 *
 * An embedding model can replace it through `embeddingRelevance`.
 */
import type { Settings } from './settings';
import { termsInto, termsOf } from '../text/text-terms';

export interface RelevanceProvider {
  readonly name: string;
  /** One calibrated relevance in [0, 1] per passage. */
  score(query: string, passages: string[]): number[];
}

/** A synchronous embedding model (e.g. a local ONNX model loaded by the host). */
export interface EmbeddingProvider {
  readonly name: string;
  embed(texts: string[]): number[][];
}

function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/**
 * Cosine similarity of query and passage embeddings, mapped from [-1, 1] to
 * [0, 1] through the same logistic calibration; `midpoint` is the cosine that
 * should count as "probably relevant" for the model in use.
 */
export function embeddingRelevance(provider: EmbeddingProvider, midpoint = 0.5, slope = 12): RelevanceProvider {
  return {
    name: `embedding:${provider.name}`,
    score(query, passages) {
      if (passages.length === 0) return [];
      const [q, ...ps] = provider.embed([query, ...passages]);
      return ps.map((p) => logistic(cosine(q, p), midpoint, slope));
    },
  };
}

function logistic(x: number, midpoint: number, slope: number): number {
  return 1 / (1 + Math.exp(-slope * (x - midpoint)));
}

/** Queries of at most this many distinct terms find a term's place by a scan of the list, longer ones by a Map. */
const SCAN_TERMS = 16;

/** Terms of the passage being counted: one array for every passage of every retrieval (entries past the count are stale). */
const passageTerms: string[] = [];

/** Raw BM25-style coverage of the query by each passage, before calibration: a new array the caller may keep or change. */
function bm25Coverage(query: string, passages: string[], k1 = 1.2, b = 0.75): number[] {
  const q = distinct(termsOf(query, 2000));
  if (q.length === 0) return passages.map(() => 0);
  // Only the query's terms are counted (tf[i * q.length + j]: passage i, term j): a Map of every term of every
  // passage was ~40% of what scoring a retrieval allocated, the garbage that made a 100,000-step blame collect
  // more often (allocation profile of the synthetic run). A passage's terms go into one shared array, not a new
  // list each (~1 kB a retrieval).
  const nq = q.length;
  const place = nq > SCAN_TERMS ? new Map(q.map((t, j) => [t, j])) : null;
  const tf = new Int32Array(passages.length * nq);
  const lens: number[] = new Array(passages.length);
  for (let i = 0; i < passages.length; i++) {
    const count = termsInto(passages[i], 20_000, passageTerms);
    lens[i] = count;
    for (let m = 0; m < count; m++) {
      const t = passageTerms[m];
      let j = -1;
      if (place === null) {
        for (let k = 0; k < nq; k++) {
          if (q[k] === t) {
            j = k;
            break;
          }
        }
      } else j = place.get(t) ?? -1;
      if (j >= 0) tf[i * nq + j]++;
    }
  }
  let total = 0;
  for (let i = 0; i < lens.length; i++) total += lens[i];
  const avgdl = total / Math.max(1, lens.length) || 1;
  // Saturation of tf = 1 at average length: (k1 + 1) / (1 + k1) — the unit of "one mention".
  const unit = (k1 + 1) / (1 + k1);
  for (let i = 0; i < lens.length; i++) {
    let sum = 0;
    const norm = 1 - b + (b * lens[i]) / avgdl;
    for (let j = 0; j < nq; j++) {
      const f = tf[i * nq + j];
      if (f === 0) continue;
      sum += Math.min(1, (f * (k1 + 1)) / (f + k1 * norm) / unit);
    }
    // The length is no longer needed: the cell takes the passage's coverage.
    lens[i] = sum / nq;
  }
  return lens;
}

/** The distinct strings of `xs`, in order of first appearance (what [...new Set(xs)] gives). */
function distinct(xs: string[]): string[] {
  if (xs.length > SCAN_TERMS) return [...new Set(xs)];
  const out: string[] = [];
  for (let i = 0; i < xs.length; i++) if (!out.includes(xs[i])) out.push(xs[i]);
  return out;
}

export function bm25Relevance(settings: Settings): RelevanceProvider {
  const r = settings.scoring.retrieval;
  return {
    name: 'bm25',
    score(query, passages) {
      const c = bm25Coverage(query, passages, r.bm25_k1, r.bm25_b);
      for (let i = 0; i < c.length; i++) c[i] = c[i] === 0 ? 0 : logistic(c[i], r.calibration_midpoint, r.calibration_slope);
      return c;
    },
  };
}
