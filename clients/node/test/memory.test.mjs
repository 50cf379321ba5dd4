// SPDX-License-Identifier: Apache-2.0
// Memory (mem0's method names) against a live `agentmem serve`
// (tests/sh/clients_node.sh: AGENTMEM_URL, AGENTMEM_TOKEN_ADMIN, a user
// token AGENTMEM_TOKEN_B of AGENTMEM_USER_B): one object, many users.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Memory, AgentmemError, NotFound, InvalidArgument, Forbidden } from '../agentmem.mjs';

function env(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run tests/sh/clients_node.sh`);
  return v;
}
const m = new Memory({ url: env('AGENTMEM_URL'), token: env('AGENTMEM_TOKEN_ADMIN') });
const T = {
  zh: { fact: '我住在杭州', moved: '我上个月搬到成都了', ask: '我住在哪里？', city: '成都', habit: '我每天早上跑步', stop: '我不再早上跑步了，膝盖疼', edit: '我住在西安' },
  en: { fact: 'I live in Hangzhou', moved: 'Actually I moved to Lyon last month', ask: 'Where do I live?', city: 'Lyon',
    habit: 'I run every morning before work', stop: 'I stopped running in the mornings, my knee hurts', edit: 'I live in Paris' },
};

for (const lang of ['zh', 'en']) {
  test(`every method (${lang})`, async () => {
    const x = T[lang], t = randomUUID().slice(0, 6), u1 = `u1-${t}`, u2 = `用户二-${t}`;
    const added = await m.add(x.fact, { userId: u1, metadata: { project: 'apollo', n: 3 } });
    assert.deepEqual(added.results.map((r) => r.event), ['ADD']);
    const first = added.results[0];
    assert.deepEqual([first.memory, first.userId, first.metadata], [x.fact, u1, { project: 'apollo', n: 3 }]);
    const chat = await m.add([{ role: 'user', content: x.moved }, { role: 'assistant', content: 'OK' }],
      { userId: u1, agentId: 'helper', sessionId: 's1' });
    assert.equal(chat.events.length, 2);
    const upd = chat.results.filter((r) => r.event === 'UPDATE');
    assert.deepEqual([upd[0].id, upd[0].memory, upd[0].previousMemory], [first.id, x.moved, x.fact]);
    await m.add(x.habit, { userId: u2 });
    const stop = await m.add(x.stop, { userId: u2 });
    assert.deepEqual(stop.results.map((r) => [r.event, r.memory]), [['DELETE', x.habit]]);
    const s = await m.search(x.ask, { userId: u1 });
    assert.equal(s.results[0].id, first.id);
    assert.ok(s.block.includes(x.city), s.block);
    assert.ok(s.events.length);
    assert.equal((await m.search(x.ask, { userId: u1, limit: 1 })).results.length, 1);
    assert.deepEqual((await m.search(x.ask, { userId: u1, filters: { project: 'zeus' } })).results, []);
    assert.ok(!(await m.search(x.ask, { userId: u2 })).block.includes(x.city));
    assert.equal((await m.get(first.id, { userId: u1 })).memory, x.moved);
    assert.equal((await m.get(upd[0].versionId, { userId: u1 })).id, first.id);
    for (let i = 0; i < 3; i++) await m.client.addMemory(`${x.fact} #${i}`, { kind: 'fact', key: `note.${i}`, user: u1 });
    assert.equal((await m.getAll({ userId: u1 })).results.length, 4);
    assert.equal((await m.getAll({ userId: u1, limit: 2 })).results.length, 2);
    assert.deepEqual((await m.getAll({ userId: u1, filters: { n: 3 } })).results.map((r) => r.id), [first.id]);
    assert.equal((await m.getAll({ userId: u1, filters: { kind: ['fact', 'profile'] }, limit: 3 })).results.length, 3);
    const u = await m.update(first.id, x.edit, { metadata: { reviewed: true }, userId: u1 });
    assert.deepEqual([u.memory.id, u.memory.memory, u.memory.metadata.reviewed], [first.id, x.edit, true]);
    const h = await m.history(first.id, { userId: u1 });
    assert.deepEqual(h.map((r) => [r.event, r.newMemory]), [['ADD', x.fact], ['UPDATE', x.moved], ['UPDATE', x.edit]]);
    // the profile card: the current value only, in the user's language, within a budget
    const p = await m.profile({ userId: u1 });
    const lines = p.text.split('\n');
    assert.equal(lines[0], lang === 'zh' ? '[用户画像]' : '[User profile]');
    assert.equal(p.lang, lang);
    assert.ok(lines.some((l) => l.endsWith(x.edit)), p.text);
    assert.ok(!lines.some((l) => l.endsWith(x.fact) || l.endsWith(x.moved)), p.text);
    const small = await m.profile({ userId: u1, budget: 15 });
    assert.ok(small.tokens <= 15 && small.left_out >= 1, JSON.stringify(small));
    const p2 = await m.profile({ userId: u2 });
    assert.deepEqual([p2.items, p2.text], [0, '']);
    assert.ok((await m.delete(first.id, { userId: u1 })).deleted >= 3);
    await assert.rejects(m.get(first.id, { userId: u1 }), (e) => e instanceof NotFound && e instanceof AgentmemError && e.status === 404);
    assert.ok((await m.deleteAll({ userId: u1 })).events >= 3);
    assert.deepEqual((await m.getAll({ userId: u1 })).results, []);
    assert.ok((await m.search(x.stop, { userId: u2 })).events.length);
  });
}

test('errors are typed and name the field', async () => {
  const u = `e-${randomUUID().slice(0, 6)}`;
  const cases = [
    [() => m.add([{ role: 'bot', content: 'x' }], { userId: u }), 'messages[0].role'],
    [() => m.add(7, { userId: u }), 'messages'],
    [() => m.add('x', { userId: u, metadata: { project: ['a'] } }), 'metadata'],
    [() => m.add([{ role: 'user', content: '好' }], { userId: u, metadata: { 'bad key': 1 } }), 'metadata'],
    [() => m.search('', { userId: u }), 'query'],
    [() => m.search('x', { userId: u, limit: 0 }), 'limit'],
    [() => m.get('', { userId: u }), 'memoryId'],
    [() => m.profile({ userId: u, budget: 0 }), 'budget'],
    [() => m.profile({ userId: u, budget: 2.5 }), 'budget'],
  ];
  for (const [call, field] of cases)
    await assert.rejects(call(), (e) => e instanceof InvalidArgument && e.field === field && e.status === 400 && e.code === 'invalid_request');
  assert.deepEqual((await m.getAll({ userId: u })).results, []);
  for (const call of [() => m.get('01AAAAAAAAAAAAAAAAAAAAAAAA', { userId: u }), () => m.delete('01AAAAAAAAAAAAAAAAAAAAAAAA', { userId: u }),
    () => m.update('01AAAAAAAAAAAAAAAAAAAAAAAA', '新的', { userId: u })])
    await assert.rejects(call(), NotFound);
  assert.ok(new AgentmemError('not_found', 'x') instanceof NotFound);
});

test('a user token acts for its own user only', async () => {
  const mine = new Memory({ url: env('AGENTMEM_URL'), token: env('AGENTMEM_TOKEN_B') });
  const r = await mine.add(`I prefer green tea, no sugar ${randomUUID().slice(0, 6)}`);
  assert.equal(r.results[0].event, 'ADD');
  assert.equal((await mine.get(r.results[0].id)).memory, r.results[0].memory);
  await assert.rejects(mine.getAll({ userId: env('AGENTMEM_USER_A') }), (e) => e instanceof Forbidden && e.field === 'userId' && e.status === 403);
  await assert.rejects(m.get(r.results[0].id, { userId: 'someone-else' }), NotFound);
});
