import { useState } from 'react';
import type { Json } from '../../../src-shared/trace-format';
import type { Needle } from '../text/highlight';
import { TraceText } from './TraceText';
import { findAll } from '../text/highlight';
import { stringLeaves } from '../text/json-text';

/** Objects bigger than this start folded below the top level, so a huge payload opens fast. */
const FOLD_ABOVE = 12;
const MAX_CHILDREN_SHOWN = 200;

/** `changed` holds JSON paths ("" root, "/key/0" below) to mark as differing from another value. */
export function JsonView({ value, needles, changed }: { value: Json; needles: Needle[]; changed?: Set<string> }) {
  if (typeof value === 'string') {
    return (
      <div className={`json-root trace-text${changed?.has('') ? ' json-changed' : ''}`}>
        <TraceText text={value} needles={needles} />
      </div>
    );
  }
  return (
    <div className="json-root">
      <JsonNode value={value} needles={needles} depth={0} path="" changed={changed} />
    </div>
  );
}

function JsonNode({
  value,
  needles,
  depth,
  label,
  path,
  changed,
}: {
  value: Json;
  needles: Needle[];
  depth: number;
  label?: string;
  path: string;
  changed?: Set<string>;
}) {
  const isArray = Array.isArray(value);
  const isObject = value !== null && typeof value === 'object';
  const entries: [string, Json][] = isObject ? (isArray ? (value as Json[]).map((v, i) => [String(i), v]) : Object.entries(value)) : [];
  // Folded unless small and shallow, or it holds what the user is looking for.
  const [open, setOpen] = useState(
    () => depth === 0 || (depth < 3 && entries.length <= FOLD_ABOVE) || (isObject && holdsNeedle(value, needles)),
  );
  const [limit, setLimit] = useState(MAX_CHILDREN_SHOWN);
  const keyLabel = label !== undefined && (
    <span className="json-key">
      <TraceText text={label} needles={needles} truncateAt={200} />
      {': '}
    </span>
  );
  if (!isObject) {
    return (
      <div className={`json-line${changed?.has(path) ? ' json-changed' : ''}`} style={{ paddingLeft: depth ? 14 : 0 }}>
        {keyLabel}
        <JsonScalar value={value} needles={needles} />
      </div>
    );
  }
  const [openMark, closeMark] = isArray ? ['[', ']'] : ['{', '}'];
  return (
    <div className={`json-node${changed?.has(path) ? ' json-changed' : ''}`} style={{ paddingLeft: depth ? 14 : 0 }}>
      <button type="button" className="json-toggle" aria-expanded={open} onClick={() => setOpen(!open)} title={open ? 'fold' : 'unfold'}>
        {open ? '▾' : '▸'}
      </button>
      {keyLabel}
      <span className="json-punct">{openMark}</span>
      {!open && (
        <button type="button" className="json-summary" onClick={() => setOpen(true)}>
          {entries.length} {isArray ? (entries.length === 1 ? 'item' : 'items') : entries.length === 1 ? 'key' : 'keys'}
        </button>
      )}
      {!open && <span className="json-punct">{closeMark}</span>}
      {open && (
        <>
          {entries.slice(0, limit).map(([k, v]) => (
            <JsonNode key={k} label={isArray ? undefined : k} value={v} needles={needles} depth={depth + 1} path={`${path}/${k}`} changed={changed} />
          ))}
          {entries.length > limit && (
            <div style={{ paddingLeft: 14 }}>
              <button type="button" className="link-button" onClick={() => setLimit(limit + MAX_CHILDREN_SHOWN)}>
                show {Math.min(MAX_CHILDREN_SHOWN, entries.length - limit)} more of {entries.length - limit}
              </button>
            </div>
          )}
          <div className="json-punct">{closeMark}</div>
        </>
      )}
    </div>
  );
}

function JsonScalar({ value, needles }: { value: Json; needles: Needle[] }) {
  if (typeof value === 'string') {
    return (
      <span className="json-string">
        "<TraceText text={value} needles={needles} />"
      </span>
    );
  }
  if (value === null) return <span className="json-null">null</span>;
  if (typeof value === 'number') return <span className="json-number">{String(value)}</span>;
  return <span className="json-bool">{String(value)}</span>;
}

function holdsNeedle(value: Json, needles: Needle[]): boolean {
  if (needles.length === 0) return false;
  return stringLeaves(value).some((leaf) => needles.some((n) => findAll(leaf, n.text, n.caseSensitive).length > 0));
}
