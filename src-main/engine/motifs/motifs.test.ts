import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TraceBuilder } from '../../../test/support/trace-builder';
import { openDatabase } from '../store/open-database';
import type { BlameResult } from '../../../src-shared/analysis';
import type { FailureMotif } from '../../../src-shared/motifs';
import { deriveMotif } from './derive-motif';
import { forgetMotif, listMotifs, saveMotif } from './motif-store';
import { motifFileOf, parseMotifFile } from './motif-file';
import { seenBefore } from './seen-before';
import { createMotifService } from './motif-service';
import { DEFAULT_SETTINGS } from '../scoring/settings';
import type { HomePaths } from '../home';

const QUESTION = 'Which cities in Aurelia have a population over 1 million?';

function failingPlannerRun(runId = 'run-fail', question = QUESTION) {
  const b = new TraceBuilder({ runId, pipeline: 'research-team', input: { question } });
  b.step('planner', 'llm', { id: `${runId}-p`, input: { question }, output: { country: 'Aurelia', measure: 'metro_population', op: '>', threshold: 1000000 } });
  b.step('writer', 'llm', { id: `${runId}-w`, output: 'Dunmore and Lenhal' });
  b.verdict(false, 'wrongly includes Dunmore').finish('ok', 'Dunmore and Lenhal');
  return b.detail();
}

const blameOf = (runId: string, stepId: string): BlameResult => ({
  run_id: runId,
  healthy: false,
  failure: { kind: 'verdict', description: 'the verdict says the run failed', signals: [{ name: 'verdict', strength: 1, step_id: null, description: 'failed' }] },
  blamed: [{ step_id: stepId, name: 'planner', type: 'llm', index: 0, score: 0.9, confidence: 'high', reason: 'planner filtered on metro_population', evidence: [], rule: 'test' }],
  co_blamed: [],
  symptoms: [],
  lineage_path: [],
  step_scores: [],
});

function learned(): FailureMotif {
  const run = failingPlannerRun();
  return deriveMotif({
    source: run,
    step: run.steps[0],
    fixedOutput: { country: 'Aurelia', measure: 'population', op: '>', threshold: 1000000 },
    blame: blameOf(run.run.run_id, run.steps[0].step_id),
    experiment: null,
    origin: 'blame',
  });
}

function tempDb() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-motifs-'));
  return { db: openDatabase(path.join(dir, 'traces.db')), dir };
}

describe('failure motifs', () => {
  it('a confirmed planner fix becomes an abstract motif: the task words it depends on and the wrong value, no numbers', () => {
    const m = learned();
    expect(m.task_cue).toBe('population');
    expect(m.violation_cue).toBe('metro_population');
    expect(m.requirement).toBe(`When the task says "population", planner's measure must be "population".`);
    expect(m.step_signature).toBe('planner');
    expect(JSON.stringify([m.name, m.requirement, m.violation, m.recommendation])).not.toMatch(/1000000|Aurelia/);
    expect(m.evidence).toContainEqual({ step_id: 'run-fail-p', field: 'output', quote: 'metro_population' });
  });

  it('is stored with its source run and forgotten when that run is deleted; an imported one stays', () => {
    const { db } = tempDb();
    db.prepare("INSERT INTO runs (run_id, pipeline, status, started_at, imported_at, updated_at) VALUES ('run-fail', 'research-team', 'ok', 1, 1, 1)").run();
    const mine = saveMotif(db, learned());
    const theirs = saveMotif(db, { ...learned(), motif_id: 'motif-from-a-teammate', source_run_id: 'run-elsewhere', origin: 'imported' });
    expect(mine.source_run_id).toBe('run-fail');
    expect(theirs.source_run_id).toBeNull();
    expect(listMotifs(db)).toHaveLength(2);
    db.prepare("DELETE FROM runs WHERE run_id = 'run-fail'").run();
    expect(listMotifs(db).map((m) => m.motif_id)).toEqual(['motif-from-a-teammate']);
    db.close();
  });

  it('tb motifs forget removes one by unique prefix, and refuses an ambiguous one', () => {
    const { db } = tempDb();
    saveMotif(db, { ...learned(), motif_id: 'motif-aa1', source_run_id: null });
    saveMotif(db, { ...learned(), motif_id: 'motif-aa2', source_run_id: null });
    expect(() => forgetMotif(db, 'motif-aa')).toThrow(/ambiguous/);
    expect(forgetMotif(db, 'motif-aa2').motif_id).toBe('motif-aa2');
    expect(() => forgetMotif(db, 'motif-zz')).toThrow(/no motif motif-zz/);
    db.close();
  });

  it('an exported file imports again, and a damaged one is refused naming the file and the field', () => {
    const m = learned();
    const text = JSON.stringify(motifFileOf([m]));
    expect(parseMotifFile(text, 'team.json')).toEqual([m]);
    const broken = JSON.stringify({ ...motifFileOf([m]), motifs: [{ ...m, step_type: 'wizard' }] });
    expect(() => parseMotifFile(broken, 'team.json')).toThrow(/team\.json: not a Traceback motif file: motifs\.0\.step_type/);
    expect(() => parseMotifFile('{', 'team.json')).toThrow(/team\.json: not valid JSON/);
  });

  it("a teammate's file never overwrites a motif learned here, and what it adds is marked imported", () => {
    const { db, dir } = tempDb();
    db.prepare("INSERT INTO runs (run_id, pipeline, status, started_at, imported_at, updated_at) VALUES ('run-fail', 'research-team', 'ok', 1, 1, 1)").run();
    const mine = saveMotif(db, learned());
    const service = createMotifService(db, { home: dir } as HomePaths, () => DEFAULT_SETTINGS, () => blameOf('run-fail', 'run-fail-p'));
    const hijack = { ...mine, name: 'planner must use metro_population (from a file)' };
    const theirs = { ...learned(), motif_id: 'motif-theirs', origin: 'blame' as const };
    const r = service.handlers.importMotifs({ content: JSON.stringify(motifFileOf([hijack, theirs])), name: 'team.json' });
    expect(r).toMatchObject({ added: 1 });
    const byId = new Map(listMotifs(db).map((m) => [m.motif_id, m]));
    expect(byId.get(mine.motif_id)?.name).toBe(mine.name);
    expect(byId.get('motif-theirs')?.origin).toBe('imported');
    db.close();
  });

  it('a new failure of the same kind at the same step is "seen before"; an unrelated failure is not', () => {
    const m = learned();
    const similar = failingPlannerRun('run-2', 'Which cities in Borealia have a population over 2 million?');
    const hits = seenBefore(similar, blameOf('run-2', 'run-2-p'), [m], { minSimilarity: 0.4, max: 3 });
    expect(hits.map((h) => h.motif_id)).toEqual([m.motif_id]);
    expect(hits[0].shared_terms).toContain('popul');

    const b = new TraceBuilder({ runId: 'run-3', input: { question: 'Translate this email into French.' } });
    b.step('translator', 'llm', { id: 't', output: 'Bonjour' });
    b.verdict(false).finish('ok', 'Bonjour');
    const blame = { ...blameOf('run-3', 't'), blamed: [{ ...blameOf('run-3', 't').blamed[0], name: 'translator' }] };
    expect(seenBefore(b.detail(), blame, [m], { minSimilarity: 0.4, max: 3 })).toEqual([]);
  });

  it('a healthy run shows nothing seen before', () => {
    const run = failingPlannerRun('run-4');
    expect(seenBefore(run, { ...blameOf('run-4', 'run-4-p'), healthy: true }, [learned()], { minSimilarity: 0, max: 3 })).toEqual([]);
  });
});
