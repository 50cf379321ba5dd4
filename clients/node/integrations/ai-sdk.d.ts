// SPDX-License-Identifier: Apache-2.0
// Types of ai-sdk.mjs: agentmem's memory tools for the Vercel AI SDK.
import type { Tool } from 'ai';
import type { Client } from '../agentmem.mjs';

export type MetadataValue = string | number | boolean;

export interface AgentmemToolsOptions {
  /** a client from connect(url, {token}) (clients/node/agentmem.mjs) */
  client: Client;
  /** the agentmem user the memories belong to; left out: the token's own user (another needs an admin token) */
  userId?: string;
  /** added to every memory remember writes (the model's own metadata wins) */
  metadata?: Record<string, MetadataValue>;
  /** applied to every recall: POST /v1/recall "filters" ({kind, scope, metadata, from, to}) */
  filters?: Record<string, unknown>;
}

/** A memory as the tools answer it: id is the stable id (lineage_id), the same across updates. */
export interface MemoryBrief { id: string; text: string; kind: string }

export interface AgentmemTools {
  remember: Tool<{ text: string; metadata?: Record<string, MetadataValue> }, MemoryBrief>;
  recall: Tool<{ query: string; limit?: number }, { memories: Array<MemoryBrief & { score: number }>; block: string }>;
  update: Tool<{ id: string; text: string }, MemoryBrief>;
  forget: Tool<{ id: string }, { id: string; deleted: number }>;
}

/** The four tools, for generateText / streamText({ tools: agentmemTools({ client }) }). */
export declare function agentmemTools(options: AgentmemToolsOptions): AgentmemTools;
