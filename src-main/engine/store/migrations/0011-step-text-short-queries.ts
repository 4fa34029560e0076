/**
 * 0011: searches of one or two characters go through the step text index too
 * (issue 14: a 2-character search that no step holds scanned 1,000,000 steps).
 *
 * A trigram index holds no token for a text under three characters, but every
 * occurrence of one is the start of a trigram once each document ends in two
 * field separators: the documents built under 0010 lack that ending, so they
 * are dropped here and built again lazily (a search reads a run not yet indexed
 * the old way, as after 0010). `step_text_terms` lists the index's trigrams, so
 * the ones starting with the query are found by a range read.
 */
export const migration0011 = {
  version: 11,
  name: 'step-text-short-queries',
  sql: `
DROP TRIGGER step_text_runs_forget;
INSERT INTO step_text (step_text) VALUES ('delete-all');
DELETE FROM step_text_runs;
CREATE TRIGGER step_text_runs_forget AFTER DELETE ON step_text_runs BEGIN
  DELETE FROM step_text WHERE rowid = old.doc;
END;
DELETE FROM catch_up_marks WHERE name = 'step_text';
CREATE VIRTUAL TABLE step_text_terms USING fts5vocab(step_text, 'row');
`,
};
