import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { ChatPromptTemplate } from '@langchain/core/prompts';
import { StringOutputParser } from '@langchain/core/output_parsers';
import { StateGraph, Annotation, START, END } from '@langchain/langgraph';

class Log extends BaseCallbackHandler {
  name = 'log';
  constructor() { super({ _awaitHandler: true }); }
  handleChainStart(...a: any[]) { console.log('chainStart', JSON.stringify({ id: a[0]?.id, runId: a[2], parent: a[3], tags: a[4], meta: a[5], runType: a[6], runName: a[7], inputs: a[1] })); }
  handleChainEnd(...a: any[]) { console.log('chainEnd', a[1], JSON.stringify(a[0]).slice(0, 300)); }
  handleChatModelStart(...a: any[]) { console.log('chatStart', JSON.stringify({ id: a[0]?.id, kw: a[0]?.kwargs, runId: a[2], parent: a[3], extra: a[4], tags: a[5], meta: a[6], runName: a[7] })); }
  handleLLMEnd(...a: any[]) { console.log('llmEnd', a[1], JSON.stringify(a[0]).slice(0, 1500)); }
}
const model = new FakeListChatModel({ responses: ['hello there', 'second'] });
const chain = ChatPromptTemplate.fromMessages([['system', 'be nice'], ['human', '{q}']]).pipe(model).pipe(new StringOutputParser());
console.log(await chain.invoke({ q: 'hi' }, { callbacks: [new Log()] }));
const S = Annotation.Root({ x: Annotation<string>(), y: Annotation<string>() });
const g = new StateGraph(S).addNode('plan', async (s) => ({ y: s.x + '!' })).addNode('act', async (s) => ({ x: await model.invoke(s.y).then(m => String(m.content)) })).addEdge(START, 'plan').addEdge('plan', 'act').addEdge('act', END).compile();
console.log(await g.invoke({ x: 'go' }, { callbacks: [new Log()] }));
