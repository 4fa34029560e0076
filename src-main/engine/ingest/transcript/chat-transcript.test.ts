import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../store/open-database';
import { importFile } from '../import-file';
import { importText } from '../../../../test/support/foreign-fixtures';

/** A multi-agent log in Who&When's published shape: the task, labels, and the conversation under `history`. */
function whoWhenLog(firstMessageLength = 200): string {
  return JSON.stringify({
    is_correct: false,
    question: 'How many clients have even street numbers?',
    ground_truth: '8',
    history: [
      { role: 'assistant', name: 'Excel_Expert', content: `You are given a task and a plan. ${'x'.repeat(firstMessageLength)}\n\`\`\`python\nprint(4)\n\`\`\`` },
      { role: 'user', name: 'Computer_terminal', content: 'exitcode: 0 (execution succeeded)\nCode output: 4\n' },
      { role: 'user', name: 'Verification_Expert', content: 'The count is 4. TERMINATE' },
    ],
    mistake_agent: 'Excel_Expert',
    mistake_step: '0',
  });
}

describe('chat transcripts in the shape multi-agent benchmarks publish', () => {
  it('a {question, history} log imports as one run: a step per message, the code runner as a tool, the question kept', () => {
    const { runs, issues } = importText(whoWhenLog(), '1.json');
    expect(issues.filter((i) => i.level === 'error')).toEqual([]);
    expect(runs).toHaveLength(1);
    const [run] = runs;
    expect(run.steps.map((s) => [s.name, s.type])).toEqual([
      ['Excel_Expert', 'agent'],
      ['Computer_terminal', 'tool'],
      ['Verification_Expert', 'generic'],
    ]);
    expect(String(run.run.input)).toMatch(/^You are given a task/);
    expect(run.run.extra.question).toBe('How many clients have even street numbers?');
  });

  it('is recognised even when its first message is longer than the part of the file read to detect the format', () => {
    const { runs } = importText(whoWhenLog(200_000), '108.json');
    expect(runs).toHaveLength(1);
    expect(runs[0].steps).toHaveLength(3);
  });
});

describe('a transcript read whole names where a stored field was cut', () => {
  it('at the line of the message it came from, not line 1', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-chat-big-'));
    try {
      const messages = [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'B'.repeat(1_500_000) },
      ];
      const text = JSON.stringify(messages, null, 1);
      const file = path.join(dir, 'chat-big.json');
      fs.writeFileSync(file, text);
      const db = openDatabase(path.join(dir, 'traces.db'));
      const cut = importFile(db, file, { final: true }).newErrors.filter((e) => /, step .*stored truncated/.test(e.message));
      db.close();
      const assistantLine = text.split('\n').findIndex((l) => l.includes('"assistant"')) + 1;
      expect(cut.length).toBeGreaterThan(0);
      // The message starts on the line before its role.
      for (const e of cut) expect(e.line).toBe(assistantLine - 1);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
