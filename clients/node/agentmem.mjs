// SPDX-License-Identifier: Apache-2.0
// agentmem.mjs -- the Node client of `agentmem serve` (docs/openapi.json).
//
// The API of the Python client (clients/python), async: each method sends
// the request of one route with the wire names of the openapi document
// (undefined/null options left out) and resolves to the route's JSON --
// the CLI's --json shapes.  An error answer rejects with an AgentmemError
// carrying the {"error": {code, message, field}} body and the HTTP status;
// a 503 busy is retried after its Retry-After (the engine wrote nothing);
// an unreachable server is code "unavailable".  Global fetch, no
// dependencies.

const BY_STATUS = {
  400: 'invalid_request', 401: 'unauthorized', 403: 'forbidden', 404: 'not_found',
  405: 'method_not_allowed', 409: 'denied', 413: 'payload_too_large', 429: 'too_many_requests',
  503: 'busy',
};

// new AgentmemError(code, ...) makes the class of its code (NotFound for
// 'not_found', InvalidArgument for 'invalid_request', ...): `instanceof
// NotFound` and `instanceof AgentmemError` both hold.
export class AgentmemError extends Error {
  constructor(code, message, field = null, status = null) {
    super(`${code}: ${message}${field ? ` (field ${field})` : ''}`);
    const Sub = new.target === AgentmemError ? BY_CODE[code] : undefined;
    if (Sub) return new Sub(code, message, field, status);
    this.name = new.target.name;
    this.code = code;
    this.field = field ?? null;
    this.status = status;
    this.detail = message;
  }
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
const BY_CODE = {
  invalid_request: InvalidArgument, unauthorized: Unauthorized, forbidden: Forbidden,
  not_found: NotFound, method_not_allowed: MethodNotAllowed, denied: Conflict,
  payload_too_large: PayloadTooLarge, too_many_requests: TooManyRequests,
  unavailable: Unavailable, busy: Busy, internal: InternalError,
};

function pick(fields) {
  const out = {};
  for (const [k, v] of Object.entries(fields)) if (v !== undefined && v !== null) out[k] = v;
  return out;
}

// Every string of a request must be well-formed UTF-16 (no lone surrogate)
// without NUL: refused here by field -- the server's JSON parser would
// refuse the body as "not JSON", naming no field.
const LONE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
function checkText(v, field) {
  if (typeof v === 'string') {
    if (v.includes('\0')) throw new AgentmemError('invalid_request', `${field}: contains a NUL character`, field, 400);
    if (LONE.test(v)) throw new AgentmemError('invalid_request', `${field}: not valid UTF-8 (a lone surrogate)`, field, 400);
  } else if (Array.isArray(v)) {
    v.forEach((x, i) => checkText(x, `${field}[${i}]`));
  } else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      checkText(k, field || 'body');
      checkText(x, field ? `${field}.${k}` : k);
    }
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export class Client {
  // url: the server ("http://127.0.0.1:8420"); token: its bearer token
  // (default $AGENTMEM_TOKEN); timeoutMs per request; retries of a 503.
  constructor(url = 'http://127.0.0.1:8420', { token, timeoutMs = 30000, retries = 2 } = {}) {
    if (typeof url !== 'string' || !/^https?:\/\//.test(url))
      throw new AgentmemError('invalid_request', 'url: expected http://HOST:PORT', 'url');
    this.url = url.replace(/\/+$/, '');
    this.token = token ?? process.env.AGENTMEM_TOKEN ?? null;
    this.timeoutMs = timeoutMs;
    this.retries = retries;
    this.transport = 'http';
  }

  // one route: its parsed JSON; meta (an object, or undefined) gets
  // nextCursor, the X-Next-Cursor header of a list page
  _request(method, path, params, body, query, meta) { return this.#call(method, path, params, body, query, meta); }

  async #call(method, path, params = [], body = undefined, query = {}, meta = undefined) {
    params.forEach((p) => checkText(p, 'id'));
    checkText(body ?? {}, '');
    checkText(pick(query), '');
    let i = 0;
    let url = this.url + path.replace(/\{[a-z_]+\}/g, () => {
      const p = params[i++];
      if (typeof p !== 'string' || p === '')
        throw new AgentmemError('invalid_request', 'expected a non-empty string id', 'id');
      return encodeURIComponent(p);
    });
    const q = new URLSearchParams(pick(query)).toString();
    if (q) url += `?${q}`;
    const headers = { Accept: 'application/json' };
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
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
      if (res.ok) {
        if (meta) meta.nextCursor = res.headers.get('x-next-cursor') || null;
        try { return JSON.parse(text); } catch (e) {
          throw new AgentmemError('internal', `${method} ${path}: the answer is not JSON`, null, res.status);
        }
      }
      if (res.status === 503 && attempt < this.retries) {
        const wait = Number(res.headers.get('retry-after')) || 1;
        await sleep(Math.min(Math.max(wait, 0.05), 10) * 1000);
        continue;
      }
      let err;
      try { err = JSON.parse(text).error; } catch { err = null; }
      if (err && typeof err.code === 'string')
        throw new AgentmemError(err.code, String(err.message ?? ''), err.field ?? null, res.status);
      throw new AgentmemError(BY_STATUS[res.status] ?? 'internal',
        `HTTP ${res.status}: ${text.slice(0, 200)}`, null, res.status);
    }
  }

  // --- write
  // add(text, {session, task, agent, source, type, domain, intent, at, id, user});
  // text may be a chat transcript, [{role: 'user'|'assistant'|'tool'|'system', content, name?}]:
  // each message an event of its role's source, in order, in one transaction
  // ({session, task, at, user} apply to all) -> {results: [...]}
  add(text, opts = {}) {
    if (Array.isArray(text)) return this.#call('POST', '/v1/events', [], pick({ messages: text, ...opts }));
    return this.#call('POST', '/v1/events', [], pick({ text, ...opts }));
  }
  // addMany([{text, ...}, ...]) -> {results: [...]}: one transaction, all or nothing
  addMany(events) { return this.#call('POST', '/v1/events', [], { events: [...events] }); }
  // feedback(id, confirm | reject | correct, text) -> {ok, memory}: memory is the new
  // current version (null after reject); id is the lineage id or any version's id
  feedback(memoryId, action, text = undefined, { user } = {}) {
    return this.#call('POST', '/v1/memories/{id}/feedback', [memoryId], pick({ action, text, user }));
  }
  // addMemory(text, {kind, key, scope, metadata, expires_at, user}) -> {memory}: a memory the
  // application states; a new value of the same key supersedes, the same text reinforces;
  // expires_at (ISO 8601 with a zone, or a Date): when it stops being current
  addMemory(text, opts = {}) { return this.#call('POST', '/v1/memories', [], pick({ text, ...opts })); }
  // updateMemory(id, text) -> {memory}: the text becomes its new current version
  updateMemory(memoryId, text, { user } = {}) {
    return this.#call('PATCH', '/v1/memories/{id}', [memoryId], pick({ text, user }));
  }
  // deleteMemory(id) -> {deleted}: every version, from every table, index and cache
  deleteMemory(memoryId, { user } = {}) {
    return this.#call('DELETE', '/v1/memories/{id}', [memoryId], undefined, { user });
  }
  // forget(level, id, {grace, user}): event | session | task | user
  forget(level, id = undefined, { grace, user } = {}) {
    return this.#call('POST', '/v1/forget', [], pick({ level, id, grace, user }));
  }
  restore({ user } = {}) { return this.#call('POST', '/v1/restore', [], pick({ user })); }

  // --- read
  // recall(query, {session, task, agent, domain, as_of, budget, k, user}) -> {block, ...}:
  // block is the whole memory block; block_system (profile, preferences, constraints) goes
  // in the system prompt and block_context (facts, task state, events) before the history
  // when the two are placed apart
  recall(query, opts = {}) { return this.#call('POST', '/v1/recall', [], pick({ query, ...opts })); }
  task(taskId, { user } = {}) { return this.#call('GET', '/v1/tasks/{task_id}', [taskId], undefined, { user }); }
  // profile({budget, user}) -> {lang, text, sections, tokens, items, duplicates, left_out,
  // budget_tokens}: the user's profile card (docs/PROFILE.md); text goes in the system prompt
  async profile({ budget, user } = {}) {
    if (budget !== undefined && !Number.isInteger(budget))
      throw new AgentmemError('invalid_request', 'budget: expected an integer (tokens)', 'budget', 400);
    return this.#call('GET', '/v1/profile', [], undefined,
      { budget: budget === undefined ? undefined : String(budget), user });
  }
  memories({ all = false, as_of, user } = {}) {
    return this.#call('GET', '/v1/memories', [], undefined, { all: all ? '1' : undefined, as_of, user });
  }
  // getMemory(id) -> {memory, versions}: its current version (or null) and every version
  getMemory(memoryId, { user } = {}) {
    return this.#call('GET', '/v1/memories/{id}', [memoryId], undefined, { user });
  }
  versions(memoryId, { user } = {}) {
    return this.#call('GET', '/v1/memories/{id}/versions', [memoryId], undefined, { user });
  }
  export({ user } = {}) { return this.#call('GET', '/v1/export', [], undefined, { user }); }
  // listEvents({limit, cursor, q, session, from, to, ids, user}) -> {user, events, next_cursor}:
  // a page of the user's events, newest first; q searches their text, ids names some
  listEvents({ limit, cursor, q, session, from, to, ids, user } = {}) {
    return this.#call('GET', '/v1/events', [], undefined, {
      limit: limit === undefined ? undefined : String(limit), cursor, q, session, from, to,
      ids: ids && ids.length ? ids.join(',') : undefined, user,
    });
  }
  // importExport(document, {user, merge, from}) -> {user, events, memories, tasks, ..._skipped}:
  // an export (or mem0's get_all answer with from: 'mem0') loaded into the store; an admin token
  importExport(document, { user, merge, from } = {}) {
    return this.#call('POST', '/v1/import', [], pick({ document, user, merge: merge ? true : undefined, from }));
  }
  health() { return this.#call('GET', '/healthz'); }
}

// connect(url, {token, timeoutMs, retries}) -> Client
export function connect(url, opts = {}) { return new Client(url, opts); }

export { Memory } from './memory.mjs';
