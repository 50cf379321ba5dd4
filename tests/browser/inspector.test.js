/*
 * inspector.test.js -- the memory inspector in headless Chromium (run by
 * tests/sh/inspector.sh, which makes the store and starts the server).
 *
 * usage: node inspector.test.js URL TOKEN USER SCREENSHOT.png [OTHER_TOKEN]
 *
 * Drives Debian's /usr/bin/chromium through playwright-core (no browser
 * download) as a user would: a wrong token, signing in, what is shown
 * (Chinese and English), the sources of a memory, a correction and its
 * versions, a rejection, forgetting a session (cancelled once, then
 * confirmed), signing out, another user's token, and forgetting
 * everything.  Each step is also checked against the server's own
 * answers.  Throughout: no script ran from stored text (no alert, no
 * <img> made, no page error, no CSP violation), no token in any URL,
 * every data call carried the bearer header.
 */
'use strict';
const assert = require('node:assert/strict');
const { chromium } = require('playwright-core');

const [url, token, user, shotPath, otherToken] = process.argv.slice(2);
if (!url || !token || !user || !shotPath) {
  console.error('usage: node inspector.test.js URL TOKEN USER SCREENSHOT.png [OTHER_TOKEN]');
  process.exit(2);
}

let steps = 0;
function ok(what) {
  steps++;
  console.log('ok ' + steps + ' - ' + what);
}

/* the server's answer to a data call, outside the browser */
async function server(method, path, body) {
  const r = await fetch(url + path, {
    method,
    headers: { Authorization: 'Bearer ' + token, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: r.status, json: await r.json() };
}
async function activeTexts() {
  const r = await server('GET', '/v1/memories');
  assert.equal(r.status, 200);
  return r.json.map((m) => m.text);
}

(async () => {
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  const context = await browser.newContext({ viewport: { width: 1180, height: 900 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  page.setDefaultTimeout(20000);

  const alerts = [], pageErrors = [], consoleErrors = [], requests = [];
  page.on('dialog', (d) => { alerts.push(d.type() + ': ' + d.message()); d.dismiss().catch(() => {}); });
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
  page.on('request', (r) => requests.push({ url: r.url(), auth: r.headers()['authorization'] || '' }));

  // --- the page itself
  const resp = await page.goto(url + '/');
  assert.equal(resp.status(), 200);
  const csp = resp.headers()['content-security-policy'] || '';
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /script-src 'self'(;|$)/);
  ok('GET / answers the page with a Content-Security-Policy: ' + csp);
  await page.locator('#sign-in').waitFor({ state: 'visible' });
  assert.equal(await page.locator('#inspector').isVisible(), false);
  ok('signed out at first: the sign-in form, no data');

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
  assert.equal(await page.textContent('#who-user'), user);
  assert.equal(await page.locator('#sign-in-error').isVisible(), false);
  assert.equal(await page.inputValue('#token'), '');
  ok('signed in as ' + user);

  const cardTexts = async () => page.locator('#memories li.memory .text').allTextContents();
  let shown = await cardTexts();
  const want = await activeTexts();
  assert.deepEqual([...shown].sort(), [...want].sort(), 'the page shows the active memories');
  for (const t of ['以后周报都按三段写', '我住在杭州', '我不吃香菜'])
    assert.ok(shown.some((s) => s.includes(t)), 'Chinese memory shown: ' + t);
  for (const t of ['always write the minutes in English', 'allergic to peanuts'])
    assert.ok(shown.some((s) => s.includes(t)), 'English memory shown: ' + t);
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
  assert.ok(sessions.some((s) => s.startsWith('s-<b>x</b>')), 'a session named with markup is shown as text');
  assert.equal(await page.locator('#session-pick b, #events b').count(), 0);
  assert.ok((await page.locator('#events .event-text').allTextContents())
    .includes('Call me <img src=x onerror=alert(1)>'));
  ok('stored markup is shown as text (no element made, no script ran)');

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
  assert.ok(versions.some((v) => v[0] === '我住在杭州' && v[4] !== 'now'), 'the old text was valid until the correction');
  const active = await activeTexts();
  assert.ok(active.includes('我住在上海') && !active.includes('我住在杭州'), 'the server has the correction');
  ok('correct: 我住在杭州 → 我住在上海, versions shown: ' + versions.map((v) => v[0] + ' [' + v[3] + ' → ' + v[4] +
     '; recorded ' + v[5] + ', superseded ' + v[6] + ']').join(' / '));

  // --- the screenshot: memories with sources and versions open
  await page.locator('#notice').evaluate((n) => { n.hidden = true; });
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: shotPath, fullPage: true });
  ok('screenshot saved to ' + shotPath);

  // --- reject
  const peanut = card('allergic to peanuts');
  await peanut.locator('button.act-reject').click();
  await page.locator('#notice', { hasText: 'Rejected' }).waitFor();
  await peanut.waitFor({ state: 'detached' });
  assert.ok(!(await activeTexts()).some((t) => t.includes('peanuts')), 'the server no longer holds it in force');
  await page.check('#show-all');
  await page.locator('#summary', { hasText: 'with past versions' }).waitFor();
  assert.ok(await page.locator('#memories li.memory.past .text', { hasText: 'allergic to peanuts' }).count() >= 1);
  await page.uncheck('#show-all');
  await page.locator('#summary', { hasText: 'in force' }).waitFor();
  ok('reject: the memory leaves the list (and is kept as a past version)');

  // --- forget a session: cancelled first, then confirmed
  await page.selectOption('#session-pick', 's-tea');
  await page.click('#forget-session');
  const dlg = page.locator('#confirm-dialog');
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
  assert.ok(!(await page.locator('#session-pick option').allTextContents()).some((s) => s.startsWith('s-tea')));
  const exp = await server('GET', '/v1/export');
  assert.ok(!exp.json.events.some((e) => e.session === 's-tea'), 'the server has no event of s-tea');
  assert.ok(exp.json.events.some((e) => e.session === 's-work'), 'other sessions stay');
  assert.ok(await card('以后周报都按三段写').count() === 1);
  ok('forget session, confirmed: ' + (await page.textContent('#notice')));

  // --- the session survives a reload (sessionStorage), sign out clears it
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
  assert.ok(requests.every((r) => !r.url.includes(token) && !(otherToken && r.url.includes(otherToken))),
            'no token in a URL');
  const dataCalls = requests.filter((r) => new URL(r.url).pathname.startsWith('/v1/'));
  assert.ok(dataCalls.length > 10);
  assert.ok(dataCalls.every((r) => /^Bearer amk_/.test(r.auth)), 'every data call carried the bearer header');
  ok('throughout: no alert, no script error, no CSP violation, no token in a URL (' + requests.length +
     ' requests), every data call with the bearer header');

  await browser.close();
  console.log('inspector.test.js: ' + steps + ' checks passed');
})().catch((e) => {
  console.error('FAIL: ' + (e && e.stack ? e.stack : e));
  process.exit(1);
});
