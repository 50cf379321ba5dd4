// SPDX-License-Identifier: Apache-2.0
// ai-sdk.mjs -- agentmem's memory tools for the Vercel AI SDK (`ai`).
//
// agentmemTools({client, userId}) -> {remember, recall, update, forget}: four
// tool() definitions with zod input schemas, ready for
// generateText({model, tools: agentmemTools(...), stopWhen: stepCountIs(n)}).
// Each runs one request of the HTTP API through the Node client:
//   remember {text, metadata?} -> POST /v1/memories        -> {id, text, kind}
//   recall   {query, limit?}   -> POST /v1/recall          -> {memories: [{id, text, kind, score}], block}
//   update   {id, text}        -> PATCH /v1/memories/{id}  -> {id, text, kind}
//   forget   {id}              -> DELETE /v1/memories/{id} -> {id, deleted}
// `id` is the memory's stable id (lineage_id): it survives updates.  An error
// answer (a memory not found, a field refused) throws the client's
// AgentmemError; the SDK hands its message back to the model as the tool's
// error.  userId is the agentmem user the memories belong to (left out: the
// token's own user; another user needs an admin token).

import { tool } from 'ai';
import { z } from 'zod';

const metaValue = z.union([z.string().max(512), z.number(), z.boolean()]);

function brief(m) {
  return { id: m.lineage_id ?? m.id, text: m.text, kind: m.kind };
}

// client: connect(url, {token}) from clients/node/agentmem.mjs; userId: an
// agentmem user; metadata: added to every memory remember writes (its own
// metadata wins); filters: applied to every recall (POST /v1/recall "filters")
export function agentmemTools({ client, userId, metadata, filters } = {}) {
  if (!client || typeof client.recall !== 'function' || typeof client.addMemory !== 'function')
    throw new TypeError('agentmemTools: client: expected connect(url, {token}) from agentmem.mjs');
  if (userId !== undefined && (typeof userId !== 'string' || userId === ''))
    throw new TypeError('agentmemTools: userId: expected a non-empty string');
  const user = userId;
  return {
    remember: tool({
      description: 'Save one lasting fact, preference or instruction about the user to long-term ' +
        'memory (one short sentence, in the language the user spoke). Returns its id.',
      inputSchema: z.object({
        text: z.string().min(1).describe('the memory, e.g. "The user is allergic to peanuts" / "用户对花生过敏"'),
        metadata: z.record(z.string(), metaValue).optional()
          .describe('flat labels to file it under, e.g. {"topic": "food"}'),
      }),
      execute: async ({ text, metadata: own }) => {
        const meta = metadata || own ? { ...(metadata ?? {}), ...(own ?? {}) } : undefined;
        const { memory } = await client.addMemory(text, { metadata: meta, user });
        return brief(memory);
      },
    }),
    recall: tool({
      description: 'Search long-term memory for what is known about the user that bears on a ' +
        'question. Returns the matching memories (with their ids) and a ready memory block.',
      inputSchema: z.object({
        query: z.string().min(1).describe('what you need to know, in the user\'s words'),
        limit: z.number().int().min(1).max(50).optional().describe('at most this many memories (default 10)'),
      }),
      execute: async ({ query, limit = 10 }) => {
        const res = await client.recall(query, { user, filters });
        return {
          memories: (res.memories ?? []).slice(0, limit).map((m) => ({ ...brief(m), score: m.score })),
          block: res.block ?? '',
        };
      },
    }),
    update: tool({
      description: 'Correct a memory: its text becomes the new current version (the old one stays ' +
        'in its history). Use the id that remember or recall returned.',
      inputSchema: z.object({
        id: z.string().min(1).describe('the memory\'s id'),
        text: z.string().min(1).describe('the corrected memory'),
      }),
      execute: async ({ id, text }) => {
        const { memory } = await client.updateMemory(id, text, { user });
        return brief(memory);
      },
    }),
    forget: tool({
      description: 'Delete one memory for good (every version of it). Use when the user asks to ' +
        'forget something or it is wrong and has no correction.',
      inputSchema: z.object({ id: z.string().min(1).describe('the memory\'s id') }),
      execute: async ({ id }) => {
        const { deleted } = await client.deleteMemory(id, { user });
        return { id, deleted };
      },
    }),
  };
}
