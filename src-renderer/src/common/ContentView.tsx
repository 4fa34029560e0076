import { useMemo, useState } from 'react';
import type { Json } from '../../../src-shared/trace-format';
import { contentShape } from '../text/content-shape';
import type { Needle } from '../text/highlight';
import { ChatView } from './ChatView';
import { DocumentCards } from './DocumentCards';
import { JsonView } from './JsonView';
import { stringLeaves } from '../text/json-text';

/**
 * A step's input or output as people read it (src-renderer/src/text/content-shape.ts):
 * a conversation, document cards, or text; a JSON tree only for data. The
 * tree is one click away ("as JSON"). Highlights (search, evidence) reach
 * every piece of text in every form.
 */
export function ContentView({ value, needles }: { value: Json; needles: Needle[] }) {
  const shape = useMemo(() => contentShape(value), [value]);
  const [raw, setRaw] = useState(false);
  if (shape.kind === 'data' || shape.kind === 'text') return <JsonView value={value} needles={needles} />;
  return (
    <div className="content-view" data-shape={shape.kind}>
      <div className="content-switch">
        <span className="muted small">{shape.kind === 'chat' ? `${shape.turns.length} message${shape.turns.length === 1 ? '' : 's'}` : `${shape.docs.length} document${shape.docs.length === 1 ? '' : 's'}`}</span>
        <button type="button" className="mini-button" aria-pressed={raw} onClick={() => setRaw(!raw)}>
          as JSON
        </button>
      </div>
      {raw ? (
        <JsonView value={value} needles={needles} />
      ) : (
        <>
          {shape.kind === 'chat' ? <ChatView turns={shape.turns} needles={needles} /> : <DocumentCards docs={shape.docs} needles={needles} />}
          {shape.rest && (
            <details className="content-rest" open={evidenceIn(shape.rest, needles) || undefined}>
              <summary className="muted small">other fields ({Object.keys(shape.rest).join(', ')})</summary>
              <JsonView value={shape.rest} needles={needles} />
            </details>
          )}
        </>
      )}
    </div>
  );
}

/** Whether an evidence quote sits in `value`: then its folded section opens so the highlight is seen. */
function evidenceIn(value: Json, needles: Needle[]): boolean {
  const quotes = needles.filter((n) => n.kind === 'evidence').map((n) => n.text);
  return quotes.length > 0 && stringLeaves(value).some((t) => quotes.some((q) => t.includes(q)));
}
