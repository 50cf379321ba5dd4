// SPDX-License-Identifier: Apache-2.0
// langgraph.mjs -- agentmem as a LangGraph.js long-term memory store.
//
// AgentmemStore extends BaseStore (@langchain/langgraph-checkpoint): pass it
// to `graph.compile({ store })` and a node reads and writes it through
// `config.store` (get, put, search, delete, listNamespaces).  One store
// serves ONE agentmem user: the token's, or `user` when the token is an
// admin's.  An item (namespace, key, value) is one agentmem memory:
//
// - its text is value.text when that is a string, else value.content when
//   that is a string, else JSON.stringify(value); the other fields of a
//   text/content value ride along as metadata "v.<field>" when they are flat
//   (a string of at most 512 bytes, a number or a boolean, a name of
//   [A-Za-z0-9_.-]), otherwise the whole value is kept as JSON text;
// - its metadata says where it lives: "lg.ns" (the namespace as a JSON
//   array), "lg.key", "lg.p0".."lg.pN" (each prefix of the namespace, so a
//   prefix search is one metadata filter on the server), "lg.form" and
//   "lg.created" / "lg.updated" (the first and the last put's time: the
//   item's createdAt and updatedAt);
// - put is an upsert: a new item is POST /v1/memories (with a text only it
//   has, then its text as a new version: never merged into another item), an
//   existing one gets a new version (PATCH), the old text stays a past
//   version; delete removes every version (DELETE /v1/memories/{id});
// - search with a `query` is POST /v1/recall filtered to the prefix (the
//   engine's ranking; SearchItem.score is its score), without one it lists
//   GET /v1/memories?metadata.lg.pN=... page by page; `filter` (equality
//   and $eq $ne $gt $gte $lt $lte on value fields) is applied here, on the
//   decoded values.

import { BaseStore } from '@langchain/langgraph-checkpoint';
import { createHash } from 'node:crypto';
import { AgentmemError, connect } from '../agentmem.mjs';

const MAX_DEPTH = 16;          // lg.p0..lg.p16 + 5 keys of our own + 10 value fields: 32 metadata keys
const FIELD_NAME = /^[A-Za-z0-9_.-]{1,62}$/;
const PAGE = 200;

function enc(labels) { return JSON.stringify(labels); }

function flatMetaValue(v) {
  if (typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v);
  return typeof v === 'string' && Buffer.byteLength(v, 'utf8') <= 512 && v.length > 0;
}

// value -> {text, form, fields}: the memory's text and the metadata fields it needs
export function encodeValue(value) {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new AgentmemError('invalid_request', 'value: expected an object', 'value', 400);
  for (const form of ['text', 'content']) {
    const t = value[form];
    if (typeof t !== 'string' || t.trim() === '') continue;
    const fields = {};
    let flat = true, bytes = 0;
    for (const [k, v] of Object.entries(value)) {
      if (k === form) continue;
      if (!FIELD_NAME.test(k) || !flatMetaValue(v)) { flat = false; break; }
      fields[`v.${k}`] = v;
      bytes += k.length + 2 + (typeof v === 'string' ? Buffer.byteLength(v, 'utf8') : 24);
    }
    // the server takes at most 32 keys and 4 KiB of metadata in all
    if (flat && Object.keys(fields).length <= 10 && bytes <= 1536) return { text: t, form, fields };
    break;
  }
  const text = JSON.stringify(value);
  if (text === undefined) throw new AgentmemError('invalid_request', 'value: not JSON', 'value', 400);
  return { text, form: 'json', fields: {} };
}

// a memory (its current version) -> the item's value
export function decodeValue(memory) {
  const meta = memory.metadata ?? {};
  const form = meta['lg.form'];
  if (form === 'text' || form === 'content') {
    const value = { [form]: memory.text };
    for (const [k, v] of Object.entries(meta)) if (k.startsWith('v.')) value[k.slice(2)] = v;
    return value;
  }
  try { return JSON.parse(memory.text); } catch { return { text: memory.text }; }
}

function toItem(memory, withScore) {
  const meta = memory.metadata ?? {};
  const item = {
    namespace: JSON.parse(meta['lg.ns']),
    key: meta['lg.key'],
    value: decodeValue(memory),
    createdAt: new Date(meta['lg.created'] ?? memory.valid_from ?? memory.recorded_at),
    updatedAt: new Date(meta['lg.updated'] ?? memory.recorded_at ?? memory.valid_from),
  };
  if (withScore && typeof memory.score === 'number') item.score = memory.score;
  return item;
}

function isStoreMemory(m) {
  const meta = m?.metadata;
  if (!meta || typeof meta['lg.ns'] !== 'string' || typeof meta['lg.key'] !== 'string') return false;
  try { return Array.isArray(JSON.parse(meta['lg.ns'])); } catch { return false; }
}

function compare(a, op, b) {
  switch (op) {
    case '$eq': return JSON.stringify(a) === JSON.stringify(b);
    case '$ne': return JSON.stringify(a) !== JSON.stringify(b);
    case '$gt': return a > b;
    case '$gte': return a >= b;
    case '$lt': return a < b;
    case '$lte': return a <= b;
    default:
      throw new AgentmemError('invalid_request', `filter: unknown operator ${op}`, 'filter', 400);
  }
}

// LangGraph's filter: {field: value} or {field: {$op: value, ...}}, every one must hold
export function matchesFilter(value, filter) {
  if (!filter) return true;
  for (const [field, cond] of Object.entries(filter)) {
    const have = value?.[field];
    if (cond !== null && typeof cond === 'object' && !Array.isArray(cond) &&
        Object.keys(cond).length > 0 && Object.keys(cond).every((k) => k.startsWith('$'))) {
      for (const [op, want] of Object.entries(cond)) if (!compare(have, op, want)) return false;
    } else if (JSON.stringify(have) !== JSON.stringify(cond)) {
      return false;
    }
  }
  return true;
}

function matchesPath(ns, path, fromEnd) {
  if (path.length > ns.length) return false;
  const base = fromEnd ? ns.length - path.length : 0;
  return path.every((label, i) => label === '*' || label === ns[base + i]);
}

// namespaces in order, label by label (a namespace before the ones under it)
function byLabels(a, b) {
  for (let i = 0; i < Math.min(a.length, b.length); i++)
    if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return a.length - b.length;
}

export class AgentmemStore extends BaseStore {
  // new AgentmemStore({url, token, user?}) or new AgentmemStore({client, user?});
  // user: the agentmem user whose memories hold the items (an admin token's
  // choice; left out: the token's own user)
  // kind: the memories' kind (default fact; preference, constraint, profile, ...)
  constructor({ client, url, token, user, kind = 'fact', timeoutMs } = {}) {
    super();
    this.kind = kind;
    this.client = client ?? connect(url ?? 'http://127.0.0.1:8420', { token, timeoutMs });
    this.user = user ?? undefined;
    this.timeoutMs = timeoutMs ?? this.client.timeoutMs ?? 30000;
  }

  // one request of the HTTP API -> {body, headers}; an error answer throws AgentmemError
  async #http(method, path, { query = {}, body } = {}) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null) q.append(k, String(v));
    if (this.user) q.set('user', this.user);
    const url = `${this.client.url}${path}${q.size ? `?${q}` : ''}`;
    const headers = { Accept: 'application/json' };
    if (this.client.token) headers.Authorization = `Bearer ${this.client.token}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    for (let attempt = 0; ; attempt++) {
      let res, text;
      try {
        res = await fetch(url, {
          method, headers, body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(this.timeoutMs),
        });
        text = await res.text();
      } catch (e) {
        throw new AgentmemError('unavailable', `${method} ${url}: ${e.cause?.message ?? e.message}`);
      }
      let json = null;
      try { json = JSON.parse(text); } catch { /* reported below */ }
      if (res.ok && json !== null) return { body: json, headers: res.headers };
      if (res.status === 503 && attempt < 2) {
        await new Promise((r) => setTimeout(r, Math.min(Number(res.headers.get('retry-after')) || 1, 10) * 1000));
        continue;
      }
      const err = json?.error;
      throw new AgentmemError(err?.code ?? 'internal', err?.message ?? `${method} ${path}: HTTP ${res.status}`,
        err?.field ?? null, res.status);
    }
  }

  // one page of GET /v1/memories with metadata filters -> {memories, cursor}
  async #list(meta, limit, cursor) {
    const query = { limit, cursor };
    for (const [k, v] of Object.entries(meta)) query[`metadata.${k}`] = v;
    const { body, headers } = await this.#http('GET', '/v1/memories', { query });
    if (!Array.isArray(body)) throw new AgentmemError('internal', 'GET /v1/memories: not an array');
    return { memories: body, cursor: headers.get('x-next-cursor') };
  }

  async #find(namespace, key) {
    const { memories } = await this.#list({ 'lg.ns': enc(namespace), 'lg.key': key }, 5);
    return memories.find((m) => isStoreMemory(m) && m.metadata['lg.key'] === key &&
      m.metadata['lg.ns'] === enc(namespace)) ?? null;
  }

  // every store memory under a prefix, page by page, until `want` pass `keep`
  async #scan(prefix, keep, want = Infinity) {
    const out = [];
    let cursor = null;
    do {
      const page = await this.#list({ [`lg.p${prefix.length}`]: enc(prefix) }, PAGE, cursor);
      for (const m of page.memories) if (isStoreMemory(m) && keep(m)) out.push(m);
      cursor = page.cursor;
    } while (cursor && out.length < want);
    return out;
  }

  #patch(id, text, metadata) {
    return this.#http('PATCH', `/v1/memories/${encodeURIComponent(id)}`, { body: { text, metadata } });
  }

  async #get({ namespace, key }) {
    const m = await this.#find(namespace, key);
    return m ? toItem(m, false) : null;
  }

  async #put({ namespace, key, value }) {
    if (typeof key !== 'string' || key === '')
      throw new AgentmemError('invalid_request', 'key: expected a non-empty string', 'key', 400);
    if (namespace.length > MAX_DEPTH)
      throw new AgentmemError('invalid_request',
        `namespace: ${namespace.length} labels (at most ${MAX_DEPTH})`, 'namespace', 400);
    const existing = await this.#find(namespace, key);
    if (value === null) {
      if (existing) await this.#http('DELETE', `/v1/memories/${encodeURIComponent(existing.lineage_id)}`);
      return;
    }
    const { text, form, fields } = encodeValue(value);
    const now = new Date().toISOString();
    const metadata = {
      'lg.ns': enc(namespace), 'lg.key': key, 'lg.form': form,
      'lg.created': existing?.metadata?.['lg.created'] ?? now, 'lg.updated': now, ...fields,
    };
    for (let i = 0; i <= namespace.length; i++) metadata[`lg.p${i}`] = enc(namespace.slice(0, i));
    if (existing) {
      await this.#patch(existing.lineage_id, text, metadata);
      return;
    }
    // A new item is a new memory under a key of its own: an application's key makes
    // the engine treat only that key's item as the same memory, so two items of a
    // store are two memories whatever their texts, and a second put of the item is
    // a version of it.
    const memKey = `langgraph:${createHash('sha256').update(`${enc(namespace)}\n${key}`).digest('hex').slice(0, 32)}`;
    await this.#http('POST', '/v1/memories', { body: { text, kind: this.kind, key: memKey, metadata } });
  }

  async #search({ namespacePrefix, filter, limit = 10, offset = 0, query }) {
    const keep = (m) => matchesFilter(decodeValue(m), filter);
    if (typeof query === 'string' && query.trim() !== '') {
      const { body: res } = await this.#http('POST', '/v1/recall', {
        body: {
          query, budget: 8000,
          filters: { metadata: { [`lg.p${namespacePrefix.length}`]: enc(namespacePrefix) } },
        },
      });
      const hits = (res.memories ?? []).filter((m) => isStoreMemory(m) && keep(m));
      return hits.slice(offset, offset + limit).map((m) => toItem(m, true));
    }
    const all = await this.#scan(namespacePrefix, keep, offset + limit);
    return all.slice(offset, offset + limit).map((m) => toItem(m, false));
  }

  async #listNamespaces({ matchConditions = [], maxDepth, limit = 100, offset = 0 }) {
    const prefix = matchConditions.find((c) => c.matchType === 'prefix' && !c.path.includes('*'));
    const seen = new Map();
    for (const m of await this.#scan(prefix ? prefix.path : [], () => true)) {
      let ns = JSON.parse(m.metadata['lg.ns']);
      if (!matchConditions.every((c) => matchesPath(ns, c.path, c.matchType === 'suffix'))) continue;
      if (maxDepth !== undefined) ns = ns.slice(0, maxDepth);
      seen.set(enc(ns), ns);
    }
    return [...seen.values()]
      .sort(byLabels)
      .slice(offset, offset + limit);
  }

  // BaseStore: every other method comes here; the operations run in order
  async batch(operations) {
    const results = [];
    for (const op of operations) {
      if ('namespacePrefix' in op) results.push(await this.#search(op));
      else if ('value' in op) results.push(await this.#put(op));
      else if ('key' in op) results.push(await this.#get(op));
      else if ('limit' in op || 'matchConditions' in op) results.push(await this.#listNamespaces(op));
      else throw new AgentmemError('invalid_request', 'batch: unknown operation', 'operations', 400);
    }
    return results;
  }
}
