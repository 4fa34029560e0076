/**
 * The research team on Claude instead of the simulation (`--model claude`,
 * needs ANTHROPIC_API_KEY; model from TRACEBACK_CLAUDE_MODEL). Each call goes
 * through the SDK's Anthropic wrapper, so it is recorded as a nested llm step.
 *
 * UNTESTED: this environment has no network. The simulated model is what the
 * tests and `tb demo` use.
 */
import { wrapAnthropic } from '../../sdk/typescript/src/index';
import type { CityRow } from './corpus/cities';
import type { Completion, ResearchPlan, TeamModel, Usage } from './team-model';

export async function claudeTeamModel(): Promise<TeamModel> {
  if (!process.env.ANTHROPIC_API_KEY) throw new Error('--model claude needs ANTHROPIC_API_KEY');
  const model = process.env.TRACEBACK_CLAUDE_MODEL ?? 'claude-haiku-4-5';
  // Loaded here, not at the top: the demo module is bundled into tb, which need not load the SDK to start.
  const { default: Anthropic } = await import('@anthropic-ai/sdk');
  const client = wrapAnthropic(new Anthropic());

  const ask = async (system: string, user: string): Promise<{ text: string; usage: Usage }> => {
    const msg = await client.messages.create({ model, max_tokens: 1024, system, messages: [{ role: 'user', content: user }] });
    const text = msg.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    return { text, usage: { input_tokens: msg.usage.input_tokens, output_tokens: msg.usage.output_tokens } };
  };
  const json = <T>(text: string): T => JSON.parse(/\{[\s\S]*\}|\[[\s\S]*\]/.exec(text)?.[0] ?? text) as T;

  return {
    name: model,
    async plan(question, instructions): Promise<Completion<ResearchPlan>> {
      const r = await ask(
        `${instructions}\nReply with JSON only: {"country": string, "measure": "population" | "metro_population", "op": ">", "threshold": number}.`,
        question,
      );
      return { value: json<ResearchPlan>(r.text), usage: r.usage };
    },
    async summarize(rows: CityRow[], plan): Promise<Completion<string[]>> {
      const r = await ask('List the city names from these rows. Reply with a JSON array of strings only.', JSON.stringify({ plan, rows }));
      return { value: json<string[]>(r.text), usage: r.usage };
    },
    async write(question, cities, instructions): Promise<Completion<string>> {
      const r = await ask(instructions, `Question: ${question}\nFindings: ${cities.join(', ')}`);
      return { value: r.text.trim(), usage: r.usage };
    },
    async critique(answer, cities) {
      const r = await ask(
        'Check that the answer names every city in the findings. Reply with JSON only: {"approved": boolean, "comments": string}.',
        `Answer: ${answer}\nFindings: ${cities.join(', ')}`,
      );
      return { value: json<{ approved: boolean; comments: string }>(r.text), usage: r.usage };
    },
  };
}
