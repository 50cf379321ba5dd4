// SPDX-License-Identifier: Apache-2.0
// memory.mjs -- Memory: mem0's method names over `agentmem serve`
// (the mem0 Node SDK's shapes: add(messages, {userId, agentId, sessionId,
// metadata}), search(query, {userId, filters, limit}), get(id),
// getAll({userId, filters, limit}), update(id, text), delete(id),
// deleteAll({userId}), history(id)).  One object for many users: each call
// names its user (userId) -- any user with an admin token, the token's own
// with a user token (naming another is Forbidden).  A memory is {id: its
// stable id (every later version keeps it), memory: its text, metadata,
// userId, createdAt, updatedAt, kind, key, scope, versionId, score?}.
// docs/SDK.md.

import { Client, AgentmemError } from './agentmem.mjs';

const FILTER_KEYS = new Set(['kind', 'scope', 'metadata', 'from', 'to']);
const PAGE = 1000;
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

function invalid(field, message) { return new AgentmemError('invalid_request', message, field, 400); }

// the second a ULID carries (an event's: when it occurred)
function ulidSecond(ulid) {
  let n = 0;
  for (const ch of ulid.slice(0, 10).toUpperCase()) {
    const d = CROCKFORD.indexOf(ch);
    if (d < 0) return null;
    n = n * 32 + d;
  }
  return new Date(n).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

// a metadata value as the engine compares it: as text
const asText = (v) => (typeof v === 'string' ? v : JSON.stringify(v));

// mem0-style filters as agentmem's {kind, scope, metadata, from, to}:
// any other key is a metadata key
function toFilters(filters) {
  if (filters === undefined || filters === null) return {};
  if (typeof filters !== 'object' || Array.isArray(filters)) throw invalid('filters', 'filters: expected an object');
  const out = {}, meta = {};
  for (const [k, v] of Object.entries(filters)) {
    if (k === 'metadata') {
      if (!v || typeof v !== 'object' || Array.isArray(v)) throw invalid('filters', 'filters.metadata: expected an object');
      Object.assign(meta, v);
    } else if (FILTER_KEYS.has(k)) out[k] = v;
    else meta[k] = v;
  }
  if (Object.keys(meta).length) out.metadata = meta;
  return out;
}

function checkLimit(limit) {
  if (limit !== undefined && limit !== null && (!Number.isInteger(limit) || limit < 1))
    throw invalid('limit', 'limit: expected a positive integer');
}

export class Memory {
  // new Memory({url, token, userId, timeoutMs, retries}): url of `agentmem
  // serve` (default $AGENTMEM_URL, else http://127.0.0.1:8420); token
  // (default $AGENTMEM_TOKEN); userId: the user of calls that name none.
  constructor({ url, token, userId, timeoutMs, retries } = {}) {
    if (userId !== undefined && (typeof userId !== 'string' || !userId))
      throw invalid('userId', 'userId: expected a non-empty string');
    this.client = new Client(url ?? process.env.AGENTMEM_URL ?? 'http://127.0.0.1:8420', { token, timeoutMs, retries });
    this.userId = userId ?? null;
  }

  #user(userId) {
    const u = userId ?? this.userId;
    if (u !== null && (typeof u !== 'string' || !u)) throw invalid('userId', 'userId: expected a non-empty string');
    return u ?? undefined;
  }

  async #call(method, path, params = [], body = undefined, query = {}, meta = undefined) {
    try {
      return await this.client._request(method, path, params, body, query, meta);
    } catch (e) {
      if (e instanceof AgentmemError && e.field === 'user') e.field = 'userId';
      throw e;
    }
  }

  static #id(memoryId) {
    if (typeof memoryId !== 'string' || !memoryId) throw invalid('memoryId', 'memoryId: expected a non-empty string');
    return memoryId;
  }

  #fmt(m, user, score = false) {
    const out = {
      id: m.lineage_id ?? m.id, memory: m.text, metadata: m.metadata ?? {}, userId: user ?? null,
      createdAt: m.recorded_at ?? null, updatedAt: m.reinforced_at ?? m.recorded_at ?? null,
      kind: m.kind, key: m.key, scope: m.scope, versionId: m.id,
    };
    if (score) out.score = m.score;
    return out;
  }

  async #pages(user, query, limit) {
    const rows = [];
    let cursor;
    for (;;) {
      const want = limit == null ? PAGE : Math.max(1, Math.min(PAGE, limit - rows.length));
      const meta = {};
      const page = await this.#call('GET', '/v1/memories', [], undefined,
        { ...query, user, limit: String(want), cursor }, meta);
      rows.push(...page);
      cursor = meta.nextCursor ?? undefined;
      if (!cursor || !page.length || (limit != null && rows.length >= limit))
        return limit == null ? rows : rows.slice(0, limit);
    }
  }

  // add(messages | text, {userId, agentId, sessionId, metadata}) ->
  // {results: [{...memory, event: 'ADD'|'UPDATE'|'DELETE'|'NONE', previousMemory?}], events}
  async add(messages, { userId, agentId, sessionId, metadata } = {}) {
    const user = this.#user(userId);
    let events;
    if (typeof messages === 'string') {
      events = [await this.#call('POST', '/v1/events', [], prune({ text: messages, user, agent: agentId, session: sessionId, metadata }))];
    } else if (Array.isArray(messages)) {
      const msgs = messages.map((m) => (agentId && m && typeof m === 'object' && m.name === undefined &&
        (m.role === 'assistant' || m.role === 'tool') ? { ...m, name: agentId } : m));
      events = (await this.#call('POST', '/v1/events', [], prune({ messages: msgs, user, session: sessionId, metadata }))).results;
    } else {
      throw invalid('messages', 'messages: expected a string or an array of {role, content} messages');
    }
    return { results: await this.#changes(user, events), events };
  }

  // the memories the events created, updated, reinforced or closed
  async #changes(user, events) {
    if (!events.some((e) => e.memories_created || e.memories_updated || e.memories_invalidated)) return [];
    const ids = new Set(events.map((e) => e.event_id));
    const owner = user ?? events[0]?.user;
    const closedAt = events.some((e) => e.memories_invalidated) ? new Set([...ids].map(ulidSecond)) : new Set();
    const lineages = new Map();
    for (const v of await this.#pages(user, { all: '1' })) {
      const k = v.lineage_id ?? v.id;
      if (!lineages.has(k)) lineages.set(k, []);
      lineages.get(k).push(v);
    }
    const hit = (v) => (v.source_event_ids ?? []).some((i) => ids.has(i));
    const out = [];
    for (const vs of lineages.values()) {
      vs.sort((a, b) => ((a.recorded_at ?? '') + a.id).localeCompare((b.recorded_at ?? '') + b.id));
      const cur = vs.find((v) => v.version_state === 'current');
      if (cur && hit(cur)) {
        const item = this.#fmt(cur, owner);
        const first = (cur.source_event_ids ?? [])[0];
        const before = vs.filter((v) => v !== cur && v.text !== cur.text);
        if (ids.has(first) && !before.length) item.event = vs.length === 1 || vs.every(hit) ? 'ADD' : 'UPDATE';
        else if (ids.has(first)) { item.event = 'UPDATE'; item.previousMemory = before[before.length - 1].text; }
        else item.event = 'NONE';
        out.push(item);
      } else if (!cur && closedAt.has(vs[vs.length - 1].valid_to)) {
        out.push({ ...this.#fmt(vs[vs.length - 1], owner), event: 'DELETE' });
      }
    }
    return out;
  }

  // search(query, {userId, filters, limit, agentId, sessionId}) ->
  // {results: [memories with score], block, blockSystem, blockContext, events}
  async search(query, { userId, filters, limit, agentId, sessionId } = {}) {
    const user = this.#user(userId);
    checkLimit(limit);
    const f = toFilters(filters);
    const r = await this.#call('POST', '/v1/recall', [], prune({
      query, user, agent: agentId, session: sessionId, filters: Object.keys(f).length ? f : undefined }));
    let results = (r.memories ?? []).map((m) => this.#fmt(m, user, true));
    if (limit != null) results = results.slice(0, limit);
    return { results, block: r.block ?? '', blockSystem: r.block_system ?? '', blockContext: r.block_context ?? '', events: r.events ?? [] };
  }

  // get(memoryId, {userId}) -> the memory (NotFound when none: mem0 answers null)
  async get(memoryId, { userId } = {}) {
    const user = this.#user(userId);
    const r = await this.#call('GET', '/v1/memories/{id}', [Memory.#id(memoryId)], undefined, { user });
    if (!r.memory) throw new AgentmemError('not_found', `memoryId: no current memory ${memoryId}`, 'memoryId', 404);
    const item = this.#fmt(r.memory, user);
    if (r.versions?.length) item.createdAt = r.versions[0].recorded_at;
    return item;
  }

  // profile({userId, budget}) -> the user's profile card {text, lang, sections, tokens, items,
  // duplicates, left_out, budget_tokens}: current lasting items by topic, for a system prompt
  async profile({ userId, budget } = {}) {
    const user = this.#user(userId);
    if (budget !== undefined && !Number.isInteger(budget)) throw invalid('budget', 'budget: expected an integer (tokens)');
    return this.#call('GET', '/v1/profile', [], undefined, { user, budget: budget === undefined ? undefined : String(budget) });
  }

  // getAll({userId, filters, limit}) -> {results}: every page; a list value keeps any of them
  async getAll({ userId, filters, limit } = {}) {
    const user = this.#user(userId);
    checkLimit(limit);
    const f = toFilters(filters);
    const query = {}, anyOf = {};
    for (const k of ['kind', 'scope', 'from', 'to']) {
      if (!(k in f)) continue;
      if (Array.isArray(f[k])) anyOf[k] = f[k].map(asText); else query[k] = f[k];
    }
    for (const [k, v] of Object.entries(f.metadata ?? {})) {
      if (Array.isArray(v)) anyOf[`metadata.${k}`] = v.map(asText); else query[`metadata.${k}`] = asText(v);
    }
    const keys = Object.keys(anyOf);
    let rows = await this.#pages(user, query, keys.length ? undefined : limit);
    if (keys.length) {
      rows = rows.filter((m) => keys.every((k) => {
        const got = k.startsWith('metadata.') ? (m.metadata ?? {})[k.slice(9)] : m[k];
        return got !== undefined && got !== null && anyOf[k].includes(asText(got));
      }));
      if (limit != null) rows = rows.slice(0, limit);
    }
    return { results: rows.map((m) => this.#fmt(m, user)) };
  }

  // update(memoryId, text, {metadata, userId}) -> {message, memory}: a new version
  async update(memoryId, text, { metadata, userId } = {}) {
    const user = this.#user(userId);
    const r = await this.#call('PATCH', '/v1/memories/{id}', [Memory.#id(memoryId)], prune({ text, metadata, user }));
    return { message: 'Memory updated successfully!', memory: this.#fmt(r.memory, user) };
  }

  // delete(memoryId, {userId}) -> {message, deleted}: every version, for good
  async delete(memoryId, { userId } = {}) {
    const user = this.#user(userId);
    const r = await this.#call('DELETE', '/v1/memories/{id}', [Memory.#id(memoryId)], undefined, { user });
    return { message: 'Memory deleted successfully!', deleted: r.deleted };
  }

  // deleteAll({userId}): FORGETS EVERYTHING OF THE USER -- every memory and
  // also every event (the conversation itself), task and working note, at
  // once and for good (POST /v1/forget level user; mem0's deleteAll removes
  // memories only) -> {message, events, memories, tasks}
  async deleteAll({ userId } = {}) {
    const user = this.#user(userId);
    const r = await this.#call('POST', '/v1/forget', [], prune({ level: 'user', user }));
    return { message: 'Memories deleted successfully!', ...r };
  }

  // history(memoryId, {userId}) -> [{id, memoryId, oldMemory, newMemory,
  // event: 'ADD'|'UPDATE'|'DELETE', createdAt, metadata, isDeleted}], oldest first
  async history(memoryId, { userId } = {}) {
    const user = this.#user(userId);
    const r = await this.#call('GET', '/v1/memories/{id}', [Memory.#id(memoryId)], undefined, { user });
    const rows = [];
    let prev = null;
    const same = (a, b) => a.text === b.text && JSON.stringify(a.metadata ?? {}) === JSON.stringify(b.metadata ?? {});
    for (const v of r.versions ?? []) {
      if (prev && same(v, prev)) { prev = v; continue; }
      rows.push({ id: v.id, memoryId: v.lineage_id, oldMemory: prev ? prev.text : null, newMemory: v.text,
        event: prev ? 'UPDATE' : 'ADD', createdAt: v.recorded_at, metadata: v.metadata ?? {}, isDeleted: false });
      prev = v;
    }
    if (!r.memory && prev)
      rows.push({ id: prev.id, memoryId: prev.lineage_id, oldMemory: prev.text, newMemory: null, event: 'DELETE',
        createdAt: prev.valid_to ?? prev.superseded_at, metadata: prev.metadata ?? {}, isDeleted: true });
    return rows;
  }
}

function prune(o) {
  const out = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined && v !== null) out[k] = v;
  return out;
}
