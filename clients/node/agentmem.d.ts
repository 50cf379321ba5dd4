// SPDX-License-Identifier: Apache-2.0
// Types of agentmem.mjs (the Client of every route) and memory.mjs (Memory:
// mem0's method names).  docs/SDK.md.
export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type Metadata = Record<string, string | number | boolean>;

export class AgentmemError extends Error {
  constructor(code: string, message: string, field?: string | null, status?: number | null);
  /** invalid_request, unauthorized, forbidden, not_found, denied, busy, unavailable, ... */
  code: string;
  /** the request field at fault ("messages[1].role", "metadata", "userId"), or null */
  field: string | null;
  /** the HTTP status, null when the server was not reached */
  status: number | null;
  detail: string;
}
export class InvalidArgument extends AgentmemError {}
export class Unauthorized extends AgentmemError {}
export class Forbidden extends AgentmemError {}
export class NotFound extends AgentmemError {}
export class MethodNotAllowed extends AgentmemError {}
export class Conflict extends AgentmemError {}
export class PayloadTooLarge extends AgentmemError {}
export class TooManyRequests extends AgentmemError {}
export class Unavailable extends AgentmemError {}
export class Busy extends Unavailable {}
export class InternalError extends AgentmemError {}

export interface ChatMessage { role: 'user' | 'assistant' | 'tool' | 'system'; content: string; name?: string }
export interface ClientOptions { token?: string; timeoutMs?: number; retries?: number }
export interface AddInfo {
  event_id: string; user: string; task: string; memories_created: number; memories_updated: number;
  memories_invalidated: number; task_changed: boolean; one_off: boolean; existing: boolean;
}
/** A memory version as the server returns it (fields may be appended). */
/** The profile card (docs/PROFILE.md): text is the block for a system prompt. */
export interface ProfileCard {
  lang: 'zh' | 'en'; budget_tokens: number; text: string; tokens: number;
  items: number; duplicates: number; left_out: number;
  sections: Array<{
    topic: string; title: string;
    items: Array<{ id: string; lineage_id: string; kind: string; key: string | null; text: string; confidence: number }>;
  }>;
}
export interface MemoryRecord {
  id: string; lineage_id: string; scope: string; kind: string; key: string; text: string;
  status: string; version_state: string; valid_from: string | null; valid_to: string | null; expires_at?: string | null;
  recorded_at: string; superseded_at: string | null; source_event_ids: string[];
  metadata: Metadata; [field: string]: Json | undefined;
}

export class Client {
  constructor(url?: string, opts?: ClientOptions);
  url: string; token: string | null; transport: 'http';
  add(text: string, opts?: Record<string, Json | undefined>): Promise<AddInfo>;
  add(messages: ChatMessage[], opts?: Record<string, Json | undefined>): Promise<{ results: AddInfo[] }>;
  addMany(events: Array<Record<string, Json>>): Promise<{ results: AddInfo[] }>;
  feedback(memoryId: string, action: 'confirm' | 'reject' | 'correct', text?: string, opts?: { user?: string }): Promise<{ ok: true; memory: MemoryRecord | null }>;
  addMemory(text: string, opts?: { kind?: string; key?: string; scope?: string; metadata?: Metadata; expires_at?: string | Date; user?: string }): Promise<{ memory: MemoryRecord }>;
  updateMemory(memoryId: string, text: string, opts?: { user?: string }): Promise<{ memory: MemoryRecord }>;
  deleteMemory(memoryId: string, opts?: { user?: string }): Promise<{ deleted: number }>;
  forget(level: 'event' | 'session' | 'task' | 'user', id?: string, opts?: { grace?: number; user?: string }): Promise<{ events: number; memories: number; tasks: number }>;
  restore(opts?: { user?: string }): Promise<{ restored: true }>;
  recall(query: string, opts?: Record<string, Json | undefined>): Promise<{ block: string; block_system: string; block_context: string; memories: MemoryRecord[]; events: Json[]; [k: string]: Json | undefined }>;
  task(taskId: string, opts?: { user?: string }): Promise<Record<string, Json>>;
  profile(opts?: { budget?: number; user?: string }): Promise<ProfileCard>;
  memories(opts?: { all?: boolean; as_of?: string; user?: string }): Promise<MemoryRecord[]>;
  getMemory(memoryId: string, opts?: { user?: string }): Promise<{ memory: MemoryRecord | null; versions: MemoryRecord[] }>;
  versions(memoryId: string, opts?: { user?: string }): Promise<{ memory_id: string; key: string; versions: MemoryRecord[]; next_cursor: string | null }>;
  export(opts?: { user?: string }): Promise<Record<string, Json>>;
  listEvents(opts?: {
    limit?: number; cursor?: string; q?: string; session?: string; from?: string; to?: string;
    ids?: string[]; user?: string;
  }): Promise<{ user: string; events: Record<string, Json>[]; next_cursor: string | null }>;
  importExport(document: Json, opts?: { user?: string; merge?: boolean; from?: 'mem0' }):
    Promise<Record<string, Json>>;
  health(): Promise<Record<string, Json>>;
}
export function connect(url?: string, opts?: ClientOptions): Client;

/** kind, scope: one or any of; metadata: {key: value or any of values}; from/to: ISO 8601. Other keys are metadata keys. */
export interface Filters {
  kind?: string | string[]; scope?: string | string[];
  metadata?: Record<string, string | number | boolean | Array<string | number | boolean>>;
  from?: string; to?: string; [metadataKey: string]: Json | undefined;
}
export interface MemoryItem {
  /** the stable id: every later version of the memory keeps it */
  id: string; memory: string; metadata: Metadata; userId: string | null;
  createdAt: string | null; updatedAt: string | null; kind: string; key: string; scope: string;
  /** the id of this version */
  versionId: string; score?: number;
}
export interface AddResult extends MemoryItem { event: 'ADD' | 'UPDATE' | 'DELETE' | 'NONE'; previousMemory?: string }
export interface HistoryRow {
  id: string; memoryId: string; oldMemory: string | null; newMemory: string | null;
  event: 'ADD' | 'UPDATE' | 'DELETE'; createdAt: string | null; metadata: Metadata; isDeleted: boolean;
}
export interface MemoryOptions extends ClientOptions { url?: string; userId?: string }
export interface UserOption { userId?: string }

export class Memory {
  constructor(opts?: MemoryOptions);
  client: Client;
  userId: string | null;
  add(messages: string | ChatMessage[], opts?: UserOption & { agentId?: string; sessionId?: string; metadata?: Metadata }): Promise<{ results: AddResult[]; events: AddInfo[] }>;
  search(query: string, opts?: UserOption & { filters?: Filters; limit?: number; agentId?: string; sessionId?: string }): Promise<{ results: MemoryItem[]; block: string; blockSystem: string; blockContext: string; events: Json[] }>;
  get(memoryId: string, opts?: UserOption): Promise<MemoryItem>;
  getAll(opts?: UserOption & { filters?: Filters; limit?: number }): Promise<{ results: MemoryItem[] }>;
  update(memoryId: string, text?: string, opts?: UserOption & { metadata?: Metadata }): Promise<{ message: string; memory: MemoryItem }>;
  delete(memoryId: string, opts?: UserOption): Promise<{ message: string; deleted: number }>;
  /** Forgets EVERYTHING of the user: memories, events, tasks -- for good. */
  deleteAll(opts?: UserOption): Promise<{ message: string; events: number; memories: number; tasks: number }>;
  history(memoryId: string, opts?: UserOption): Promise<HistoryRow[]>;
  /** The user's profile card: current lasting items by topic, within budget tokens (default 400). */
  profile(opts?: UserOption & { budget?: number }): Promise<ProfileCard>;
}
