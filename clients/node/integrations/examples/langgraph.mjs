// SPDX-License-Identifier: Apache-2.0
// A LangGraph.js agent with agentmem as its long-term memory store.
//
//   agentmem serve &                       # http://127.0.0.1:8420
//   agentmem token create --user 林晓       # prints amk_...
//   node examples/langgraph.mjs --url http://127.0.0.1:8420 --token amk_...
//
// Runs offline: the "model" is @langchain/core's FakeChatModel (it echoes its
// prompt, so you see the memories it was given) and the extractor a
// FakeListChatModel.  For a real model: npm install @langchain/openai, then
//   import { ChatOpenAI } from '@langchain/openai';
//   const chat = new ChatOpenAI({ model: 'gpt-4o-mini' });   // reads OPENAI_API_KEY
// and give the extractor a prompt that returns one lasting fact or NONE.
import { parseArgs } from 'node:util';
import { StateGraph, MessagesAnnotation, MemorySaver, START, END } from '@langchain/langgraph';
import { FakeChatModel, FakeListChatModel } from '@langchain/core/utils/testing';
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import { AgentmemStore } from '../langgraph.mjs';

const { values: args } = parseArgs({ options: {
  url: { type: 'string', default: 'http://127.0.0.1:8420' },
  token: { type: 'string', default: process.env.AGENTMEM_TOKEN },
} });
const store = new AgentmemStore({ url: args.url, token: args.token });
const chat = new FakeChatModel({});
const extractor = new FakeListChatModel({
  responses: ['用户的周报要按已完成、进行中、下周计划三段写', 'The user wants every report as a PDF', 'NONE'],
});

const graph = new StateGraph(MessagesAnnotation)
  // after each user turn: keep what lasts, under the user's namespace
  .addNode('remember', async (state, config) => {
    const ns = ['memories', config.configurable.user_id];
    const fact = await extractor.invoke([
      new SystemMessage('State one lasting fact or preference of the user from this message, or NONE.'),
      state.messages.at(-1)]);
    if (fact.content !== 'NONE') await config.store.put(ns, `fact-${Date.now()}`, { text: fact.content });
    return {};
  })
  // before answering: what agentmem recalls for this message goes into the system prompt
  .addNode('respond', async (state, config) => {
    const ns = ['memories', config.configurable.user_id];
    const items = await config.store.search(ns, { query: state.messages.at(-1).content, limit: 5 });
    const system = `What you know about the user:\n${items.map((i) => `- ${i.value.text}`).join('\n')}`;
    return { messages: [await chat.invoke([new SystemMessage(system), ...state.messages])] };
  })
  .addEdge(START, 'remember')
  .addEdge('remember', 'respond')
  .addEdge('respond', END)
  .compile({ store, checkpointer: new MemorySaver() });

const user = `demo-${Date.now()}`;
for (const [thread, said] of [
  ['monday', '以后周报都按已完成、进行中、下周计划三段写'],
  ['tuesday', 'Please always send reports as PDF from now on'],
  ['friday', '帮我写这周的周报，记得用 PDF 格式'],   // a new thread: only the store remembers
]) {
  const out = await graph.invoke({ messages: [new HumanMessage(said)] },
    { configurable: { thread_id: thread, user_id: user } });
  console.log(`[${thread}] user: ${said}\n[${thread}] model saw:\n${out.messages.at(-1).content}\n`);
}
console.log('stored items:', (await store.search(['memories', user])).map((i) => i.value.text));
