import { describe, expect, it } from 'vitest';
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
