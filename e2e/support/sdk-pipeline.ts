// A user's pipeline recorded with the TypeScript SDK, run as its own process by the e2e suite.
import { pipeline, step, verdict } from '../../sdk/typescript/src/index';

const retrieve = step('retrieve', 'retrieval', async (q: string) => [`notes about ${q}`]);
const answer = step('answer', 'llm', async (ctx: string[]) => `answer from ${ctx.length} passage`);

await pipeline(
  'live-sdk-pipeline',
  async () => {
    const passages = await retrieve('watchers');
    const out = await answer(passages);
    verdict(true, { detail: 'recorded live' });
    return out;
  },
  { input: { question: 'does the page update live?' } },
);
