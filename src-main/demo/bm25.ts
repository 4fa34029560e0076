/**
 * A small BM25 retriever (Robertson & Zaragoza 2009, k1 = 1.2, b = 0.75)
 * over an in-memory document list. Ties, including "every score is 0", keep
 * document order: that is what a naive retriever does, and the demo's
 * irrelevant-retrieval failure relies on it.
 */
export interface Passage {
  id: string;
  title: string;
  text: string;
  score: number;
}

const STOPWORDS = new Set(
  'a an and are as at be by can do does for from how i in is it of on or the to what when where which who why with you your my me'.split(' '),
);

export function tokenize(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9$€]+(?:[.-][a-z0-9]+)*/g) ?? []).filter((t) => !STOPWORDS.has(t));
}

export class Bm25Index<D extends { id: string; title: string }> {
  private readonly docs: D[];
  private readonly terms: Map<string, number>[];
  private readonly lengths: number[];
  private readonly df = new Map<string, number>();
  private readonly avgLength: number;

  /** `field` picks the text that is indexed for each document. */
  constructor(docs: D[], field: (doc: D) => string | undefined) {
    this.docs = docs;
    this.terms = docs.map((d) => {
      const counts = new Map<string, number>();
      for (const t of tokenize(field(d) ?? '')) counts.set(t, (counts.get(t) ?? 0) + 1);
      for (const t of counts.keys()) this.df.set(t, (this.df.get(t) ?? 0) + 1);
      return counts;
    });
    this.lengths = this.terms.map((m) => [...m.values()].reduce((a, b) => a + b, 0));
    this.avgLength = this.lengths.reduce((a, b) => a + b, 0) / Math.max(1, docs.length) || 1;
  }

  search(query: string, k: number): { doc: D; score: number }[] {
    const q = [...new Set(tokenize(query))];
    const n = this.docs.length;
    const scored = this.docs.map((doc, i) => {
      let score = 0;
      for (const t of q) {
        const tf = this.terms[i].get(t) ?? 0;
        if (!tf) continue;
        const df = this.df.get(t) ?? 0;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        score += (idf * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * this.lengths[i]) / this.avgLength));
      }
      return { doc, score: Math.round(score * 1000) / 1000, order: i };
    });
    scored.sort((a, b) => b.score - a.score || a.order - b.order);
    return scored.slice(0, k).map(({ doc, score }) => ({ doc, score }));
  }
}
