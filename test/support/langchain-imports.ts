// What a user could see of a LangChain import, and the check that the streamed import stores what the whole one does.
import path from 'node:path';
import { expect } from 'vitest';
import { importedBy, type Imported, type Importer } from './imported-rows';
import { importWhole } from '../../src-main/engine/ingest/import-foreign';
import { importLangChainStreaming } from '../../src-main/engine/ingest/langchain/run-tree-stream-import';

/** Streamed (one round, and a round per waiting run) and whole imports of `file` store the same rows and problems; the whole import's. */
export function expectStreamedSameAsWhole(file: string): Imported {
  const dir = path.dirname(file);
  const whole = importedBy(file, importWhole, path.join(dir, 'whole.db'), 'langchain');
  const rounds: Importer = (db, fd, name, size, format, errors) => importLangChainStreaming(db, fd, name, size, format, errors, { reorderBudgetBytes: 1 });
  for (const [label, importer] of [['streamed', importLangChainStreaming], ['streamed in rounds', rounds]] as [string, Importer][]) {
    const streamed = importedBy(file, importer, path.join(dir, 'streamed.db'), 'langchain');
    expect([...streamed.problems].sort(), label).toEqual([...whole.problems].sort());
    expect(streamed.runs, label).toEqual(whole.runs);
    expect(streamed.steps, label).toEqual(whole.steps);
  }
  return whole;
}
