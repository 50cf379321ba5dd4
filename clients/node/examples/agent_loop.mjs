#!/usr/bin/env node
// SPDX-License-Identifier: Apache-2.0
// A runnable agent loop over agentmem serve: recall before each turn (the
// memory block goes into the prompt), add the user's turn and the agent's
// answer after.  The "LLM" echoes, so no API key is needed.
//
//   node agent_loop.mjs --url http://127.0.0.1:8420 --token amk_... [--session S] [turn ...]
import { connect, AgentmemError } from '../agentmem.mjs';

const DEFAULT_TURNS = [
  '以后周报都按已完成、进行中、下周计划三段写',
  '帮我写这周的周报',
  'From now on, always send reports as PDF',
  "How should I send this week's report?",
];

function fakeLlm(prompt) {
  const [memory, turn] = [prompt.split('User: ')[0], prompt.split('User: ').pop()];
  const n = memory.split('\n').filter((l) => l.startsWith('- ')).length;
  return `(echo) ${turn}${n ? ` [using ${n} memories]` : ''}`;
}

const args = process.argv.slice(2);
const opt = { url: null, token: process.env.AGENTMEM_TOKEN, session: 'loop-1', task: undefined };
const turns = [];
for (let i = 0; i < args.length; i++) {
  const m = /^--(url|token|session|task)$/.exec(args[i]);
  if (m && i + 1 < args.length) opt[m[1]] = args[++i];
  else turns.push(args[i]);
}
if (!opt.url) {
  console.error('usage: agent_loop.mjs --url URL --token TOKEN [--session S] [--task T] [turn ...]');
  process.exit(2);
}
const mem = connect(opt.url, { token: opt.token });
try {
  let i = 0;
  for (const turn of turns.length ? turns : DEFAULT_TURNS) {
    const { block } = await mem.recall(turn, { session: opt.session, task: opt.task });
    console.log(`--- turn ${++i} (${mem.transport})\nmemory block:\n${block.trimEnd() || '(none)'}`);
    const answer = fakeLlm(`${block}\nUser: ${turn}`);
    console.log(`user: ${turn}\nagent: ${answer}`);
    await mem.add(turn, { session: opt.session, task: opt.task, source: 'user' });
    await mem.add(answer, { session: opt.session, task: opt.task, source: 'agent', type: 'response' });
  }
} catch (e) {
  console.error(`agent_loop: ${e instanceof AgentmemError ? e.message : e}`);
  process.exit(1);
}
