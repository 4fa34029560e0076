import { useState, type ReactNode } from 'react';
import { splitHighlights, type Needle } from '../text/highlight';
import { revealControls } from '../text/visible-controls';

const TRUNCATE_AT = 2_000;

/**
 * Untrusted trace text, rendered as text nodes only. Highlights are <mark>
 * spans cut from the string; bidi and invisible controls appear as visible
 * tokens; very long strings are cut with a button to show the rest.
 */
export function TraceText({ text, needles = [], truncateAt = TRUNCATE_AT }: { text: string; needles?: Needle[]; truncateAt?: number }) {
  const [full, setFull] = useState(false);
  // Never cut through an evidence quote: if it lies beyond the cut, show it all.
  const evidenceBeyond = needles.some((n) => n.kind === 'evidence' && text.indexOf(n.text) + n.text.length > truncateAt);
  const cut = !full && !evidenceBeyond && text.length > truncateAt;
  const shown = cut ? text.slice(0, truncateAt) : text;
  return (
    <>
      {renderSegments(shown, needles)}
      {cut && (
        <>
          <span className="ellipsis">…</span>{' '}
          <button type="button" className="link-button" onClick={() => setFull(true)}>
            show all {text.length.toLocaleString('en-US')} chars
          </button>
        </>
      )}
    </>
  );
}

function renderSegments(text: string, needles: Needle[]): ReactNode[] {
  const out: ReactNode[] = [];
  let key = 0;
  for (const segment of splitHighlights(text, needles)) {
    const inner = revealControls(segment.text).map((piece) =>
      piece.control === null ? (
        piece.text
      ) : (
        <span key={key++} className="control-char" title={`invisible or bidirectional control character ${piece.text}`}>
          {piece.text}
        </span>
      ),
    );
    if (segment.mark === null) out.push(<span key={key++}>{inner}</span>);
    else
      out.push(
        <mark key={key++} className={`hl-${segment.mark}`} data-mark={segment.mark}>
          {inner}
        </mark>,
      );
  }
  return out;
}
