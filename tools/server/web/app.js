// SPDX-License-Identifier: Apache-2.0
/*
 * app.js -- the memory inspector (docs/INSPECTOR.md).  No framework, no
 * build step: the DOM API and fetch.
 *
 * Data, a page at a time (never the whole export): GET v1/memories
 * (?limit, ?cursor from its X-Next-Cursor header, ?q a search, ?all=1 with
 * "past versions too"), GET v1/events (?limit, ?cursor, ?q; newest first;
 * "user" names whose data it is), GET v1/events?ids= for a memory's
 * sources, GET v1/memories/{id}/versions on demand; POST
 * v1/memories/{id}/feedback, DELETE v1/memories/{id} and v1/forget for the
 * actions.  Every call carries the token from sessionStorage as a bearer
 * header; the token is never put in a URL, a cookie or localStorage (the
 * language picked is, nothing else).
 *
 * Every text the server returns is the user's (or an attacker's) words:
 * it reaches the page only as a text node (el() below, textContent,
 * input.value), never as markup; the page has no innerHTML at all, and
 * the server's Content-Security-Policy forbids inline script besides.
 *
 * English and Chinese: every label and message is in STRINGS, both
 * languages; the browser's language chooses (navigator.languages), the
 * switch in the header changes it.  The frame that first shows the lists
 * after signing in sets the performance mark "inspector-first-list".
 */
'use strict';

(function () {
  const TOKEN_KEY = 'agentmem.inspector.token';
  const LANG_KEY = 'agentmem.inspector.lang';
  const PAGE = 50;
  const $ = (id) => document.getElementById(id);

  /* ------------------------------------------------------------ languages */

  const plural = (n, one, many) => n + ' ' + (n === 1 ? one : many);
  const STRINGS = {
    en: {
      title: 'agentmem · memory inspector',
      subtitle: 'memory inspector',
      language: 'Language',
      signedInAs: 'signed in as',
      signOut: 'Sign out',
      signIn: 'Sign in',
      signInHelp: 'Paste a token made with',
      signInKept: 'It is kept in this tab only (sessionStorage) and sent as a bearer header, never in a URL.',
      token: 'Token',
      searchMemories: 'Search memories',
      searchEvents: 'Search what you said',
      search: 'Search',
      pastToo: 'past versions too',
      refresh: 'Refresh',
      sessionToForget: 'Session to forget',
      forgetSession: 'Forget session…',
      forgetAll: 'Forget everything…',
      loadMore: 'Load more',
      eventsTitle: 'What you said',
      eventsSub: '(the events memories come from, newest first)',
      cancel: 'Cancel',
      correctTitle: 'Correct this memory',
      now: 'Now:',
      whatIsRight: 'What is right',
      saveCorrection: 'Save correction',
      noSessions: 'no sessions',
      empty: 'Nothing is remembered about you.',
      emptySearch: (q) => 'No memory matches "' + q + '".',
      memSummary: (n, all, q, more) => 'Showing ' + plural(n, 'memory', 'memories') +
        (all ? ' (with past versions)' : ' in force') + (q ? ' matching "' + q + '"' : '') +
        (more ? '; more below' : '') + '.',
      evSummary: (n, q, more) => 'Showing the ' + (more ? 'newest ' : '') + plural(n, 'event', 'events') +
        (q ? ' holding "' + q + '"' : '') + (more ? '; more below' : '') + '.',
      noEvents: 'No events.',
      noEventsSearch: (q) => 'Nothing you said holds "' + q + '".',
      valid: 'valid',
      recorded: 'recorded',
      scope: 'scope',
      untilNow: 'now',
      supersededAt: (t) => ' (superseded ' + t + ')',
      confirm: 'Confirm',
      correct: 'Correct…',
      reject: 'Reject',
      del: 'Delete…',
      why: (n) => 'Why? ' + plural(n, 'source', 'sources'),
      versions: 'Versions',
      whyNote: 'Why: what was said that this memory comes from',
      noSources: 'No source events are recorded for this memory.',
      goneEvent: (id) => 'event ' + id + ' is no longer stored',
      showInHistory: 'show in the history',
      loading: 'Loading…',
      cannotVersions: (e) => 'Cannot load the versions: ' + e,
      cannotSources: (e) => 'Cannot load the sources: ' + e,
      vHead: ['text', 'status', 'confidence', 'valid from', 'valid to', 'recorded', 'superseded'],
      current: 'current',
      versionsNote: ['Versions of ', ', oldest first: "valid" is when it was true in the world, ' +
                     '"recorded"/"superseded" when agentmem believed it.'],
      noTime: 'no time',
      session: 'session',
      task: 'task',
      agent: 'agent',
      confidence: 'confidence',
      confirmed: (t) => 'Confirmed: "' + t + '"',
      rejected: (t) => 'Rejected: "' + t + '" is no longer used',
      corrected: (t) => 'Corrected to: "' + t + '"',
      deleted: (t, n) => 'Deleted: "' + t + '" (' + plural(n, 'version', 'versions') + ', for good)',
      deleteTitle: 'Delete this memory?',
      deleteText: (t) => '"' + t + '" and every version of it are deleted for good; nothing of it is kept. ' +
        'It cannot be undone.',
      deleteOk: 'Delete',
      forgetSessionTitle: (id) => 'Forget session "' + id + '"?',
      forgetSessionText: 'This deletes its events and what agentmem learned only from them. It cannot be undone.',
      forgetSessionOk: 'Forget session',
      forgotSession: (id, c) => 'Forgot session "' + id + '": ' + c + '.',
      counts: (e, m, t) => plural(e, 'event', 'events') + ', ' + plural(m, 'memory', 'memories') + ', ' +
        plural(t, 'task', 'tasks'),
      forgetAllTitle: (u) => 'Forget everything about ' + u + '?',
      forgetAllText: (u) => 'Every event, memory and task of ' + u + ' is deleted (after the server\'s grace ' +
        'period, if it has one). You are signed out.',
      forgetAllOk: 'Forget everything',
      typeToConfirm: (u) => 'Type ' + u + ' to confirm',
      forgotAll: (u, c) => 'Everything about ' + u + ' was forgotten: ' + c + '.',
      everything: 'everything',
      writeRight: 'Write what is right, or cancel.',
      tokenRefused: 'The server refused this token: ',
      cannotSignIn: 'Cannot sign in: ',
      tokenGone: 'Your token is no longer accepted: ',
      network: (m) => 'cannot reach the server: ' + m,
      notJson: 'the server\'s reply is not JSON',
      httpStatus: (s) => 'the server answered ' + s,
      field: (f) => ' (field ' + f + ')',
      kinds: {},
      statuses: {},
    },
    zh: {
      title: 'agentmem · 记忆查看器',
      subtitle: '记忆查看器',
      language: '语言',
      signedInAs: '当前用户',
      signOut: '退出',
      signIn: '登录',
      signInHelp: '粘贴用以下命令生成的令牌：',
      signInKept: '令牌只保存在此标签页（sessionStorage），以 Bearer 请求头发送，绝不放进网址。',
      token: '令牌',
      searchMemories: '搜索记忆',
      searchEvents: '搜索你说过的话',
      search: '搜索',
      pastToo: '包括历史版本',
      refresh: '刷新',
      sessionToForget: '要遗忘的会话',
      forgetSession: '遗忘会话…',
      forgetAll: '遗忘全部…',
      loadMore: '加载更多',
      eventsTitle: '你说过的话',
      eventsSub: '（记忆的来源，最新的在前）',
      cancel: '取消',
      correctTitle: '更正这条记忆',
      now: '现在：',
      whatIsRight: '正确的内容',
      saveCorrection: '保存更正',
      noSessions: '没有会话',
      empty: '还没有关于你的记忆。',
      emptySearch: (q) => '没有与“' + q + '”匹配的记忆。',
      memSummary: (n, all, q, more) => '显示 ' + n + ' 条' + (all ? '记忆（含历史版本）' : '生效的记忆') +
        (q ? '，匹配“' + q + '”' : '') + (more ? '；下面还有更多' : '') + '。',
      evSummary: (n, q, more) => '显示' + (more ? '最近的 ' : ' ') + n + ' 条事件' +
        (q ? '，包含“' + q + '”' : '') + (more ? '；下面还有更多' : '') + '。',
      noEvents: '没有事件。',
      noEventsSearch: (q) => '你说过的话里没有“' + q + '”。',
      valid: '有效期',
      recorded: '记录于',
      scope: '范围',
      untilNow: '至今',
      supersededAt: (t) => '（于 ' + t + ' 被取代）',
      confirm: '确认',
      correct: '更正…',
      reject: '否决',
      del: '删除…',
      why: (n) => '为什么？' + n + ' 个来源',
      versions: '版本',
      whyNote: '为什么：这条记忆来自下面这些话',
      noSources: '这条记忆没有记录来源事件。',
      goneEvent: (id) => '事件 ' + id + ' 已不再保存',
      showInHistory: '在历史中查看',
      loading: '加载中…',
      cannotVersions: (e) => '无法加载版本：' + e,
      cannotSources: (e) => '无法加载来源：' + e,
      vHead: ['内容', '状态', '置信度', '生效自', '生效至', '记录于', '被取代于'],
      current: '当前',
      versionsNote: ['', ' 的所有版本，最早的在前：“生效”是它在现实中成立的时间，“记录”/“被取代”是 agentmem 相信它的时间。'],
      noTime: '无时间',
      session: '会话',
      task: '任务',
      agent: '智能体',
      confidence: '置信度',
      confirmed: (t) => '已确认：“' + t + '”',
      rejected: (t) => '已否决：“' + t + '”不再使用',
      corrected: (t) => '已更正为：“' + t + '”',
      deleted: (t, n) => '已删除：“' + t + '”（共 ' + n + ' 个版本，彻底删除）',
      deleteTitle: '删除这条记忆？',
      deleteText: (t) => '“' + t + '”及其所有版本将被彻底删除，不留任何痕迹。此操作无法撤销。',
      deleteOk: '删除',
      forgetSessionTitle: (id) => '遗忘会话“' + id + '”？',
      forgetSessionText: '这将删除该会话的所有事件，以及 agentmem 只从这些事件中学到的内容。此操作无法撤销。',
      forgetSessionOk: '遗忘会话',
      forgotSession: (id, c) => '已遗忘会话“' + id + '”：' + c + '。',
      counts: (e, m, t) => e + ' 个事件，' + m + ' 条记忆，' + t + ' 个任务',
      forgetAllTitle: (u) => '遗忘关于 ' + u + ' 的全部内容？',
      forgetAllText: (u) => u + ' 的所有事件、记忆和任务都将被删除（如服务器设有宽限期，则在宽限期结束后）。你将被退出登录。',
      forgetAllOk: '遗忘全部',
      typeToConfirm: (u) => '输入 ' + u + ' 以确认',
      forgotAll: (u, c) => '关于 ' + u + ' 的全部内容已遗忘：' + c + '。',
      everything: '全部',
      writeRight: '请写下正确的内容，或取消。',
      tokenRefused: '服务器拒绝了这个令牌：',
      cannotSignIn: '无法登录：',
      tokenGone: '你的令牌已不再有效：',
      network: (m) => '无法连接服务器：' + m,
      notJson: '服务器的回复不是 JSON',
      httpStatus: (s) => '服务器返回 ' + s,
      field: (f) => '（字段 ' + f + '）',
      kinds: {
        preference: '偏好', constraint: '约束', profile: '个人信息', fact: '事实', pattern: '规律',
        task_conclusion: '任务结论', rule: '规则', temp: '临时',
      },
      statuses: { active: '生效', invalidated: '已失效', pending_confirm: '待确认', rejected: '已否决', candidate_forget: '待遗忘', archived: '已归档' },
    },
  };

  function pickLanguage() {
    const saved = localStorage.getItem(LANG_KEY);
    if (saved === 'en' || saved === 'zh') return saved;
    const langs = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language];
    for (const l of langs) {
      const low = String(l || '').toLowerCase();
      if (low.startsWith('zh')) return 'zh';
      if (low.startsWith('en')) return 'en';
    }
    return 'en';
  }

  let lang = 'en';
  const t = (key) => STRINGS[lang][key];

  /* the fixed texts of the page (data-i18n*) in the language */
  function applyLanguage() {
    document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
    document.title = t('title');
    for (const node of document.querySelectorAll('[data-i18n]')) node.textContent = t(node.dataset.i18n);
    for (const node of document.querySelectorAll('[data-i18n-placeholder]'))
      node.setAttribute('placeholder', t(node.dataset.i18nPlaceholder));
    for (const node of document.querySelectorAll('[data-i18n-aria]'))
      node.setAttribute('aria-label', t(node.dataset.i18nAria));
    $('lang').value = lang;
  }

  function setLanguage(l) {
    lang = l === 'zh' ? 'zh' : 'en';
    localStorage.setItem(LANG_KEY, lang);
    applyLanguage();
    if (sessionStorage.getItem(TOKEN_KEY) && !$('inspector').hidden) render();
    say($('notice'), '');
  }

  /* ------------------------------------------------------------ state */

  const state = {
    user: '',
    memories: [],
    memCursor: null,
    memQuery: '',
    events: [],                // the events listed, newest first
    evCursor: null,
    evQuery: '',
    known: new Map(),          // event id -> event (listed, or a memory's source)
    sessions: new Map(),       // session -> last time seen, of the events listed
    openSources: new Set(),    // lineage ids whose sources are shown
    openVersions: new Set(),   // lineage ids whose versions are shown
  };
  let firstPaint = false;

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
      const where = this.field ? t('field')(this.field) : '';
      return this.message + where + (this.status ? ' [HTTP ' + this.status + ' ' + this.code + ']' : '');
    }
  }
  const describe = (err) => (err instanceof ApiError ? err.describe() : String(err));

  /* a call: {data, headers}; errors thrown as ApiError */
  async function call(method, path, body) {
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
      throw new ApiError(0, 'network', t('network')(e.message));
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
      throw new ApiError(resp.status, err.code || 'http', err.message || t('httpStatus')(resp.status), err.field);
    }
    if (data === null) throw new ApiError(resp.status, 'reply', t('notJson'));
    return { data, headers: resp.headers };
  }
  const api = async (method, path, body) => (await call(method, path, body)).data;

  function qs(params) {
    const u = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') u.set(k, v);
    const s = u.toString();
    return s ? '?' + s : '';
  }

  /* ------------------------------------------------------------ loading */

  async function fetchMemories(cursor) {
    const { data, headers } = await call('GET', 'v1/memories' + qs({
      limit: PAGE, cursor, q: state.memQuery, all: $('show-all').checked ? '1' : '',
    }));
    return { items: Array.isArray(data) ? data : [], next: headers.get('X-Next-Cursor') || null };
  }

  async function fetchEvents(cursor) {
    const data = await api('GET', 'v1/events' + qs({ limit: PAGE, cursor, q: state.evQuery }));
    return { user: typeof data.user === 'string' ? data.user : '', items: data.events || [],
             next: data.next_cursor || null };
  }

  function noteEvents(list) {
    for (const ev of list) {
      state.known.set(ev.id, ev);
      if (ev.session && !state.sessions.has(ev.session)) state.sessions.set(ev.session, ev.occurred_at || '');
    }
  }

  async function loadMemories() {
    const m = await fetchMemories(null);
    state.memories = m.items;
    state.memCursor = m.next;
  }

  async function loadEvents() {
    const e = await fetchEvents(null);
    if (e.user) state.user = e.user;
    state.events = e.items;
    state.evCursor = e.next;
    if (!state.evQuery) state.sessions = new Map();
    noteEvents(e.items);
  }

  /* the first page of both lists */
  async function load() {
    await Promise.all([loadMemories(), loadEvents()]);
    render();
    if (!firstPaint) {
      firstPaint = true;
      /* after the frame that shows the lists is painted */
      requestAnimationFrame(() => setTimeout(() => performance.mark('inspector-first-list'), 0));
    }
  }

  /* a failed call: a dead token signs out, anything else is shown */
  function failed(err, where) {
    if (err instanceof ApiError && err.status === 401) {
      signOut(t('tokenGone') + err.describe());
      return;
    }
    say(where || $('action-error'), describe(err));
  }

  function guarded(fn) {
    return (...args) => Promise.resolve().then(() => fn(...args)).catch((err) => failed(err));
  }

  const reload = guarded(load);

  const moreMemories = guarded(async () => {
    if (!state.memCursor) return;
    $('mem-more').disabled = true;
    try {
      const m = await fetchMemories(state.memCursor);
      state.memories = state.memories.concat(m.items);
      state.memCursor = m.next;
      renderMemories();
    } finally {
      $('mem-more').disabled = false;
    }
  });

  const moreEvents = guarded(async () => {
    if (!state.evCursor) return;
    $('ev-more').disabled = true;
    try {
      const e = await fetchEvents(state.evCursor);
      state.events = state.events.concat(e.items);
      state.evCursor = e.next;
      noteEvents(e.items);
      renderEvents();
      renderSessions();
    } finally {
      $('ev-more').disabled = false;
    }
  });

  const searchMemories = guarded(async () => {
    state.memQuery = $('filter').value.trim();
    await loadMemories();
    renderMemories();
  });

  const searchEvents = guarded(async () => {
    state.evQuery = $('ev-filter').value.trim();
    await loadEvents();
    renderEvents();
    renderSessions();
  });

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
    const ids = [...state.sessions.entries()].sort((a, b) => (a[1] < b[1] ? 1 : a[1] > b[1] ? -1 : 0));
    if (!ids.length) pick.append(el('option', { value: '' }, t('noSessions')));
    for (const [id] of ids) pick.append(el('option', { value: id }, id));
    if (state.sessions.has(was)) pick.value = was;
    pick.disabled = !ids.length;
    $('forget-session').disabled = !ids.length;
  }

  function renderMemories() {
    $('memories').replaceChildren(...state.memories.map(memoryCard));
    const n = state.memories.length;
    say($('empty'), n ? '' : state.memQuery ? t('emptySearch')(state.memQuery) : t('empty'));
    $('summary').textContent = t('memSummary')(n, $('show-all').checked, state.memQuery, !!state.memCursor);
    show($('mem-more'), !!state.memCursor);
  }

  function confidence(c) {
    const pct = typeof c === 'number' ? Math.round(Math.max(0, Math.min(1, c)) * 100) : null;
    const bar = el('span', { class: 'bar' }, el('span', { class: 'fill' }));
    if (pct !== null) bar.firstChild.style.width = pct + '%';
    return el('span', { class: 'confidence', title: t('confidence') }, bar, pct === null ? '–' : pct + '%');
  }

  const kindName = (k) => t('kinds')[k] || k || '?';
  const statusName = (s) => t('statuses')[s] || s || '?';

  function memoryCard(m) {
    const lineage = m.lineage_id || m.id;
    const current = m.status === 'active' && !m.superseded_at && !m.valid_to;
    const sources = Array.isArray(m.source_event_ids) ? m.source_event_ids : [];
    const card = el('li', { class: 'memory' + (current ? '' : ' past'), 'data-id': m.id, 'data-lineage': lineage });
    card.append(
      el('div', { class: 'head' },
         el('span', { class: 'kind kind-' + String(m.kind).replace(/[^a-z_]/g, '') }, kindName(m.kind)),
         el('code', { class: 'key' }, m.key || ''),
         el('span', { class: 'status status-' + String(m.status).replace(/[^a-z_]/g, '') }, statusName(m.status)),
         confidence(m.confidence)),
      el('p', { class: 'text' }, m.text || ''),
      el('dl', { class: 'meta' },
         el('dt', {}, t('valid')), el('dd', { class: 'valid' },
           when(m.valid_from, '–') + ' → ' + when(m.valid_to, t('untilNow'))),
         el('dt', {}, t('recorded')), el('dd', {}, when(m.recorded_at, '–') +
           (m.superseded_at ? t('supersededAt')(when(m.superseded_at)) : '')),
         el('dt', {}, t('scope')), el('dd', {}, m.scope || '')));
    const actions = el('div', { class: 'actions' });
    if (current) {
      actions.append(
        el('button', { type: 'button', class: 'act-confirm', on: { click: () => tell(m, 'confirm') } }, t('confirm')),
        el('button', { type: 'button', class: 'act-correct', on: { click: () => openCorrect(m) } }, t('correct')),
        el('button', { type: 'button', class: 'act-reject quiet-danger', on: { click: () => tell(m, 'reject') } },
           t('reject')));
    }
    actions.append(el('button', { type: 'button', class: 'act-delete quiet-danger',
                                  on: { click: () => deleteMemory(m) } }, t('del')));
    const srcBtn = el('button', { type: 'button', class: 'act-sources quiet',
                                  'aria-expanded': String(state.openSources.has(lineage)) }, t('why')(sources.length));
    const verBtn = el('button', { type: 'button', class: 'act-versions quiet',
                                  'aria-expanded': String(state.openVersions.has(lineage)) }, t('versions'));
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
    const fillSources = () => sourceBox(sources, srcBox);
    const fillVersions = () => versionTable(m, verBox);
    srcBtn.addEventListener('click', toggle(state.openSources, srcBox, srcBtn, fillSources));
    verBtn.addEventListener('click', toggle(state.openVersions, verBox, verBtn, fillVersions));
    if (state.openSources.has(lineage)) fillSources();
    if (state.openVersions.has(lineage)) fillVersions();
    return card;
  }

  function eventLine(ev) {
    const bits = [when(ev.occurred_at, t('noTime'))];
    if (ev.session) bits.push(t('session') + ' ' + ev.session);
    if (ev.task) bits.push(t('task') + ' ' + ev.task);
    if (ev.agent) bits.push(t('agent') + ' ' + ev.agent);
    if (ev.source) bits.push(ev.source);
    return bits.join(' · ');
  }

  /* the source events of a memory (those not listed yet asked by id):
   * each opens to its text and time, linked to its place in the list
   * below when it is there */
  async function sourceBox(ids, box) {
    const note = el('p', { class: 'sources-note' }, t('whyNote'));
    if (!ids.length) return box.replaceChildren(note, el('p', { class: 'none' }, t('noSources')));
    const missing = ids.filter((id) => !state.known.has(id)).slice(0, 100);
    if (missing.length) {
      box.replaceChildren(el('p', { class: 'loading' }, t('loading')));
      try {
        const data = await api('GET', 'v1/events' + qs({ ids: missing.join(',') }));
        for (const ev of data.events || []) state.known.set(ev.id, ev);
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) return failed(err);
        return box.replaceChildren(el('p', { class: 'error' }, t('cannotSources')(describe(err))));
      }
    }
    const listed = new Set(state.events.map((ev) => ev.id));
    const ol = el('ol', { class: 'source-list' });
    for (const id of ids) {
      const ev = state.known.get(id);
      if (!ev) {
        ol.append(el('li', { class: 'source gone' }, t('goneEvent')(id)));
        continue;
      }
      ol.append(el('li', { class: 'source', 'data-event': id },
        el('details', { open: true },
           el('summary', {}, el('time', { datetime: ev.occurred_at || '' }, eventLine(ev))),
           el('blockquote', { class: 'source-text' }, ev.content || ''),
           listed.has(id) ? el('a', { href: '#ev-' + encodeURIComponent(id), class: 'jump' }, t('showInHistory'))
                          : null)));
    }
    box.replaceChildren(note, ol);
  }

  async function versionTable(m, box) {
    box.replaceChildren(el('p', { class: 'loading' }, t('loading')));
    let data;
    try {
      data = await api('GET', 'v1/memories/' + encodeURIComponent(m.id) + '/versions');
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) return failed(err);
      box.replaceChildren(el('p', { class: 'error' }, t('cannotVersions')(describe(err))));
      return;
    }
    const head = el('tr', {}, ...t('vHead').map((h) => el('th', { scope: 'col' }, h)));
    const rows = (data.versions || []).map((v) => el('tr', { class: v.id === m.id ? 'this' : '', 'data-id': v.id },
      el('td', { class: 'v-text' }, v.text || ''),
      el('td', {}, statusName(v.status)),
      el('td', {}, typeof v.confidence === 'number' ? Math.round(v.confidence * 100) + '%' : '–'),
      el('td', {}, when(v.valid_from, '–')),
      el('td', {}, when(v.valid_to, t('untilNow'))),
      el('td', {}, when(v.recorded_at, '–')),
      el('td', {}, when(v.superseded_at, t('current')))));
    const note = t('versionsNote');
    box.replaceChildren(
      el('p', { class: 'versions-note' }, note[0], el('code', {}, data.key || m.key || ''), note[1]),
      el('table', { class: 'version-table' }, el('thead', {}, head), el('tbody', {}, ...rows)));
  }

  function renderEvents() {
    const ol = $('events');
    ol.replaceChildren(...state.events.map((ev) => el('li', { id: 'ev-' + ev.id, class: 'event' },
      el('div', { class: 'event-line' }, eventLine(ev)),
      el('div', { class: 'event-text' }, ev.content || ''))));
    if (!state.events.length)
      ol.append(el('li', { class: 'none' }, state.evQuery ? t('noEventsSearch')(state.evQuery) : t('noEvents')));
    $('ev-summary').textContent = t('evSummary')(state.events.length, state.evQuery, !!state.evCursor);
    show($('ev-more'), !!state.evCursor);
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
    notice(action === 'confirm' ? t('confirmed')(m.text) : action === 'reject' ? t('rejected')(m.text)
           : t('corrected')(text));
    if (action === 'correct') state.openVersions.add(m.lineage_id || m.id);
    await loadMemories();
    renderMemories();
  }
  const tell = guarded(feedback);

  const deleteMemory = guarded(async (m) => {
    say($('action-error'), '');
    const yes = await confirmDialog(t('deleteTitle'), t('deleteText')(m.text || ''), t('deleteOk'));
    if (!yes) return;
    const lineage = m.lineage_id || m.id;
    const r = await api('DELETE', 'v1/memories/' + encodeURIComponent(lineage));
    state.memories = state.memories.filter((x) => (x.lineage_id || x.id) !== lineage);
    state.openSources.delete(lineage);
    state.openVersions.delete(lineage);
    renderMemories();
    notice(t('deleted')(m.text || '', typeof r.deleted === 'number' ? r.deleted : 1));
  });

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
    if (!text) return say($('correct-error'), t('writeRight'));
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
    $('confirm-type-label').textContent = mustType ? t('typeToConfirm')(mustType) : '';
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
    const n = (x) => (typeof x === 'number' ? x : 0);
    return t('counts')(n(r.events), n(r.memories), n(r.tasks));
  }

  async function forgetSession() {
    const id = $('session-pick').value;
    if (!id || !state.sessions.has(id)) return;
    const yes = await confirmDialog(t('forgetSessionTitle')(id), t('forgetSessionText'), t('forgetSessionOk'));
    if (!yes) return;
    const r = await api('POST', 'v1/forget', { level: 'session', id });
    notice(t('forgotSession')(id, counts(r)));
    state.sessions.delete(id);
    await load();
  }

  async function forgetAll() {
    const user = state.user || t('everything');
    const yes = await confirmDialog(t('forgetAllTitle')(user), t('forgetAllText')(user), t('forgetAllOk'), user);
    if (!yes) return;
    const r = await api('POST', 'v1/forget', { level: 'user' });
    signOut('', t('forgotAll')(user, counts(r)));
  }

  /* ------------------------------------------------------------ sign in/out */

  /* message: why (an error), or done: what was done (a notice) */
  function signOut(message, done) {
    sessionStorage.removeItem(TOKEN_KEY);
    Object.assign(state, { user: '', memories: [], memCursor: null, memQuery: '', events: [], evCursor: null,
                           evQuery: '', known: new Map(), sessions: new Map() });
    state.openSources.clear();
    state.openVersions.clear();
    for (const id of ['memories', 'events', 'session-pick']) $(id).replaceChildren();
    $('filter').value = '';
    $('ev-filter').value = '';
    $('who-user').textContent = '';
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
    show($('inspector'), true);
    try {
      await load();
    } catch (err) {
      show($('inspector'), false);
      sessionStorage.removeItem(TOKEN_KEY);
      say($('sign-in-error'), (err.status === 401 ? t('tokenRefused') : t('cannotSignIn')) + describe(err));
      return;
    } finally {
      $('sign-in-button').disabled = false;
    }
    $('token').value = '';
    say($('notice'), '');
    show($('sign-in'), false);
    show($('who'), true);
  }

  function start() {
    lang = pickLanguage();
    applyLanguage();
    $('lang').addEventListener('change', () => setLanguage($('lang').value));
    $('sign-in-form').addEventListener('submit', (ev) => {
      ev.preventDefault();
      const token = $('token').value.trim();
      if (token) signIn(token);
    });
    $('sign-out').addEventListener('click', () => signOut(''));
    $('refresh').addEventListener('click', () => { notice(''); reload(); });
    $('show-all').addEventListener('change', searchMemories);
    $('mem-search-form').addEventListener('submit', (ev) => { ev.preventDefault(); searchMemories(); });
    $('ev-search-form').addEventListener('submit', (ev) => { ev.preventDefault(); searchEvents(); });
    $('mem-more').addEventListener('click', moreMemories);
    $('ev-more').addEventListener('click', moreEvents);
    $('forget-session').addEventListener('click', guarded(forgetSession));
    $('forget-all').addEventListener('click', guarded(forgetAll));
    $('correct-save').addEventListener('click', saveCorrect);
    const saved = sessionStorage.getItem(TOKEN_KEY);
    if (saved) {
      show($('sign-in'), false);
      signIn(saved).then(() => { if (!sessionStorage.getItem(TOKEN_KEY)) show($('sign-in'), true); });
    } else $('token').focus();
  }

  document.addEventListener('DOMContentLoaded', start);
})();
