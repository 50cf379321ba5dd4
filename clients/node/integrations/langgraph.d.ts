// SPDX-License-Identifier: Apache-2.0
// Types of langgraph.mjs: agentmem as a LangGraph.js long-term memory store.
import { BaseStore, Item, Operation, OperationResults } from '@langchain/langgraph-checkpoint';
import type { Client } from '../agentmem.mjs';

export interface AgentmemStoreOptions {
  /** a client from connect(url, {token}); or give url and token */
  client?: Client;
  /** the server, default http://127.0.0.1:8420 */
  url?: string;
  /** its bearer token (an amk_... token of the user, or an admin's) */
  token?: string;
  /** the agentmem user whose memories hold the items; left out: the token's own user */
  user?: string;
  /** the kind of the memories the store writes: fact (default), preference, constraint, profile, ... */
  kind?: string;
  timeoutMs?: number;
}

/** A BaseStore whose items are agentmem memories of one user: pass it to graph.compile({ store }). */
export declare class AgentmemStore extends BaseStore {
  constructor(options?: AgentmemStoreOptions);
  readonly client: Client;
  readonly user: string | undefined;
  batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>>;
}

/** value -> the memory's text, the value's form ("text" | "content" | "json") and the metadata fields it needs */
export declare function encodeValue(value: Record<string, unknown>):
  { text: string; form: 'text' | 'content' | 'json'; fields: Record<string, string | number | boolean> };
/** a memory (as the HTTP API answers it) -> the item's value */
export declare function decodeValue(memory: { text: string; metadata?: Record<string, unknown> }): Item['value'];
/** LangGraph's filter ({field: value} or {field: {$eq|$ne|$gt|$gte|$lt|$lte: value}}) on a value */
export declare function matchesFilter(value: Record<string, unknown>, filter?: Record<string, unknown>): boolean;
