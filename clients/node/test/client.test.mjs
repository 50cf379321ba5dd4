// SPDX-License-Identifier: Apache-2.0
// The Node client against a live `agentmem serve` (started by
// tests/sh/clients_node.sh: AGENTMEM_URL, AGENTMEM_TOKEN_A/B,
// AGENTMEM_USER_B).  A missing variable fails the suite rather than
// skipping it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { connect, AgentmemError } from '../agentmem.mjs';

function env(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run tests/sh/clients_node.sh`);
  return v;
}
const URL_ = env('AGENTMEM_URL');
const A = connect(URL_, { token: env('AGENTMEM_TOKEN_A') });
const B = connect(URL_, { token: env('AGENTMEM_TOKEN_B') });
const USER_B = env('AGENTMEM_USER_B');
const tag = () => randomUUID().slice(0, 8);

async function rejects(promise, code, field, status) {
  await assert.rejects(promise, (e) => {
    assert.ok(e instanceof AgentmemError, String(e));
    assert.deepEqual([e.code, e.field, e.status], [code, field, status], e.message);
    assert.ok(e.detail);
    return true;
  });
}

const TEXTS = {
  zh: ['以后周报都按已完成、进行中、下周计划三段写', '帮我写这周的周报', '三段', '以后周报都按两段写', '我住在杭州', '周报'],
  en: ['From now on, always send reports as PDF', 'How should I send the report?', 'PDF',
    'From now on, always send reports as Word files', 'I live in Lyon', 'weekly report'],
};

for (const lang of ['zh', 'en']) {
  test(`every method (${lang})`, async () => {
    const [rule, ask, needle, corrected, fact, taskName] = TEXTS[lang];
    const t = tag(), s = `s-${t}`, task = `${taskName}-${t}`;
    assert.equal((await A.health()).status, 'ok');
    const ev = { session: s, task, agent: 'planner', source: 'user', type: 'preference_declare',
      domain: 'reporting', at: '2026-03-05T16:00:00+08:00', id: `c-${t}` };
    const added = await A.add(rule, ev);
    assert.equal(added.memories_created, 1);
    assert.equal(added.existing, false);
    const again = await A.add(rule, ev);
    assert.equal(again.existing, true);
    assert.equal(again.event_id, added.event_id);
    const many = await A.addMany([{ text: fact, session: s, at: '2026-03-05T16:01:00Z' },
      { text: ask, session: s, task, source: 'user', at: '2026-03-05T16:02:00Z' }]);
    assert.equal(many.results.length, 2);
    const chat = await A.add([{ role: 'user', content: fact },
      { role: 'assistant', content: corrected, name: 'planner' }], { session: s, at: '2026-03-05T16:01:30Z' });
    assert.equal(chat.results.length, 2);
    assert.ok(chat.results[0].event_id < chat.results[1].event_id);
    const r = await A.recall(ask, { session: s, task, domain: 'reporting', as_of: '2026-03-06T00:00:00Z', budget: 400 });
    assert.ok(r.block.includes(needle), r.block);
    assert.ok(r.block_system.includes(needle), r.block_system); // a preference: the system prompt's
    assert.ok(!r.block_context.includes(needle), r.block_context);
    assert.equal((await A.task(task)).task_id, task);
    const m = (await A.memories()).find((x) => x.text === rule);
    assert.ok(m, 'the rule is listed');
    const confirmed = await A.feedback(m.id, 'confirm');
    assert.equal(confirmed.ok, true);
    assert.equal(confirmed.memory.lineage_id, m.lineage_id); // the new current version
    assert.notEqual(confirmed.memory.id, m.id);
    const fixed = await A.feedback(m.id, 'correct', corrected); // m.id is stale now: still the item
    assert.equal(fixed.memory.text, corrected);
    // the profile card: the corrected value only, and the fact
    const card = await A.profile();
    const lines = card.text.split('\n');
    assert.ok(lines.some((l) => l.endsWith(corrected)), card.text);
    assert.ok(!lines.some((l) => l.endsWith(rule)), card.text);
    assert.ok(lines.some((l) => l.endsWith(fact)), card.text);
    assert.ok(card.tokens <= card.budget_tokens && card.budget_tokens === 400);
    assert.deepEqual(await A.profile(), card);
    const small = await A.profile({ budget: 10 });
    assert.ok(small.tokens <= 10 && small.left_out >= 1, JSON.stringify(small));
    const v = await A.versions(m.id);
    assert.equal(v.memory_id, m.id);
    const texts = v.versions.map((x) => x.text);
    assert.equal(texts[0], rule);
    assert.ok(texts.includes(corrected), texts.join(' | '));
    const all = await A.memories({ all: true, as_of: '2026-12-31T00:00:00Z' });
    assert.ok(all.filter((x) => x.lineage_id === m.lineage_id).length >= 2);
    const exp = await A.export();
    assert.equal(exp.format, 'agentmem-export');
    assert.ok(exp.events.some((e) => e.content === fact));
    // one memory by id: add, supersede by key, get by an earlier version, update, delete
    const first = (await A.addMemory(`${fact} (1)`, { kind: 'fact', key: `note.${t}` })).memory;
    const second = (await A.addMemory(`${fact} (2)`, { kind: 'fact', key: `note.${t}` })).memory;
    assert.equal(second.lineage_id, first.lineage_id);
    const got = await A.getMemory(first.id);
    assert.equal(got.memory.text, `${fact} (2)`);
    assert.ok(got.versions.length >= 2);
    assert.equal((await A.updateMemory(first.id, corrected)).memory.text, corrected);
    assert.ok((await A.deleteMemory(first.lineage_id)).deleted >= 3);
    await rejects(A.getMemory(first.lineage_id), 'not_found', null, 404);
    const f = await A.forget('session', s);
    assert.ok(f.events >= 3, JSON.stringify(f));
    assert.ok(!(await A.memories()).some((x) => x.text === fact), 'forgotten fact still listed');
  });
}

test('bad fields are named', async () => {
  const before = (await A.export()).events.length;
  await rejects(A.add(7), 'invalid_request', 'text', 400);
  await rejects(A.add('时间不带时区', { at: '2026-03-05T16:00:00' }), 'invalid_request', 'at', 400);
  await rejects(A.add('x', { bogus: 1 }), 'invalid_request', 'bogus', 400);
  await rejects(A.addMany([{ text: 'fine' }, { text: 7 }]), 'invalid_request', 'events[1].text', 400);
  await rejects(A.add([]), 'invalid_request', 'messages', 400);
  await rejects(A.add([{ role: 'user', content: '好' }, { role: 'bot', content: 'x' }]), 'invalid_request', 'messages[1].role', 400);
  await rejects(A.add([{ role: 'assistant' }]), 'invalid_request', 'messages[0].content', 400);
  await rejects(A.recall('x', { budget: 0 }), 'invalid_request', 'budget', 400);
  await rejects(A.recall(''), 'invalid_request', 'query', 400);
  await rejects(A.feedback('01AAAAAAAAAAAAAAAAAAAAAAAA', 'frobnicate'), 'invalid_request', 'action', 400);
  await rejects(A.forget('galaxy'), 'invalid_request', 'level', 400);
  await rejects(A.forget('task', undefined), 'invalid_request', 'id', 400);
  await rejects(A.add('半个字符 \ud800 broken'), 'invalid_request', 'text', 400);
  await rejects(A.add('NUL 字符\0inside'), 'invalid_request', 'text', 400);
  await rejects(A.addMany([{ text: 'ok' }, { text: 'x', session: '\udfff' }]), 'invalid_request', 'events[1].session', 400);
  await rejects(A.recall('x', { as_of: '2026-03-05T16:00:00' }), 'invalid_request', 'as_of', 400);
  await rejects(A.profile({ budget: 0 }), 'invalid_request', 'budget', 400);
  await rejects(A.profile({ budget: 100001 }), 'invalid_request', 'budget', 400);
  await rejects(A.profile({ budget: '400' }), 'invalid_request', 'budget', 400);
  await rejects(A.task('没有这个任务'), 'not_found', null, 404);
  assert.equal((await A.export()).events.length, before, 'a refused request wrote something');
});

test('addMemory takes expires_at (a string or a Date); a bad one is named (zh, en)', async () => {
  const t = randomUUID().slice(0, 8);
  const soon = new Date(Math.floor(Date.now() / 1000) * 1000 + 2 * 86400000);
  const utc = soon.toISOString().replace('.000Z', 'Z');
  const zh = (await A.addMemory(`会议室${t}在装修`, { kind: 'fact', expires_at: soon })).memory;
  assert.equal(zh.expires_at, utc);
  assert.equal(zh.version_state, 'current');
  const en = (await A.addMemory(`Desk ${t} is booked`, { kind: 'fact', expires_at: utc })).memory;
  assert.equal(en.expires_at, utc);
  assert.equal((await A.addMemory(`I prefer aisle seats ${t}`)).memory.expires_at, null);
  const past = new Date(Date.now() - 3600000).toISOString();
  for (const bad of [past, '2030-01-01T00:00:00', 'next tuesday', 12])
    await rejects(A.addMemory(`Parking ${t} level 3`, { expires_at: bad }), 'invalid_request', 'expires_at', 400);
  assert.ok(!(await A.memories({ all: true })).some((m) => m.text.includes(`Parking ${t}`)));
});

test('a bad token is 401, an unreachable server is unavailable', async () => {
  for (const token of ['amk_' + 'A'.repeat(43), 'not a token', ''])
    await rejects(connect(URL_, { token }).recall('你好'), 'unauthorized', null, 401);
  await rejects(connect('http://127.0.0.1:9', { token: 't', timeoutMs: 5000 }).health(), 'unavailable', null, null);
});

test('isolation: A never sees B, naming B is refused', async () => {
  const secret = `我的银行卡密码提示是蓝色海豚 ${tag()}`;
  await B.add(secret, { session: 'b' });
  await B.add('My locker code is 4417, keep it private', { session: 'b' });
  const named = { user: USER_B };
  for (const call of [() => A.recall('银行卡', named), () => A.memories(named), () => A.export(named),
    () => A.add('hi', named), () => A.task('b', named), () => A.forget('user', undefined, named),
    () => A.profile(named)])
    await rejects(call(), 'forbidden', 'user', 403);
  const seen = JSON.stringify([await A.recall('银行卡密码提示是什么？'), await A.recall('what is my locker code?'),
    await A.memories({ all: true }), await A.export(), await A.profile()]);
  assert.ok(!seen.includes('蓝色海豚') && !seen.includes('4417'), 'B leaked into A');
  assert.ok(JSON.stringify(await B.recall('银行卡密码提示是什么？')).includes('蓝色海豚'));
});

test('the example agent loop runs end to end', async () => {
  const ex = fileURLToPath(new URL('../examples/agent_loop.mjs', import.meta.url));
  const { stdout } = await promisify(execFile)(process.execPath,
    [ex, '--url', URL_, '--token', env('AGENTMEM_TOKEN_A'), '--session', `loop-${tag()}`], { timeout: 120000 });
  const turns = stdout.split('--- turn ');
  assert.equal(turns.length, 5, stdout);
  assert.ok(turns[2].includes('三段'), turns[2]);
  assert.ok(turns[4].includes('PDF'), turns[4]);
  assert.ok(turns[4].includes('agent: (echo)'));
});

test('events page back and search; an admin imports an export (zh, en)', async () => {
  const tag = randomUUID().slice(0, 8);
  for (let i = 0; i < 5; i++)
    await A.add(i % 2 ? `第${i}条记录 ${tag}` : `note number ${i} ${tag}`, { session: `ev-${tag}` });
  let page = await A.listEvents({ limit: 2, session: `ev-${tag}` });
  assert.equal(page.events.length, 2);
  const seen = page.events.map((e) => e.id);
  while (page.next_cursor) {
    page = await A.listEvents({ limit: 2, cursor: page.next_cursor, session: `ev-${tag}` });
    seen.push(...page.events.map((e) => e.id));
  }
  assert.equal(new Set(seen).size, 5);
  const found = (await A.listEvents({ q: '第3条记录', session: `ev-${tag}` })).events;
  assert.deepEqual(found.map((e) => e.content), [`第3条记录 ${tag}`]);
  await assert.rejects(A.listEvents({ limit: 0 }), (e) => e instanceof AgentmemError && e.field === 'limit');

  const admin = connect(URL_, { token: env('AGENTMEM_TOKEN_ADMIN') });
  const doc = await A.export();
  // into its own user again: a user with data is refused; --merge adds nothing new
  await assert.rejects(admin.importExport(doc), (e) => e instanceof AgentmemError && e.status === 409);
  const merged = await admin.importExport(doc, { merge: true });
  assert.equal(merged.events, 0);
  assert.equal(merged.events_skipped, doc.events.length);
  // a user's token may not import
  await assert.rejects(A.importExport(doc, { merge: true }), (e) => e instanceof AgentmemError && e.status === 403);
  const m0 = await admin.importExport([{ id: 'm1', memory: '用户喜欢喝乌龙茶' }, { id: 'm2', memory: 'The user is vegetarian' }],
    { user: `mem0-${tag}`, from: 'mem0' });
  assert.equal(m0.memories, 2);
});
