// SPDX-License-Identifier: Apache-2.0
// agentmemTools under the real AI SDK: generateText with the SDK's mock model
// (ai/test) whose scripted turns call the tools; what lands in agentmem is
// read back over raw HTTP.
import test from 'node:test';
import assert from 'node:assert/strict';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { agentmemTools } from '../ai-sdk.mjs';
import { connect } from '../../agentmem.mjs';
import { URL, TOKEN_B, USER_A, raw, fresh } from './helpers.mjs';

const client = connect(URL, { token: TOKEN_B });
const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

// the tool results the model has seen so far, in order: [{toolName, output}]
function seen(prompt) {
  const out = [];
  for (const m of prompt) {
    if (m.role !== 'tool') continue;
    for (const p of m.content) if (p.type === 'tool-result') out.push({ toolName: p.toolName, output: p.output });
  }
  return out;
}

// a model that plays `script`: each entry gets the results seen so far and answers
// {tool, input} (a tool call) or {text} (the final answer)
function scripted(script) {
  let step = 0;
  return new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      const move = script[step++](seen(prompt));
      if (move.text !== undefined)
        return { content: [{ type: 'text', text: move.text }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
      return {
        content: [{ type: 'tool-call', toolCallId: `call-${step}`, toolName: move.tool, input: JSON.stringify(move.input) }],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage, warnings: [],
      };
    },
  });
}

const value = (r) => (r.output.type === 'json' ? r.output.value : r.output);

test('remember then recall: the memories land in agentmem and come back (Chinese and English)', async () => {
  const label = fresh('run');
  const tools = agentmemTools({ client, metadata: { app: label } });
  assert.deepEqual(Object.keys(tools).sort(), ['forget', 'recall', 'remember', 'update']);
  const model = scripted([
    () => ({ tool: 'remember', input: { text: '用户每天早上六点去游泳', metadata: { topic: 'sport' } } }),
    () => ({ tool: 'remember', input: { text: 'The user is vegetarian and never eats fish' } }),
    () => ({ tool: 'recall', input: { query: '用户早上几点去游泳？' } }),
    () => ({ tool: 'recall', input: { query: 'Does the user eat fish?', limit: 5 } }),
    (r) => ({ text: r.filter((x) => x.toolName === 'recall').map((x) => value(x).memories[0].text).join(' | ') }),
  ]);
  const result = await generateText({
    model, tools, stopWhen: stepCountIs(6),
    prompt: '记住：我每天早上六点去游泳。Also: I am vegetarian, no fish.',
  });
  // really in agentmem, with the tool's metadata
  const { body: list } = await raw(`/v1/memories?metadata.app=${label}`, TOKEN_B);
  assert.deepEqual(list.map((m) => m.text).sort(),
    ['The user is vegetarian and never eats fish', '用户每天早上六点去游泳']);
  assert.equal(list.find((m) => m.text.startsWith('用户')).metadata.topic, 'sport');
  // remember answered the stable id; recall found each memory by its own query
  const results = result.steps.flatMap((s) => s.toolResults);
  const remembered = results.filter((r) => r.toolName === 'remember').map((r) => r.output);
  assert.deepEqual(remembered.map((m) => m.id).sort(), list.map((m) => m.lineage_id).sort());
  assert.equal(result.text, '用户每天早上六点去游泳 | The user is vegetarian and never eats fish');
  const recalls = results.filter((r) => r.toolName === 'recall').map((r) => r.output);
  assert.ok(recalls[0].block.includes('用户每天早上六点去游泳'), recalls[0].block);
  assert.equal(recalls[0].memories[0].id, remembered[0].id);
  assert.equal(typeof recalls[1].memories[0].score, 'number');
});

test('update then forget by the id remember returned', async () => {
  const tools = agentmemTools({ client });
  const model = scripted([
    () => ({ tool: 'remember', input: { text: '用户住在杭州西湖区' } }),
    (r) => ({ tool: 'update', input: { id: value(r[0]).id, text: '用户搬家了，现在住在上海浦东' } }),
    (r) => ({ tool: 'remember', input: { text: 'The user has a cat named Mochi' } }),
    (r) => ({ tool: 'forget', input: { id: value(r[2]).id } }),
    () => ({ text: 'done / 好了' }),
  ]);
  const result = await generateText({ model, tools, stopWhen: stepCountIs(6), prompt: 'I moved to Shanghai; forget the cat.' });
  assert.equal(result.text, 'done / 好了');
  const results = result.steps.flatMap((s) => s.toolResults).map((r) => r.output);
  const [home, updated, cat, forgot] = results;
  assert.equal(updated.id, home.id, 'the stable id survives the update');
  assert.equal(updated.text, '用户搬家了，现在住在上海浦东');
  const got = await raw(`/v1/memories/${home.id}`, TOKEN_B);
  assert.equal(got.status, 200);
  assert.equal(got.body.memory.text, '用户搬家了，现在住在上海浦东');
  assert.ok(got.body.versions.some((v) => v.text === '用户住在杭州西湖区'), 'the old text is a past version');
  assert.equal(forgot.id, cat.id);
  assert.ok(forgot.deleted >= 1);
  assert.equal((await raw(`/v1/memories/${cat.id}`, TOKEN_B)).status, 404);
});

test('a bad call reaches the model as a tool error and writes nothing', async () => {
  const label = fresh('bad');
  const tools = agentmemTools({ client, metadata: { app: label } });
  const model = scripted([
    () => ({ tool: 'forget', input: { id: '01NOSUCHMEMORY0000000000000' } }),
    () => ({ tool: 'remember', input: { text: '' } }),
    () => ({ tool: 'remember', input: { text: '用户的生日是三月八日', metadata: { 'bad key!': 'x' } } }),
    (r) => ({ text: `seen ${r.length}` }),
  ]);
  const result = await generateText({ model, tools, stopWhen: stepCountIs(5), prompt: 'x' });
  const errors = result.steps.flatMap((s) => s.content).filter((p) => p.type === 'tool-error');
  assert.equal(errors.length, 3, JSON.stringify(result.steps.map((s) => s.content)));
  assert.match(String(errors[0].error?.message ?? errors[0].error), /not_found|no memory/);
  assert.match(String(errors[2].error?.message ?? errors[2].error), /metadata/);
  assert.equal(result.text, 'seen 3', 'each error went back to the model');
  const { body: list } = await raw(`/v1/memories?metadata.app=${label}`, TOKEN_B);
  assert.deepEqual(list, []);
});

test('userId: another user only with an admin token', async () => {
  assert.throws(() => agentmemTools({}), /client/);
  assert.throws(() => agentmemTools({ client, userId: '' }), /userId/);
  const tools = agentmemTools({ client, userId: USER_A });
  const model = scripted([() => ({ tool: 'recall', input: { query: '用户住在哪里' } }), () => ({ text: 'x' })]);
  const result = await generateText({ model, tools, stopWhen: stepCountIs(3), prompt: 'x' });
  const [err] = result.steps.flatMap((s) => s.content).filter((p) => p.type === 'tool-error');
  assert.ok(err, 'a 403 comes back as a tool error');
  assert.match(String(err.error?.message ?? err.error), /forbidden/);
});
