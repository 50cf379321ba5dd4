// SPDX-License-Identifier: Apache-2.0
// The Vercel AI SDK with agentmem's memory tools (remember, recall, update, forget).
//
//   agentmem serve &                       # http://127.0.0.1:8420
//   agentmem token create --user 林晓       # prints amk_...
//   node examples/ai-sdk.mjs --url http://127.0.0.1:8420 --token amk_...
//
// Runs offline: the model is the SDK's MockLanguageModelV3 (ai/test) playing a
// fixed script of tool calls.  For a real model: npm install @ai-sdk/openai, then
//   import { openai } from '@ai-sdk/openai';
//   const model = openai('gpt-4o-mini');                      // reads OPENAI_API_KEY
// (any provider of the AI SDK works the same way) and drop the script.
import { parseArgs } from 'node:util';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { connect } from '../../agentmem.mjs';
import { agentmemTools } from '../ai-sdk.mjs';

const { values: args } = parseArgs({ options: {
  url: { type: 'string', default: 'http://127.0.0.1:8420' },
  token: { type: 'string', default: process.env.AGENTMEM_TOKEN },
} });
const client = connect(args.url, { token: args.token });
const tools = agentmemTools({ client, metadata: { app: 'ai-sdk-example' } });

// the fake model: call a tool per step, answer with what recall brought back
const usage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 0, text: 0, reasoning: undefined },
};
function fakeModel(calls) {
  let step = 0;
  return new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      if (step < calls.length) {
        const [toolName, input] = calls[step++];
        return { content: [{ type: 'tool-call', toolCallId: `c${step}`, toolName, input: JSON.stringify(input) }],
          finishReason: { unified: 'tool-calls', raw: undefined }, usage, warnings: [] };
      }
      const recalled = prompt.filter((m) => m.role === 'tool').flatMap((m) => m.content)
        .filter((p) => p.toolName === 'recall').flatMap((p) => p.output.value.memories.map((x) => x.text));
      return { content: [{ type: 'text', text: `我记得 / I remember: ${recalled.join('; ')}` }],
        finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] };
    },
  });
}

const first = await generateText({
  model: fakeModel([['remember', { text: '用户对花生过敏' }], ['remember', { text: 'The user prefers window seats on flights' }]]),
  tools, stopWhen: stepCountIs(5),
  system: 'Save lasting facts about the user with the remember tool.',
  prompt: '我对花生过敏。Also, I always want a window seat.',
});
console.log('saved:', first.steps.flatMap((s) => s.toolResults).map((r) => r.output));

const second = await generateText({
  model: fakeModel([['recall', { query: '订机票和点餐有什么要注意的' }]]),
  tools, stopWhen: stepCountIs(5),
  system: 'Look up what you know about the user with the recall tool before answering.',
  prompt: '帮我订下周去上海的机票，顺便推荐一家餐厅',
});
console.log('answer:', second.text);
if (!second.text.includes('花生')) { console.error('the allergy was not recalled'); process.exit(1); }
