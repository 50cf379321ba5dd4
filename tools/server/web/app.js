/*
 * app.js -- the memory inspector (docs/INSPECTOR.md).  No framework, no
 * build step: the DOM API and fetch.
 *
 * Data: GET v1/memories (?all=1 with "include past versions") for the
 * list, GET v1/export for the events the memories come from (their text,
 * time, session) and the user's name, GET v1/memories/{id}/versions on
 * demand; POST v1/memories/{id}/feedback and v1/forget for the actions.
 * Every call carries the token from sessionStorage as a bearer header;
 * the token is never put in a URL, a cookie or localStorage.
 *
 * Every text the server returns is the user's (or an attacker's) words:
 * it reaches the page only as a text node (el() below, textContent,
 * input.value), never as markup; the page has no innerHTML at all, and
 * the server's Content-Security-Policy forbids inline script besides.
 */
'use strict';

(function () {
  const TOKEN_KEY = 'agentmem.inspector.token';
  const $ = (id) => document.getElementById(id);

  const state = {
    user: '',
    memories: [],
    events: new Map(),         // event id -> event of the export
    sessions: [],              // [{id, count, last}] newest first
    openSources: new Set(),    // lineage ids whose sources are shown
    openVersions: new Set(),   // lineage ids whose versions are shown
  };

  /* el('p', {class: 'x'}, 'text', node, …): strings become text nodes */
  function el(tag, props, ...kids) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(props || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === 'class') node.className = v;
      else if (k === 'text') node.textContent = v;
      else if (k === 'on') for (const [ev, fn] of Object.entries(v)) node.addEventListener(ev, fn);
      else node.setAttribute(k, v === true ? '' : String(v));
    }
    for (const kid of kids) {
      if (kid === undefined || kid === null || kid === false) continue;
      node.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
    }
    return node;
  }

  function show(node, on) { node.hidden = !on; }

  function say(node, text) {
    node.textContent = text || '';
    show(node, !!text);
  }

  /* as the server wrote it, easier to read: "2026-03-05T16:00:00Z" ->
   * "2026-03-05 16:00:00 UTC", "…T20:00:00+08:00" -> "… 20:00:00 +08:00"
   * (an event keeps the zone it was told); null -> dflt */
  function when(iso, dflt) {
    if (!iso) return dflt;
    return String(iso).replace('T', ' ').replace(/Z$/, ' UTC').replace(/([0-9])([+-][0-9]{2}:?[0-9]{2})$/, '$1 $2');
  }

  class ApiError extends Error {
    constructor(status, code, message, field) {
      super(message);
      this.status = status;
      this.code = code;
      this.field = field || null;
    }
    describe() {
      const where = this.field ? ' (field ' + this.field + ')' : '';
      return this.message + where + (this.status ? ' [HTTP ' + this.status + ' ' + this.code + ']' : '');
    }
  }

  async function api(method, path, body) {
    const token = sessionStorage.getItem(TOKEN_KEY) || '';
    const init = {
      method,
      headers: { Authorization: 'Bearer ' + token },
      cache: 'no-store',
      credentials: 'omit',
      referrerPolicy: 'no-referrer',
    };
    if (body !== undefined) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    let resp;
    try {
      resp = await fetch(path, init);
    } catch (e) {
      throw new ApiError(0, 'network', 'cannot reach the server: ' + e.message);
    }
    const text = await resp.text();
    let data = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch (e) {
      data = null;
    }
    if (!resp.ok) {
      const err = (data && data.error) || {};
      throw new ApiError(resp.status, err.code || 'http', err.message || 'the server answered ' + resp.status,
                         err.field);
    }
    if (data === null) throw new ApiError(resp.status, 'reply', 'the server\'s reply is not JSON');
    return data;
  }

  /* ------------------------------------------------------------ loading */

  async function load() {
    const all = $('show-all').checked;
    const [mems, exp] = await Promise.all([
      api('GET', 'v1/memories' + (all ? '?all=1' : '')),
      api('GET', 'v1/export'),
    ]);
    state.user = typeof exp.user === 'string' ? exp.user : '';
    state.memories = Array.isArray(mems) ? mems : (mems.memories || []);
    state.events = new Map();
    const sessions = new Map();
    for (const ev of exp.events || []) {
      state.events.set(ev.id, ev);
      if (ev.session) {
        const s = sessions.get(ev.session) || { id: ev.session, count: 0, last: '' };
        s.count++;
        if ((ev.occurred_at || '') > s.last) s.last = ev.occurred_at || '';
        sessions.set(ev.session, s);
      }
    }
    state.sessions = [...sessions.values()].sort((a, b) => (a.last < b.last ? 1 : a.last > b.last ? -1 : 0));
    render();
  }

  /* a failed call: a dead token signs out, anything else is shown */
  function failed(err, where) {
    if (err instanceof ApiError && err.status === 401) {
      signOut('Your token is no longer accepted: ' + err.describe());
      return;
    }
    say(where || $('action-error'), err instanceof ApiError ? err.describe() : String(err));
  }

  async function reload() {
    try {
      await load();
    } catch (err) {
      failed(err);
    }
  }

  /* ------------------------------------------------------------ rendering */

  function render() {
    $('who-user').textContent = state.user;
    renderSessions();
    renderMemories();
    renderEvents();
  }

  function renderSessions() {
    const pick = $('session-pick');
    const was = pick.value;
    pick.replaceChildren();
    if (!state.sessions.length) pick.append(el('option', { value: '', text: 'no sessions' }));
    for (const s of state.sessions)
      pick.append(el('option', { value: s.id }, s.id + ' (' + s.count + (s.count === 1 ? ' event)' : ' events)')));
    if (state.sessions.some((s) => s.id === was)) pick.value = was;
    pick.disabled = !state.sessions.length;
    $('forget-session').disabled = !state.sessions.length;
  }

  function matches(m, needle) {
    if (!needle) return true;
    return [m.text, m.key, m.kind, m.status].some((v) => typeof v === 'string' && v.toLowerCase().includes(needle));
  }

  function renderMemories() {
    const list = $('memories');
    const needle = $('filter').value.trim().toLowerCase();
    const shown = state.memories.filter((m) => matches(m, needle));
    list.replaceChildren(...shown.map(memoryCard));
    show($('empty'), state.memories.length === 0);
    const n = state.memories.length, e = state.events.size, s = state.sessions.length;
    $('summary').textContent =
      (needle ? shown.length + ' of ' : '') + n + (n === 1 ? ' memory' : ' memories') +
      ($('show-all').checked ? ' (with past versions)' : ' in force') + ' · ' + e +
      (e === 1 ? ' event' : ' events') + ' · ' + s + (s === 1 ? ' session' : ' sessions');
  }

  function confidence(c) {
    const pct = typeof c === 'number' ? Math.round(Math.max(0, Math.min(1, c)) * 100) : null;
    const bar = el('span', { class: 'bar' }, el('span', { class: 'fill' }));
    if (pct !== null) bar.firstChild.style.width = pct + '%';
    return el('span', { class: 'confidence', title: 'confidence' }, bar, pct === null ? '–' : pct + '%');
  }

  function memoryCard(m) {
    const lineage = m.lineage_id || m.id;
    const current = m.status === 'active' && !m.superseded_at && !m.valid_to;
    const sources = Array.isArray(m.source_event_ids) ? m.source_event_ids : [];
    const card = el('li', { class: 'memory' + (current ? '' : ' past'), 'data-id': m.id });
    card.append(
      el('div', { class: 'head' },
         el('span', { class: 'kind kind-' + String(m.kind).replace(/[^a-z_]/g, '') }, m.kind || '?'),
         el('code', { class: 'key' }, m.key || ''),
         el('span', { class: 'status status-' + String(m.status).replace(/[^a-z_]/g, '') }, m.status || '?'),
         confidence(m.confidence)),
      el('p', { class: 'text' }, m.text || ''),
      el('dl', { class: 'meta' },
         el('dt', {}, 'valid'), el('dd', { class: 'valid' },
           when(m.valid_from, '–') + ' → ' + when(m.valid_to, 'now')),
         el('dt', {}, 'recorded'), el('dd', {}, when(m.recorded_at, '–') +
           (m.superseded_at ? ' (superseded ' + when(m.superseded_at) + ')' : '')),
         el('dt', {}, 'scope'), el('dd', {}, m.scope || '')));
    const actions = el('div', { class: 'actions' });
    if (current) {
      actions.append(
        el('button', { type: 'button', class: 'act-confirm', on: { click: () => tell(m, 'confirm') } }, 'Confirm'),
        el('button', { type: 'button', class: 'act-correct', on: { click: () => openCorrect(m) } }, 'Correct…'),
        el('button', { type: 'button', class: 'act-reject quiet-danger', on: { click: () => tell(m, 'reject') } },
           'Reject'));
    }
    const srcBtn = el('button', { type: 'button', class: 'act-sources quiet', 'aria-expanded': String(state.openSources.has(lineage)) },
                      'Why? ' + sources.length + (sources.length === 1 ? ' source' : ' sources'));
    const verBtn = el('button', { type: 'button', class: 'act-versions quiet', 'aria-expanded': String(state.openVersions.has(lineage)) },
                      'Versions');
    actions.append(srcBtn, verBtn);
    card.append(actions);

    const srcBox = el('div', { class: 'sources' });
    const verBox = el('div', { class: 'versions' });
    card.append(srcBox, verBox);
    const toggle = (set, box, btn, fill) => () => {
      const open = !set.has(lineage);
      if (open) set.add(lineage); else set.delete(lineage);
      btn.setAttribute('aria-expanded', String(open));
      if (open) fill(); else box.replaceChildren();
    };
    const fillSources = () => srcBox.replaceChildren(
      el('p', { class: 'sources-note' }, 'Why: what was said that this memory comes from'), sourceList(sources));
    const fillVersions = () => versionTable(m, verBox);
    srcBtn.addEventListener('click', toggle(state.openSources, srcBox, srcBtn, fillSources));
    verBtn.addEventListener('click', toggle(state.openVersions, verBox, verBtn, fillVersions));
    if (state.openSources.has(lineage)) fillSources();
    if (state.openVersions.has(lineage)) fillVersions();
    return card;
  }

  function eventLine(ev) {
    const bits = [when(ev.occurred_at, 'no time')];
    if (ev.session) bits.push('session ' + ev.session);
    if (ev.task) bits.push('task ' + ev.task);
    if (ev.agent) bits.push('agent ' + ev.agent);
    if (ev.source) bits.push(ev.source);
    return bits.join(' · ');
  }

  /* the source events of a memory: each opens to its text and time and
   * links to its place in the history below */
  function sourceList(ids) {
    if (!ids.length) return el('p', { class: 'none' }, 'No source events are recorded for this memory.');
    const ol = el('ol', { class: 'source-list' });
    for (const id of ids) {
      const ev = state.events.get(id);
      if (!ev) {
        ol.append(el('li', { class: 'source gone' }, 'event ' + id + ' is no longer stored'));
        continue;
      }
      ol.append(el('li', { class: 'source', 'data-event': id },
        el('details', { open: true },
           el('summary', {}, el('time', { datetime: ev.occurred_at || '' }, eventLine(ev))),
           el('blockquote', { class: 'source-text' }, ev.content || ''),
           el('a', { href: '#ev-' + encodeURIComponent(id), class: 'jump' }, 'show in the history'))));
    }
    return ol;
  }

  async function versionTable(m, box) {
    box.replaceChildren(el('p', { class: 'loading' }, 'Loading versions…'));
    let data;
    try {
      data = await api('GET', 'v1/memories/' + encodeURIComponent(m.id) + '/versions');
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) return failed(err);
      box.replaceChildren(el('p', { class: 'error' }, 'Cannot load the versions: ' +
                                (err instanceof ApiError ? err.describe() : String(err))));
      return;
    }
    const head = el('tr', {}, ...['text', 'status', 'confidence', 'valid from', 'valid to', 'recorded',
                                  'superseded'].map((h) => el('th', { scope: 'col' }, h)));
    const rows = (data.versions || []).map((v) => el('tr', { class: v.id === m.id ? 'this' : '', 'data-id': v.id },
      el('td', { class: 'v-text' }, v.text || ''),
      el('td', {}, v.status || ''),
      el('td', {}, typeof v.confidence === 'number' ? Math.round(v.confidence * 100) + '%' : '–'),
      el('td', {}, when(v.valid_from, '–')),
      el('td', {}, when(v.valid_to, 'now')),
      el('td', {}, when(v.recorded_at, '–')),
      el('td', {}, when(v.superseded_at, 'current'))));
    box.replaceChildren(
      el('p', { class: 'versions-note' },
         'Versions of ', el('code', {}, data.key || m.key || ''),
         ', oldest first: "valid" is when it was true in the world, "recorded"/"superseded" when agentmem believed it.'),
      el('table', { class: 'version-table' }, el('thead', {}, head), el('tbody', {}, ...rows)));
  }

  function renderEvents() {
    const ol = $('events');
    const events = [...state.events.values()].sort((a, b) =>
      (a.occurred_at || '') < (b.occurred_at || '') ? -1 : (a.occurred_at || '') > (b.occurred_at || '') ? 1 : 0);
    ol.replaceChildren(...events.map((ev) => el('li', { id: 'ev-' + ev.id, class: 'event' },
      el('div', { class: 'event-line' }, eventLine(ev)),
      el('div', { class: 'event-text' }, ev.content || ''))));
    if (!events.length) ol.append(el('li', { class: 'none' }, 'No events.'));
  }

  /* ------------------------------------------------------------ actions */

  function notice(text) {
    say($('notice'), text);
  }

  async function feedback(m, action, text) {
    say($('action-error'), '');
    const body = { action };
    if (text !== undefined) body.text = text;
    await api('POST', 'v1/memories/' + encodeURIComponent(m.id) + '/feedback', body);
    notice(action === 'confirm' ? 'Confirmed: "' + m.text + '"'
           : action === 'reject' ? 'Rejected: "' + m.text + '" is no longer used'
           : 'Corrected to: "' + text + '"');
    if (action === 'correct') state.openVersions.add(m.lineage_id || m.id);
    await load();
  }

  /* an action from a button: errors shown, not thrown */
  function guarded(fn) {
    return (...args) => fn(...args).catch((err) => failed(err));
  }
  const tell = guarded(feedback);

  let correcting = null;
  function openCorrect(m) {
    correcting = m;
    $('correct-was').textContent = m.text || '';
    $('correct-text').value = m.text || '';
    say($('correct-error'), '');
    $('correct-dialog').showModal();
    $('correct-text').focus();
  }

  async function saveCorrect(ev) {
    ev.preventDefault();
    const text = $('correct-text').value.trim();
    if (!text) return say($('correct-error'), 'Write what is right, or cancel.');
    try {
      await feedback(correcting, 'correct', text);
      $('correct-dialog').close();
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) {
        $('correct-dialog').close();
        return failed(err);
      }
      failed(err, $('correct-error'));
    }
  }

  /* a confirmation dialog; resolves true when confirmed.  mustType: the
   * text the user has to type first (forgetting everything) */
  function confirmDialog(title, text, okLabel, mustType) {
    const dlg = $('confirm-dialog');
    $('confirm-title').textContent = title;
    $('confirm-text').textContent = text;
    $('confirm-ok').textContent = okLabel;
    const typed = $('confirm-type');
    typed.value = '';
    show($('confirm-type-row'), !!mustType);
    $('confirm-type-label').textContent = mustType ? 'Type ' + mustType + ' to confirm' : '';
    const ok = $('confirm-ok');
    ok.disabled = !!mustType;
    typed.oninput = () => { ok.disabled = typed.value !== mustType; };
    dlg.returnValue = '';
    dlg.showModal();
    (mustType ? typed : $('confirm-cancel')).focus();
    return new Promise((resolve) => {
      dlg.addEventListener('close', () => resolve(dlg.returnValue === 'ok' &&
                                                  (!mustType || typed.value === mustType)), { once: true });
    });
  }

  function counts(r) {
    const n = (x, one, many) => (typeof x === 'number' ? x : 0) + ' ' + (x === 1 ? one : many);
    return n(r.events, 'event', 'events') + ', ' + n(r.memories, 'memory', 'memories') + ', ' +
           n(r.tasks, 'task', 'tasks');
  }

  async function forgetSession() {
    const id = $('session-pick').value;
    const s = state.sessions.find((x) => x.id === id);
    if (!s) return;
    const yes = await confirmDialog('Forget session "' + id + '"?',
      'This deletes its ' + s.count + (s.count === 1 ? ' event' : ' events') +
      ' and what agentmem learned only from them. It cannot be undone.', 'Forget session');
    if (!yes) return;
    const r = await api('POST', 'v1/forget', { level: 'session', id });
    notice('Forgot session "' + id + '": ' + counts(r) + '.');
    await load();
  }

  async function forgetAll() {
    const user = state.user || 'everything';
    const yes = await confirmDialog('Forget everything about ' + user + '?',
      'Every event, memory and task of ' + user + ' is deleted (after the server\'s grace period, ' +
      'if it has one). You are signed out.', 'Forget everything', user);
    if (!yes) return;
    const r = await api('POST', 'v1/forget', { level: 'user' });
    signOut('', 'Everything about ' + user + ' was forgotten: ' + counts(r) + '.');
  }

  /* ------------------------------------------------------------ sign in/out */

  /* message: why (an error), or done: what was done (a notice) */
  function signOut(message, done) {
    sessionStorage.removeItem(TOKEN_KEY);
    state.user = '';
    state.memories = [];
    state.events = new Map();
    state.sessions = [];
    state.openSources.clear();
    state.openVersions.clear();
    for (const id of ['memories', 'events', 'session-pick']) $(id).replaceChildren();
    $('who-user').textContent = '';
    say($('notice'), '');
    say($('action-error'), '');
    show($('inspector'), false);
    show($('who'), false);
    show($('sign-in'), true);
    say($('sign-in-error'), message || '');
    say($('notice'), done || '');
    $('token').value = '';
    $('token').focus();
  }

  async function signIn(token) {
    sessionStorage.setItem(TOKEN_KEY, token);
    say($('sign-in-error'), '');
    $('sign-in-button').disabled = true;
    try {
      await load();
    } catch (err) {
      sessionStorage.removeItem(TOKEN_KEY);
      const why = err instanceof ApiError ? err.describe() : String(err);
      say($('sign-in-error'), (err.status === 401 ? 'The server refused this token: ' : 'Cannot sign in: ') + why);
      return;
    } finally {
      $('sign-in-button').disabled = false;
    }
    $('token').value = '';
    say($('notice'), '');
    show($('sign-in'), false);
    show($('inspector'), true);
    show($('who'), true);
  }

  function start() {
    $('sign-in-form').addEventListener('submit', (ev) => {
      ev.preventDefault();
      const token = $('token').value.trim();
      if (token) signIn(token);
    });
    $('sign-out').addEventListener('click', () => signOut(''));
    $('refresh').addEventListener('click', () => { notice(''); reload(); });
    $('show-all').addEventListener('change', reload);
    $('filter').addEventListener('input', renderMemories);
    $('forget-session').addEventListener('click', guarded(forgetSession));
    $('forget-all').addEventListener('click', guarded(forgetAll));
    $('correct-save').addEventListener('click', saveCorrect);
    const saved = sessionStorage.getItem(TOKEN_KEY);
    if (saved) signIn(saved);
    else $('token').focus();
  }

  document.addEventListener('DOMContentLoaded', start);
})();
