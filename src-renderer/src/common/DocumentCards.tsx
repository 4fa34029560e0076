import type { Json } from '../../../src-shared/trace-format';
import type { DocumentCard } from '../text/content-shape';
import { formatScore } from '../text/format';
import type { Needle } from '../text/highlight';
import { JsonView } from './JsonView';
import { TraceText } from './TraceText';

/** Retrieved documents as cards in their retrieved order: rank, relevance score (with a bar when it is in [0, 1]), source and text. */
export function DocumentCards({ docs, needles }: { docs: DocumentCard[]; needles: Needle[] }) {
  return (
    <ol className="doc-cards" data-testid="document-cards">
      {docs.map((d, i) => (
        <li key={i} className="doc-card" data-testid="document-card">
          <div className="doc-head">
            <span className="doc-rank mono">#{i + 1}</span>
            {d.score !== null && (
              <span className="doc-score" title="relevance score as the retriever recorded it">
                {d.score >= 0 && d.score <= 1 && (
                  <span className="doc-score-track">
                    <span style={{ width: `${d.score * 100}%` }} />
                  </span>
                )}
                <span className="mono">score {formatScore(d.score)}</span>
              </span>
            )}
            {d.source && (
              <span className="doc-source mono ellipsis-cell" title={d.source}>
                <TraceText text={d.source} needles={needles} truncateAt={120} />
              </span>
            )}
            {d.id && !d.source && <span className="muted mono small">{d.id}</span>}
          </div>
          <div className="doc-text trace-text">
            <TraceText text={d.text} needles={needles} truncateAt={1200} />
          </div>
          {d.metadata !== null && typeof d.metadata === 'object' && Object.keys(d.metadata).length > 0 && (
            <details className="doc-meta">
              <summary className="muted small">metadata</summary>
              <JsonView value={d.metadata as Json} needles={needles} />
            </details>
          )}
        </li>
      ))}
    </ol>
  );
}
