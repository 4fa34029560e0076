/**
 * Find in a run read in parts (src-shared/find-steps.ts): the renderer holds
 * only the skeleton of a big run, so the engine searches the payloads. When
 * the query has a word SQLite can look for in the stored JSON text (ASCII,
 * nothing JSON escapes), rows without it are skipped by LIKE first; every
 * candidate is then matched exactly as the renderer matches a whole run.
 */
import { findHaystacks, matchHaystacks, normaliseFindText, type FindHit } from '../../../src-shared/find-steps';
import type { Json, TraceError } from '../../../src-shared/trace-format';
import type { ReadableDb } from './open-database';
import { resolveRunId } from './read-runs';

export interface FoundSteps {
  hits: FindHit[];
  /** More steps matched than `limit`. */
  truncated: boolean;
}

const COLUMNS = 'step_id, name, input, output, error';

/** The longest word of the needle that the stored JSON text holds verbatim (ASCII, no quote or backslash), or null. */
function sqlWord(needle: string): string | null {
  // An error is searched as "type: message": a word ending in that colon is not in the stored JSON.
  // A "k" may come from the Kelvin sign (U+212A), whose lower case is ASCII but which LIKE does not fold.
  const words = needle
    .split(' ')
    .map((w) => w.replace(/:$/, ''))
    .filter((w) => w.length >= 2 && /^[\x20-\x7e]+$/.test(w) && !/["\\k]/.test(w));
  if (!words.length) return null;
  return words.reduce((a, b) => (b.length > a.length ? b : a));
}

export function findStepsInRun(db: ReadableDb, idOrPrefix: string, query: string, limit = 1000): FoundSteps {
  const runId = resolveRunId(db, idOrPrefix);
  const needle = normaliseFindText(query);
  if (!needle) return { hits: [], truncated: false };
  const word = sqlWord(needle);
  const like = word === null ? null : `%${word.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const rows = (
    like === null
      ? db.prepare(`SELECT ${COLUMNS} FROM steps WHERE run_id = ? ORDER BY idx, started_at`).iterate(runId)
      : db
          .prepare(
            `SELECT ${COLUMNS} FROM steps WHERE run_id = @runId
               AND (name LIKE @like ESCAPE '\\' OR input LIKE @like ESCAPE '\\' OR output LIKE @like ESCAPE '\\' OR error LIKE @like ESCAPE '\\')
             ORDER BY idx, started_at`,
          )
          .iterate({ runId, like })
  ) as IterableIterator<{ step_id: string; name: string; input: string | null; output: string | null; error: string | null }>;
  const hits: FindHit[] = [];
  for (const r of rows) {
    const hit = matchHaystacks(
      r.step_id,
      findHaystacks({ step_id: r.step_id, name: r.name, input: parse<Json>(r.input), output: parse<Json>(r.output), error: parse<TraceError>(r.error) }),
      needle,
    );
    if (!hit) continue;
    if (hits.length === limit) return { hits, truncated: true };
    hits.push(hit);
  }
  return { hits, truncated: false };
}

function parse<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}
