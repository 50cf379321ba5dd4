// SPDX-License-Identifier: Apache-2.0
/*
 * inspector.test.js -- the memory inspector in headless Chromium (run by
 * tests/sh/inspector.sh, which makes the store and starts the server).
 *
 * usage: node inspector.test.js URL TOKEN USER SHOT_DIR OTHER_TOKEN PERF_TOKEN
 *
 * Drives Debian's /usr/bin/chromium through playwright-core (no browser
 * download) as a user would: a wrong token, signing in, what is shown
 * (Chinese and English), the sources of a memory, a confirmation, a
 * correction and its versions, searching memories and events (Chinese and
 * English), the interface in English and Chinese (the browser's language
 * chooses, the switch changes it; every label of the page in both),
 * deleting a memory (cancelled once, then confirmed: the server no longer
 * has it), a rejection, forgetting a session, signing out, another user's
 * token, and forgetting everything.  With PERF_TOKEN (a user of 10,000
 * events): the time to the first rendered list (the page's
 * "inspector-first-list" performance mark, from navigation start) must be
 * under 1000 ms, and the lists page ("Load more": the next page, no event
 * twice, the server's own next page) and search over the whole history.
 * Each step is also checked against the server's own answers.
 * Throughout: no script ran from stored text (no alert, no <img> made, no
 * page error, no CSP violation), no token in any URL, every data call
 * carried the bearer header, and the page never asked for /v1/export.
 * Screenshots: SHOT_DIR/inspector-en.png and inspector-zh.png.
 */
'use strict';
const assert = require('node:assert/strict');
const path = require('node:path');
const { chromium } = require('playwright-core');

const [url, token, user, shotDir, otherToken, perfToken] = process.argv.slice(2);
if (!url || !token || !user || !shotDir) {
  console.error('usage: node inspector.test.js URL TOKEN USER SHOT_DIR [OTHER_TOKEN [PERF_TOKEN]]');
  process.exit(2);
}
const FIRST_PAINT_MAX_MS = 1000;

let steps = 0;
function ok(what) {
  steps++;
  console.log('ok ' + steps + ' - ' + what);
}

/* the server's answer to a data call, outside the browser */
async function server(method, p, body, tok) {
  const r = await fetch(url + p, {
    method,
    headers: { Authorization: 'Bearer ' + (tok || token), 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: r.status, json: await r.json(), headers: r.headers };
}
async function activeTexts() {
  const r = await server('GET', '/v1/memories');
  assert.equal(r.status, 200);
  return r.json.map((m) => m.text);
}

const alerts = [], pageErrors = [], consoleErrors = [], requests = [];
function watch(page) {
  page.setDefaultTimeout(20000);
  page.on('dialog', (d) => { alerts.push(d.type() + ': ' + d.message()); d.dismiss().catch(() => {}); });
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
  page.on('request', (r) => requests.push({ url: r.url(), auth: r.headers()['authorization'] || '' }));
}

/* the labels every language must give (element -> its text) */
const LABELS = {
  en: { '#sign-out': 'Sign out', '#events-title [data-i18n="eventsTitle"]': 'What you said', '#refresh': 'Refresh',
        '#forget-all': 'Forget everything…', '#mem-search': 'Search' },
  zh: { '#sign-out': '退出', '#events-title [data-i18n="eventsTitle"]': '你说过的话', '#refresh': '刷新',
        '#forget-all': '遗忘全部…', '#mem-search': '搜索' },
};
async function checkLabels(page, lang) {
  for (const [sel, want] of Object.entries(LABELS[lang])) assert.equal((await page.textContent(sel)).trim(), want, sel);
  assert.equal(await page.getAttribute('html', 'lang'), lang === 'zh' ? 'zh-CN' : 'en');
  assert.equal(await page.inputValue('#lang'), lang);
  // every fixed text of the page is set, and none is left in the other language
  const texts = await page.locator('[data-i18n]').allTextContents();
  assert.ok(texts.every((s) => s.trim().length > 0), 'every label has a text');
  const han = texts.filter((s) => /[\u4e00-\u9fff]/.test(s)).length;
  if (lang === 'en') assert.equal(han, 0, 'no Chinese label in English: ' + texts.join(' | '));
  else assert.equal(texts.filter((s) => /^[\x20-\x7e…]*[A-Za-z]{3,}[\x20-\x7e…]*$/.test(s.trim()) &&
                                        !/agentmem/.test(s)).length, 0,
                    'no English-only label in Chinese: ' + texts.join(' | '));
  const ph = await page.getAttribute('#filter', 'placeholder');
  assert.equal(/[\u4e00-\u9fff]/.test(ph), lang === 'zh', 'the search box placeholder: ' + ph);
}

(async () => {
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  const context = await browser.newContext({ viewport: { width: 1180, height: 900 }, deviceScaleFactor: 1,
                                             locale: 'en-US' });
  const page = await context.newPage();
  watch(page);

  // --- the page itself, in the browser's language (English)
  const resp = await page.goto(url + '/');
  assert.equal(resp.status(), 200);
  const csp = resp.headers()['content-security-policy'] || '';
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /script-src 'self'(;|$)/);
  ok('GET / answers the page with a Content-Security-Policy: ' + csp);
  await page.locator('#sign-in').waitFor({ state: 'visible' });
  assert.equal(await page.locator('#inspector').isVisible(), false);
  assert.equal((await page.textContent('#sign-in-title')).trim(), 'Sign in');
  ok('signed out at first: the sign-in form in English (navigator.language en-US), no data');

  // --- a wrong token
  await page.fill('#token', 'amk_' + 'A'.repeat(43));
  await page.click('#sign-in-button');
  await page.locator('#sign-in-error').waitFor({ state: 'visible' });
  const wrong = await page.textContent('#sign-in-error');
  assert.match(wrong, /refused this token/);
  assert.match(wrong, /401/);
  assert.equal(await page.locator('#inspector').isVisible(), false);
  assert.equal(await page.evaluate(() => sessionStorage.length), 0);
  ok('a wrong token shows an error (' + wrong.trim() + ') and keeps nothing');

  // --- signing in
  await page.fill('#token', token);
  await page.click('#sign-in-button');
  await page.locator('#inspector').waitFor({ state: 'visible' });
  await page.locator('#memories li.memory').first().waitFor();
  await page.locator('#who').waitFor({ state: 'visible' });
  assert.equal(await page.textContent('#who-user'), user);
  assert.equal(await page.locator('#sign-in-error').isVisible(), false);
  assert.equal(await page.inputValue('#token'), '');
  await checkLabels(page, 'en');
  ok('signed in as ' + user + ', every label in English');

  const cardTexts = async () => page.locator('#memories li.memory .text').allTextContents();
  let shown = await cardTexts();
  const want = await activeTexts();
  assert.deepEqual([...shown].sort(), [...want].sort(), 'the page shows the active memories');
  for (const t of ['以后周报都按三段写', '我住在杭州', '我不吃香菜'])
    assert.ok(shown.some((s) => s.includes(t)), 'Chinese memory shown: ' + t);
  for (const t of ['always write the minutes in English', 'allergic to peanuts'])
    assert.ok(shown.some((s) => s.includes(t)), 'English memory shown: ' + t);
  assert.equal(await page.locator('#mem-more').isVisible(), false, 'one page: no "Load more"');
  ok('the ' + shown.length + ' active memories are shown, Chinese and English: ' + shown.join(' | '));

  const card = (text) => page.locator('#memories li.memory', { has: page.locator('.text', { hasText: text }) });
  const home = card('我住在杭州');
  assert.equal(await home.count(), 1);
  const head = await home.locator('.head').textContent();
  assert.match(head, /profile/);
  assert.match(head, /active/);
  assert.match(head, /\d+%/);
  const valid = await home.locator('dd.valid').textContent();
  assert.match(valid, /^2026-03-03 12:00:00 UTC → now$/);
  ok('a memory shows kind, key, status, confidence and validity: ' + head.trim() + ' / ' + valid);

  // --- stored markup stays text
  const xss = card('Call me <img src=x onerror=alert(1)>');
  assert.equal(await xss.count(), 1, 'the markup memory is shown with its text as written');
  assert.equal(await page.locator('img').count(), 0, 'no <img> element was made');
  const sessions = await page.locator('#session-pick option').allTextContents();
  assert.ok(sessions.includes('s-<b>x</b>'), 'a session named with markup is shown as text: ' + sessions);
  assert.equal(await page.locator('#session-pick b, #events b').count(), 0);
  assert.ok((await page.locator('#events .event-text').allTextContents())
    .includes('Call me <img src=x onerror=alert(1)>'));
  ok('stored markup is shown as text (no element made, no script ran)');

  // --- the events, newest first, as the server lists them
  const evTexts = await page.locator('#events .event-text').allTextContents();
  const evServer = await server('GET', '/v1/events');
  assert.equal(evServer.status, 200);
  assert.deepEqual(evTexts, evServer.json.events.map((e) => e.content));
  assert.equal(evTexts[0], '我不吃香菜', 'the newest first');
  ok('the events, newest first: ' + evTexts.join(' | '));

  // --- why: the sources
  await home.locator('button.act-sources').click();
  const src = home.locator('.sources li.source');
  await src.first().waitFor();
  assert.equal(await src.count(), 1);
  assert.equal(await src.locator('.source-text').textContent(), '我住在杭州');
  const srcLine = await src.locator('summary').textContent();
  assert.match(srcLine, /^2026-03-03 20:00:00 \+08:00 · session s-home · user/);
  const eventId = await src.getAttribute('data-event');
  await src.locator('a.jump').click();
  assert.equal(new URL(page.url()).hash, '#ev-' + eventId);
  assert.equal(await page.locator('#events li.event:target .event-text').textContent(), '我住在杭州');
  ok('the sources of a memory open to the event, its time and session, linked to the history: ' + srcLine);
  const peanutSrc = card('allergic to peanuts');
  await peanutSrc.locator('button.act-sources').click();
  assert.equal(await peanutSrc.locator('.source-text').textContent(), 'I am allergic to peanuts');
  await peanutSrc.locator('button.act-sources').click();
  assert.equal(await peanutSrc.locator('.sources li').count(), 0);
  ok('an English memory\'s source opens and closes');

  // --- confirm
  const minutes = card('always write the minutes in English');
  const confBefore = await minutes.locator('.confidence').textContent();
  await minutes.locator('button.act-confirm').click();
  await page.locator('#notice', { hasText: 'Confirmed' }).waitFor();
  const confAfter = await card('always write the minutes in English').locator('.confidence').textContent();
  ok('confirm: ' + confBefore + ' → ' + confAfter);

  // --- correct (with new text): the new version is shown
  await home.locator('button.act-correct').click();
  await page.locator('#correct-dialog').waitFor({ state: 'visible' });
  assert.equal(await page.inputValue('#correct-text'), '我住在杭州');
  await page.fill('#correct-text', '我住在上海');
  await page.click('#correct-save');
  await page.locator('#correct-dialog').waitFor({ state: 'hidden' });
  const moved = card('我住在上海');
  await moved.waitFor();
  assert.equal(await card('我住在杭州').count(), 0, 'the old text is no longer in force');
  const rows = moved.locator('.versions table tbody tr');
  await rows.first().waitFor();
  const versions = await rows.evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((td) => td.textContent)));
  assert.ok(versions.length >= 2, 'at least two versions: ' + JSON.stringify(versions));
  const last = versions[versions.length - 1], first = versions[0];
  assert.equal(last[0], '我住在上海');
  assert.equal(last[4], 'now');
  assert.equal(last[6], 'current');
  assert.equal(first[0], '我住在杭州');
  assert.notEqual(first[6], 'current', 'the old version was superseded');
  const active = await activeTexts();
  assert.ok(active.includes('我住在上海') && !active.includes('我住在杭州'), 'the server has the correction');
  ok('correct: 我住在杭州 → 我住在上海, versions shown: ' + versions.map((v) => v[0] + ' [' + v[3] + ' → ' + v[4] +
     '; recorded ' + v[5] + ', superseded ' + v[6] + ']').join(' / '));

  // --- search: memories (Chinese, English), then events (Chinese, English without case)
  const searchMem = async (q) => {
    await page.fill('#filter', q);
    await page.click('#mem-search');
    await page.waitForFunction((want) => {
      const s = document.getElementById('summary').textContent;
      return want ? s.includes('"' + want + '"') : !s.includes('matching');
    }, q);
    return cardTexts();
  };
  assert.deepEqual(await searchMem('上海'), ['我住在上海']);
  const srv = await server('GET', '/v1/memories?q=' + encodeURIComponent('上海'));
  assert.deepEqual(srv.json.map((m) => m.text), ['我住在上海']);
  assert.deepEqual(await searchMem('MINUTES'), ['From now on, always write the minutes in English']);
  assert.equal((await searchMem('no such thing')).length, 0);
  assert.match(await page.textContent('#empty'), /No memory matches "no such thing"/);
  assert.equal((await searchMem('')).length, want.length);
  ok('memory search through ?q=: 上海 → one, MINUTES → one, nothing → "No memory matches", empty → all');
  const searchEv = async (q) => {
    await page.fill('#ev-filter', q);
    await page.click('#ev-search');
    await page.waitForFunction((want) => {
      const s = document.getElementById('ev-summary').textContent;
      return want ? s.includes('"' + want + '"') : !s.includes('holding');
    }, q);
    return page.locator('#events .event-text').allTextContents();
  };
  assert.deepEqual(await searchEv('香菜'), ['我不吃香菜']);
  assert.deepEqual(await searchEv('PEANUTS'), ['I am allergic to peanuts']);
  assert.equal((await searchEv('')).length, evTexts.length);
  ok('event search through GET /v1/events?q=: 香菜 → one, PEANUTS → one, empty → all');

  // --- the English screenshot: sources and versions open
  // (its sources stay open from before the correction: the same memory)
  assert.equal(await card('我住在上海').locator('button.act-sources').getAttribute('aria-expanded'), 'true');
  await card('我住在上海').locator('.sources li.source').first().waitFor();
  await page.locator('#notice').evaluate((n) => { n.hidden = true; });
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: path.join(shotDir, 'inspector-en.png'), fullPage: true });
  ok('screenshot saved to ' + path.join(shotDir, 'inspector-en.png'));

  // --- the switch: Chinese, every label; the lists drawn again in Chinese
  await page.selectOption('#lang', 'zh');
  await checkLabels(page, 'zh');
  await page.locator('#memories li.memory button.act-confirm', { hasText: '确认' }).first().waitFor();
  assert.match(await page.textContent('#summary'), /^显示 \d+ 条生效的记忆。$/);
  assert.match(await page.textContent('#ev-summary'), /条事件/);
  const zhHead = await card('我住在上海').locator('.head').textContent();
  assert.match(zhHead, /个人信息/);
  assert.match(zhHead, /生效/);
  await card('我住在上海').locator('.version-table th', { hasText: '被取代于' }).waitFor();
  assert.match(await card('我住在上海').locator('dd.valid').textContent(), /→ 至今$/);
  assert.match(await card('我住在上海').locator('.sources-note').textContent(), /为什么/);
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: path.join(shotDir, 'inspector-zh.png'), fullPage: true });
  ok('the switch to 中文: every label, the cards, sources and versions in Chinese (' + zhHead.trim() +
     '); screenshot saved to ' + path.join(shotDir, 'inspector-zh.png'));
  // a message in Chinese: the delete dialog, cancelled
  await card('allergic to peanuts').locator('button.act-delete').click();
  const dlg = page.locator('#confirm-dialog');
  await dlg.waitFor({ state: 'visible' });
  assert.equal(await page.textContent('#confirm-title'), '删除这条记忆？');
  assert.match(await page.textContent('#confirm-text'), /彻底删除/);
  assert.equal(await page.textContent('#confirm-cancel'), '取消');
  await page.click('#confirm-cancel');
  await dlg.waitFor({ state: 'hidden' });
  assert.equal(await card('allergic to peanuts').count(), 1, 'cancelled: still there');
  await page.selectOption('#lang', 'en');
  await checkLabels(page, 'en');
  await page.locator('#memories li.memory button.act-confirm', { hasText: 'Confirm' }).first().waitFor();
  ok('delete, cancelled, with its dialog in Chinese; back to English');

  // --- delete one memory: gone from the page and from the server
  const peanutLineage = await card('allergic to peanuts').getAttribute('data-lineage');
  await card('allergic to peanuts').locator('button.act-delete').click();
  await dlg.waitFor({ state: 'visible' });
  assert.equal(await page.textContent('#confirm-title'), 'Delete this memory?');
  await page.click('#confirm-ok');
  await page.locator('#notice', { hasText: 'Deleted: "I am allergic to peanuts"' }).waitFor();
  await card('allergic to peanuts').waitFor({ state: 'detached' });
  const gone1 = await server('GET', '/v1/memories/' + peanutLineage);
  assert.equal(gone1.status, 404, 'GET /v1/memories/{id} after the delete: ' + JSON.stringify(gone1.json));
  const allVersions = await server('GET', '/v1/memories?all=1');
  assert.ok(!allVersions.json.some((m) => /peanuts/.test(m.text)), 'no version left');
  await page.check('#show-all');
  await page.locator('#summary', { hasText: 'with past versions' }).waitFor();
  assert.equal(await card('allergic to peanuts').count(), 0);
  await page.uncheck('#show-all');
  await page.locator('#summary', { hasText: 'in force' }).waitFor();
  ok('delete: ' + (await page.textContent('#notice')).trim() + '; the server answers 404 and keeps no version');

  // --- reject
  const rejected = card('Call me <img src=x onerror=alert(1)>');
  await rejected.locator('button.act-reject').click();
  await page.locator('#notice', { hasText: 'Rejected' }).waitFor();
  await rejected.waitFor({ state: 'detached' });
  assert.ok(!(await activeTexts()).some((t) => t.includes('Call me')), 'the server no longer holds it in force');
  await page.check('#show-all');
  await page.locator('#summary', { hasText: 'with past versions' }).waitFor();
  assert.ok(await page.locator('#memories li.memory.past .text', { hasText: 'Call me' }).count() >= 1);
  await page.uncheck('#show-all');
  await page.locator('#summary', { hasText: 'in force' }).waitFor();
  ok('reject: the memory leaves the list (and is kept as a past version)');

  // --- forget a session: cancelled first, then confirmed
  await page.selectOption('#session-pick', 's-tea');
  await page.click('#forget-session');
  await dlg.waitFor({ state: 'visible' });
  assert.match(await page.textContent('#confirm-title'), /Forget session "s-tea"\?/);
  await page.click('#confirm-cancel');
  await dlg.waitFor({ state: 'hidden' });
  assert.equal(await card('我不吃香菜').count(), 1);
  assert.ok((await activeTexts()).includes('我不吃香菜'));
  ok('forget session, cancelled: nothing is forgotten');
  await page.selectOption('#session-pick', 's-tea');
  await page.click('#forget-session');
  await dlg.waitFor({ state: 'visible' });
  await page.click('#confirm-ok');
  await page.locator('#notice', { hasText: 'Forgot session "s-tea"' }).waitFor();
  await card('我不吃香菜').waitFor({ state: 'detached' });
  assert.ok(!(await page.locator('#session-pick option').allTextContents()).includes('s-tea'));
  const evs = await server('GET', '/v1/events');
  assert.ok(!evs.json.events.some((e) => e.session === 's-tea'), 'the server has no event of s-tea');
  assert.ok(evs.json.events.some((e) => e.session === 's-work'), 'other sessions stay');
  assert.ok(await card('以后周报都按三段写').count() === 1);
  ok('forget session, confirmed: ' + (await page.textContent('#notice')));

  // --- the sign-in survives a reload (sessionStorage), sign out clears it
  await page.reload();
  await page.locator('#memories li.memory').first().waitFor();
  assert.equal(await page.textContent('#who-user'), user);
  await page.click('#sign-out');
  await page.locator('#sign-in').waitFor({ state: 'visible' });
  assert.equal(await page.evaluate(() => sessionStorage.length), 0);
  assert.equal(await page.locator('#memories li').count(), 0);
  assert.equal(await page.locator('#events li').count(), 0);
  ok('a reload keeps the sign-in; sign out clears the token and the page');

  // --- another user's token sees only that user
  if (otherToken) {
    await page.fill('#token', otherToken);
    await page.click('#sign-in-button');
    await page.locator('#inspector').waitFor({ state: 'visible' });
    await page.locator('#events li.event').first().waitFor();
    const body = await page.textContent('main');
    assert.ok(body.includes('vault code is 4711'));
    assert.ok(!/杭州|上海|周报|peanuts|香菜/.test(body), 'nothing of ' + user + ' is shown to bob');
    await page.click('#sign-out');
    await page.locator('#sign-in').waitFor({ state: 'visible' });
    ok('another user\'s token shows that user\'s memories only');
  }

  // --- a browser in Chinese: the page starts in Chinese; the switch goes to English
  {
    const zhContext = await browser.newContext({ viewport: { width: 1180, height: 900 }, locale: 'zh-CN' });
    const zp = await zhContext.newPage();
    watch(zp);
    await zp.goto(url + '/');
    assert.equal(await zp.evaluate(() => navigator.language), 'zh-CN');
    await zp.locator('#sign-in').waitFor({ state: 'visible' });
    assert.equal((await zp.textContent('#sign-in-title')).trim(), '登录');
    assert.equal(await zp.getAttribute('html', 'lang'), 'zh-CN');
    await zp.fill('#token', 'amk_' + 'B'.repeat(43));
    await zp.click('#sign-in-button');
    await zp.locator('#sign-in-error', { hasText: '服务器拒绝了这个令牌' }).waitFor();
    await zp.fill('#token', token);
    await zp.click('#sign-in-button');
    await zp.locator('#memories li.memory').first().waitFor();
    await zp.locator('#who').waitFor({ state: 'visible' });
    await checkLabels(zp, 'zh');
    assert.match(await zp.textContent('#summary'), /条生效的记忆/);
    await zp.selectOption('#lang', 'en');
    await checkLabels(zp, 'en');
    await zp.reload();
    await zp.locator('#memories li.memory').first().waitFor();
    assert.equal(await zp.inputValue('#lang'), 'en', 'the language picked outlives a reload');
    await zhContext.close();
    ok('navigator.language zh-CN: the page in Chinese (sign-in, a refused token, every label), the switch to ' +
       'English kept over a reload');
  }

  // --- 10,000 events: the first list under a second; pages and search over the whole history
  if (perfToken) {
    const pc = await browser.newContext({ viewport: { width: 1180, height: 900 }, locale: 'en-US' });
    await pc.addInitScript((tok) => {
      if (!sessionStorage.getItem('agentmem.inspector.token')) sessionStorage.setItem('agentmem.inspector.token', tok);
    }, perfToken);
    const pp = await pc.newPage();
    watch(pp);
    const firstPaint = async () => {
      await pp.waitForFunction(() => performance.getEntriesByName('inspector-first-list').length > 0,
                               null, { timeout: 20000 });
      return pp.evaluate(() => performance.getEntriesByName('inspector-first-list')[0].startTime);
    };
    // three loads: the first, and two reloads; the median is held to the bound (one
    // load slowed by another process on the machine is not the page's time)
    await pp.goto(url + '/');
    const loads = [await firstPaint()];
    for (let i = 0; i < 2; i++) {
      await pp.reload();
      loads.push(await firstPaint());
    }
    const median = [...loads].sort((a, b) => a - b)[1];
    const total = await server('GET', '/v1/events?limit=1', undefined, perfToken);
    assert.ok(total.json.next_cursor, 'the perf user has more than one event');
    assert.equal(await pp.locator('#memories li.memory').count(), 50);
    assert.equal(await pp.locator('#events li.event').count(), 50);
    const shown = loads.map((x) => x.toFixed(0) + ' ms').join(', ');
    console.log('first paint with 10,000 events: ' + shown + ' (first load, two reloads); median ' +
                median.toFixed(0) + ' ms');
    assert.ok(median < FIRST_PAINT_MAX_MS, 'first paint: ' + shown);
    ok('10,000 events: the first lists painted ' + shown + ' after navigation (median ' + median.toFixed(0) +
       ' ms, under ' + FIRST_PAINT_MAX_MS + ' ms): 50 memories and 50 events');

    // the next page of events: the server's own, no event twice
    const idsOf = () => pp.locator('#events li.event').evaluateAll((lis) => lis.map((li) => li.id.slice(3)));
    const page1 = await idsOf();
    await pp.click('#ev-more');
    await pp.locator('#events li.event').nth(99).waitFor();
    const both = await idsOf();
    assert.equal(both.length, 100);
    assert.equal(new Set(both).size, 100, 'no event twice');
    assert.deepEqual(both.slice(0, 50), page1);
    const s1 = await server('GET', '/v1/events?limit=50', undefined, perfToken);
    const s2 = await server('GET', '/v1/events?limit=50&cursor=' + encodeURIComponent(s1.json.next_cursor),
                            undefined, perfToken);
    assert.deepEqual(both.slice(50), s2.json.events.map((e) => e.id));
    assert.equal(s2.headers.get('x-next-cursor'), s2.json.next_cursor);
    const times = await pp.locator('#events .event-line').allTextContents();
    assert.ok(times.every((x, i) => i === 0 || x.slice(0, 19) <= times[i - 1].slice(0, 19)), 'newest first');
    await pp.click('#mem-more');
    await pp.locator('#memories li.memory').nth(50).waitFor();
    const memIds = await pp.locator('#memories li.memory').evaluateAll((lis) => lis.map((li) => li.dataset.id));
    assert.ok(memIds.length > 50 && new Set(memIds).size === memIds.length, 'a second page of memories');
    ok('"Load more": events 51-100 are the server\'s next page (no event twice, newest first); memories ' +
       memIds.length + ' after the second page');

    // search over the whole history, then its next page
    const searchP = async (q) => {
      await pp.fill('#ev-filter', q);
      await pp.click('#ev-search');
      await pp.locator('#ev-summary', { hasText: '"' + q + '"' }).waitFor();
      return pp.locator('#events .event-text').allTextContents();
    };
    const lis = await searchP('lisbon');
    assert.equal(lis.length, 50);
    assert.ok(lis.every((x) => x.includes('Lisbon')), 'every event found holds Lisbon');
    await pp.click('#ev-more');
    await pp.locator('#events li.event').nth(99).waitFor();
    const lis2 = await pp.locator('#events .event-text').allTextContents();
    assert.ok(lis2.every((x) => x.includes('Lisbon')) && new Set(lis2).size === 100);
    const cafe = await searchP('咖啡');
    assert.ok(cafe.length === 50 && cafe.every((x) => x.includes('咖啡')), 'every event found holds 咖啡');
    const oldest = await searchP('#7');
    assert.ok(oldest.length > 0 && oldest.every((x) => x.includes('#7')));
    // memories: a word of the last memory shown, searched for; the server's own answer
    const lastText = await pp.locator('#memories li.memory .text').last().textContent();
    const word = (lastText.match(/[\u4e00-\u9fff]{2}|[A-Za-z]{4,}/) || [lastText.slice(0, 2)])[0];
    await pp.fill('#filter', word);
    await pp.click('#mem-search');
    await pp.locator('#summary', { hasText: '"' + word + '"' }).waitFor();
    const found = await pp.locator('#memories li.memory').evaluateAll((l) => l.map((li) =>
      li.querySelector('.text').textContent + ' ' + li.querySelector('.key').textContent));
    const fromServer = await server('GET', '/v1/memories?limit=50&q=' + encodeURIComponent(word), undefined,
                                    perfToken);
    assert.ok(found.length > 0 && found.every((x) => x.toLowerCase().includes(word.toLowerCase())),
              'memories holding ' + word);
    assert.equal(found.length, fromServer.json.length);
    ok('search over 10,000 events: lisbon (two pages, 100 events each holding it), 咖啡, #7; memories holding "' +
       word + '": ' + found.length);
    await pc.close();
  }

  // --- forget everything: the dialog wants the user's name typed
  await page.fill('#token', token);
  await page.click('#sign-in-button');
  await page.locator('#memories li.memory').first().waitFor();
  await page.click('#forget-all');
  await dlg.waitFor({ state: 'visible' });
  assert.equal(await page.locator('#confirm-ok').isDisabled(), true, 'not before the name is typed');
  await page.fill('#confirm-type', 'someone else');
  assert.equal(await page.locator('#confirm-ok').isDisabled(), true);
  await page.fill('#confirm-type', user);
  assert.equal(await page.locator('#confirm-ok').isDisabled(), false);
  await page.click('#confirm-ok');
  await page.locator('#notice', { hasText: 'was forgotten' }).waitFor();
  const forgotten = (await page.textContent('#notice')).trim();
  assert.equal(await page.locator('#sign-in').isVisible(), true, 'signed out');
  assert.equal(await page.evaluate(() => sessionStorage.length), 0);
  const gone = await server('GET', '/v1/memories');
  assert.equal(gone.status, 401, 'the forgotten user\'s token went with it');
  await page.fill('#token', token);
  await page.click('#sign-in-button');
  await page.locator('#sign-in-error', { hasText: 'refused this token' }).waitFor();
  ok('forget everything, confirmed by typing the name: ' + forgotten + ' Signing in again: ' +
     (await page.textContent('#sign-in-error')).trim());

  // --- throughout
  assert.deepEqual(alerts, [], 'no alert, confirm or prompt was opened');
  assert.deepEqual(pageErrors, [], 'no script error');
  const cspErrors = consoleErrors.filter((m) => /Content Security Policy|Refused to/.test(m));
  assert.deepEqual(cspErrors, [], 'no CSP violation');
  const secrets = [token, otherToken, perfToken].filter(Boolean);
  assert.ok(requests.every((r) => secrets.every((s) => !r.url.includes(s))), 'no token in a URL');
  const dataCalls = requests.filter((r) => new URL(r.url).pathname.startsWith('/v1/'));
  assert.ok(dataCalls.length > 10);
  assert.ok(dataCalls.every((r) => /^Bearer amk_/.test(r.auth)), 'every data call carried the bearer header');
  assert.ok(!dataCalls.some((r) => new URL(r.url).pathname === '/v1/export'), 'the page never read /v1/export');
  ok('throughout: no alert, no script error, no CSP violation, no token in a URL (' + requests.length +
     ' requests), every data call with the bearer header, never /v1/export');

  await browser.close();
  console.log('inspector.test.js: ' + steps + ' checks passed');
})().catch((e) => {
  console.error('FAIL: ' + (e && e.stack ? e.stack : e));
  process.exit(1);
});
