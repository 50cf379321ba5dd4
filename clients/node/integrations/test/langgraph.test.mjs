// SPDX-License-Identifier: Apache-2.0
// AgentmemStore: the BaseStore contract against a live server, and a real
// LangGraph StateGraph (compile({store})) whose nodes remember and recall
// through it, driven by @langchain/core's fake chat models.
import test from 'node:test';
import assert from 'node:assert/strict';
import { StateGraph, MessagesAnnotation, MemorySaver, START, END } from '@langchain/langgraph';
import { BaseStore, InvalidNamespaceError } from '@langchain/langgraph-checkpoint';
import { FakeChatModel, FakeListChatModel } from '@langchain/core/utils/testing';
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import { AgentmemStore } from '../langgraph.mjs';
import { AgentmemError, connect } from '../../agentmem.mjs';
import { URL, TOKEN_A, TOKEN_B, USER_A, fresh, raw, memoriesWhere } from './helpers.mjs';

const store = new AgentmemStore({ url: URL, token: TOKEN_A });

test('is a BaseStore; put then get round-trips a value in Chinese and English', async () => {
  assert.ok(store instanceof BaseStore);
  const ns = [fresh('users'), '林晓', 'profile'];
  await store.put(ns, 'drink', { text: '用户喜欢喝美式咖啡，不加糖', lang: 'zh', cups: 2, iced: false });
  await store.put(ns, 'settings', { theme: 'dark', langs: ['zh', 'en'], nested: { a: 1 } });
  await store.put(ns, 'note', { content: 'Prefers weekly reports as PDF' });
  const drink = await store.get(ns, 'drink');
  assert.deepEqual(drink.namespace, ns);
  assert.equal(drink.key, 'drink');
  assert.deepEqual(drink.value, { text: '用户喜欢喝美式咖啡，不加糖', lang: 'zh', cups: 2, iced: false });
  assert.ok(drink.createdAt instanceof Date && drink.updatedAt instanceof Date);
  assert.deepEqual((await store.get(ns, 'settings')).value,
    { theme: 'dark', langs: ['zh', 'en'], nested: { a: 1 } });
  assert.deepEqual((await store.get(ns, 'note')).value, { content: 'Prefers weekly reports as PDF' });
  assert.equal(await store.get(ns, 'missing'), null);
  assert.equal(await store.get([...ns, 'deeper'], 'drink'), null);
  // it really is an agentmem memory: its text, its place in the metadata
  const [m] = await memoriesWhere('lg.ns', JSON.stringify(ns)).then((l) => l.filter((x) => x.metadata['lg.key'] === 'drink'));
  assert.equal(m.text, '用户喜欢喝美式咖啡，不加糖');
  assert.equal(m.metadata['v.lang'], 'zh');
  assert.equal(m.metadata['v.cups'], 2);
  const [note] = (await memoriesWhere('lg.ns', JSON.stringify(ns))).filter((x) => x.metadata['lg.key'] === 'note');
  assert.equal(note.text, 'Prefers weekly reports as PDF');
});

test('put of an existing key is a new version; createdAt stays; delete removes every version', async () => {
  const ns = [fresh('prefs')];
  await store.put(ns, 'tea', { text: 'The user drinks black tea in the morning' });
  const first = await store.get(ns, 'tea');
  await new Promise((r) => setTimeout(r, 20));
  await store.put(ns, 'tea', { text: '用户现在早上改喝绿茶了' });
  const second = await store.get(ns, 'tea');
  assert.deepEqual(second.value, { text: '用户现在早上改喝绿茶了' });
  assert.equal(second.createdAt.getTime(), first.createdAt.getTime());
  assert.ok(second.updatedAt > first.updatedAt);
  const list = await memoriesWhere('lg.ns', JSON.stringify(ns));
  assert.equal(list.length, 1, 'one current memory per item');
  const id = list[0].lineage_id;
  const { status, body } = await raw(`/v1/memories/${id}`);
  assert.equal(status, 200);
  assert.deepEqual([...new Set(body.versions.map((v) => v.text))],
    ['The user drinks black tea in the morning', '用户现在早上改喝绿茶了'], 'the item\'s history is its values');
  assert.equal(body.memory.text, '用户现在早上改喝绿茶了');
  await store.delete(ns, 'tea');
  assert.equal(await store.get(ns, 'tea'), null);
  assert.equal((await raw(`/v1/memories/${id}`)).status, 404);
  await store.delete(ns, 'tea');  // deleting what is not there is no error
});

test('two items with the same text stay two memories', async () => {
  const root = fresh('same');
  await store.put([root, 'a'], 'k', { text: '每周五下午三点开组会' });
  await store.put([root, 'b'], 'k', { text: '每周五下午三点开组会' });
  await store.put([root, 'b'], 'k2', { text: 'Team meeting every Friday at 3pm' });
  await store.put([root, 'c'], 'k2', { text: 'Team meeting every Friday at 3pm' });
  for (const [ns, key, text] of [[[root, 'a'], 'k', '每周五下午三点开组会'], [[root, 'b'], 'k', '每周五下午三点开组会'],
    [[root, 'b'], 'k2', 'Team meeting every Friday at 3pm'], [[root, 'c'], 'k2', 'Team meeting every Friday at 3pm']])
    assert.deepEqual((await store.get(ns, key))?.value, { text }, `${ns}/${key}`);
  assert.equal((await store.search([root], { limit: 100 })).length, 4);
  await store.delete([root, 'a'], 'k');
  assert.deepEqual((await store.get([root, 'b'], 'k')).value, { text: '每周五下午三点开组会' });
});

test('search: prefix, filter with operators, limit and offset, query ranking', async () => {
  const root = fresh('docs');
  const docs = [
    [[root, 'zh'], 'd1', { text: '用户的女儿在读小学三年级', topic: 'family', n: 1 }],
    [[root, 'zh'], 'd2', { text: '用户对花生过敏，点餐时要避开', topic: 'health', n: 2 }],
    [[root, 'en'], 'd3', { text: 'The user is training for a marathon in April', topic: 'health', n: 3 }],
    [[root, 'en'], 'd4', { text: 'The user lives in Hangzhou', topic: 'home', n: 4 }],
    [[root + 'x', 'en'], 'd5', { text: 'The user lives in Shanghai', topic: 'home', n: 5 }],
  ];
  for (const [ns, k, v] of docs) await store.put(ns, k, v);
  const keys = (items) => items.map((i) => i.key).sort();
  assert.deepEqual(keys(await store.search([root], { limit: 50 })), ['d1', 'd2', 'd3', 'd4']);
  assert.deepEqual(keys(await store.search([root, 'zh'])), ['d1', 'd2']);
  assert.deepEqual(keys(await store.search([root, 'en'])), ['d3', 'd4']);
  assert.deepEqual(keys(await store.search([root], { filter: { topic: 'health' } })), ['d2', 'd3']);
  assert.deepEqual(keys(await store.search([root], { filter: { n: { $gte: 2, $lt: 4 } } })), ['d2', 'd3']);
  assert.deepEqual(keys(await store.search([root], { filter: { topic: { $ne: 'health' } } })), ['d1', 'd4']);
  const page1 = await store.search([root], { limit: 3 });
  const page2 = await store.search([root], { limit: 3, offset: 3 });
  assert.equal(page1.length, 3);
  assert.equal(page2.length, 1);
  assert.deepEqual([...keys(page1), ...keys(page2)].sort(), ['d1', 'd2', 'd3', 'd4']);
  // a query: the engine's recall within the prefix, with its scores (its ranking is the engine's)
  const zh = await store.search([root], { query: '点餐的时候有什么过敏要注意' });
  assert.ok(zh.some((i) => i.key === 'd2'), JSON.stringify(zh.map((i) => i.key)));
  assert.ok(zh.every((i) => typeof i.score === 'number' && i.namespace[0] === root));
  const en = await store.search([root, 'en'], { query: 'Which city does the user live in?' });
  assert.ok(en.some((i) => i.key === 'd4'), JSON.stringify(en.map((i) => i.key)));
  assert.ok(en.every((i) => i.namespace[1] === 'en' && i.namespace[0] === root), 'stays in the prefix');
  assert.equal((await store.search([root], { query: '过敏', limit: 1 })).length, 1);
  assert.deepEqual(await store.search([root], { query: '过敏', filter: { topic: 'family' } })
    .then((l) => l.filter((i) => i.key === 'd2')), []);
});

test('listNamespaces: prefix, suffix, wildcard, maxDepth, limit and offset', async () => {
  const root = fresh('tree');
  for (const ns of [[root, '甲', 'v1'], [root, '甲', 'v2'], [root, 'b', 'v1'], [root, 'b']])
    await store.put(ns, 'k', { text: `namespace ${ns.join(' ')}` });
  const mine = (l) => l.filter((ns) => ns[0] === root);
  assert.deepEqual(await store.listNamespaces({ prefix: [root] }),
    [[root, 'b'], [root, 'b', 'v1'], [root, '甲', 'v1'], [root, '甲', 'v2']]);
  assert.deepEqual(mine(await store.listNamespaces({ prefix: [root], suffix: ['v1'] })),
    [[root, 'b', 'v1'], [root, '甲', 'v1']]);
  assert.deepEqual(await store.listNamespaces({ prefix: [root, '*', 'v2'] }), [[root, '甲', 'v2']]);
  assert.deepEqual(await store.listNamespaces({ prefix: [root], maxDepth: 2 }), [[root, 'b'], [root, '甲']]);
  assert.deepEqual(await store.listNamespaces({ prefix: [root], limit: 2, offset: 1 }),
    [[root, 'b', 'v1'], [root, '甲', 'v1']]);
});

test('refusals name the field; another user cannot read the items', async () => {
  const ns = [fresh('private')];
  await assert.rejects(store.put(ns, 'k', 'not an object'), (e) => e instanceof AgentmemError &&
    e.code === 'invalid_request' && e.field === 'value');
  await assert.rejects(store.put(['a.b'], 'k', { text: 'x' }), InvalidNamespaceError);
  await assert.rejects(store.put(ns, '', { text: 'x' }), (e) => e.field === 'key');
  // a field too long for metadata: the whole value is kept as JSON, still exact
  const long = { text: '长字段', note: '很'.repeat(600) };
  await store.put(ns, 'long', long);
  assert.deepEqual((await store.get(ns, 'long')).value, long);
  await store.put(ns, 'secret', { text: '用户的银行卡密码提示是生日' });
  const other = new AgentmemStore({ url: URL, token: TOKEN_B });
  assert.equal(await other.get(ns, 'secret'), null);
  assert.deepEqual(await other.search(ns), []);
  assert.deepEqual(await other.search(ns, { query: '银行卡密码' }), []);
  const posing = new AgentmemStore({ url: URL, token: TOKEN_B, user: USER_A });
  await assert.rejects(posing.get(ns, 'secret'), (e) => e.status === 403 && e.code === 'forbidden');
  const down = new AgentmemStore({ client: connect('http://127.0.0.1:9', { token: TOKEN_A }) });
  await assert.rejects(down.get(ns, 'secret'), (e) => e.code === 'unavailable');
  assert.deepEqual((await store.get(ns, 'secret')).value, { text: '用户的银行卡密码提示是生日' });
});

// a graph: remember (a fake extractor model decides what lasts) then respond (the
// store's recall goes into the system prompt of a fake chat model that echoes its input)
function memoryGraph(extractorReplies) {
  const extractor = new FakeListChatModel({ responses: extractorReplies });
  const chat = new FakeChatModel({});
  let n = 0;
  return new StateGraph(MessagesAnnotation)
    .addNode('remember', async (state, config) => {
      const ns = ['memories', config.configurable.user_id];
      const said = state.messages.at(-1);
      const out = await extractor.invoke([new SystemMessage('One lasting fact about the user, or NONE.'), said]);
      if (out.content !== 'NONE') await config.store.put(ns, `fact-${++n}`, { text: out.content });
      return {};
    })
    .addNode('respond', async (state, config) => {
      const ns = ['memories', config.configurable.user_id];
      const items = await config.store.search(ns, { query: state.messages.at(-1).content, limit: 3 });
      const system = `What you know about the user:\n${items.map((i) => `- ${i.value.text}`).join('\n')}`;
      return { messages: [await chat.invoke([new SystemMessage(system), ...state.messages])] };
    })
    .addEdge(START, 'remember')
    .addEdge('remember', 'respond')
    .addEdge('respond', END)
    .compile({ store, checkpointer: new MemorySaver() });
}

for (const [lang, said, fact, asked] of [
  ['Chinese', '我对花生过敏，以后推荐零食的时候注意一下', '用户对花生过敏', '给我推荐几样零食吧，别推荐我过敏的东西'],
  ['English', "I'm allergic to peanuts, keep that in mind for snacks", 'The user is allergic to peanuts',
    'Recommend me some snacks, nothing I am allergic to'],
]) {
  test(`a StateGraph remembers across threads through the store (${lang})`, async () => {
    const userId = fresh('user');
    const graph = memoryGraph([fact, 'NONE']);
    await graph.invoke({ messages: [new HumanMessage(said)] },
      { configurable: { thread_id: fresh('t1'), user_id: userId } });
    // the memory landed in agentmem, under the user's namespace
    const stored = await memoriesWhere('lg.ns', JSON.stringify(['memories', userId]));
    assert.deepEqual(stored.map((m) => m.text), [fact]);
    // another thread, nothing in its history: the fact comes back from agentmem
    const out = await graph.invoke({ messages: [new HumanMessage(asked)] },
      { configurable: { thread_id: fresh('t2'), user_id: userId } });
    assert.equal(out.messages.length, 2, 'the second thread has its own history');
    const reply = out.messages.at(-1).content;
    assert.ok(reply.includes(`- ${fact}`), reply);
    assert.ok(!asked.includes(fact));
    assert.equal((await memoriesWhere('lg.ns', JSON.stringify(['memories', userId]))).length, 1,
      'NONE wrote nothing');
  });
}
