// SPDX-License-Identifier: Apache-2.0
// agentmem's MCP server against the official TypeScript SDK of each
// protocol revision's era (package.json: one alias per era, pinned).
//   node test.mjs AGENTMEM DIR URL TOKEN
// AGENTMEM: the CLI (`agentmem --db DIR/<era>.db mcp --user U` is the stdio
// server); URL and TOKEN: a running `agentmem serve` and a token of user
// U_HTTP on it (POST URL/mcp).  Each era's Client connects, and the test
// checks the revision agreed, tools/list (annotations, title, outputSchema
// as that revision has them), remember in Chinese and English, recall
// finding them, list_memories' lines for the model and (2025-06-18 on) its
// structuredContent, which the newer SDKs check against the outputSchema,
// and get_profile's card of both.
// The newest SDK does not speak 2026-07-28 (its latest is 2025-11-25):
// that revision is tested with raw JSON-RPC over HTTP and stdio.
// Prints one line per check; exits 1 when any fails.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

const [cli, dir, url, token] = process.argv.slice(2);
if (!cli || !dir || !url || !token) {
  console.error('usage: node test.mjs AGENTMEM DIR URL TOKEN');
  process.exit(2);
}
const pkg = (alias) =>
  JSON.parse(readFileSync(new URL(`./node_modules/${alias}/package.json`, import.meta.url)));

let passed = 0, failed = 0;
function check(ok, what, detail) {
  if (ok) passed++;
  else {
    failed++;
    console.log(`FAIL: ${what}${detail === undefined ? '' : ': ' + JSON.stringify(detail).slice(0, 600)}`);
  }
}

// Each era: the alias, the revision its SDK asks for, whether it has the
// Streamable HTTP client, and what that revision knows of a tool.
const eras = [
  { alias: 'sdk-2024-11-05', rev: '2024-11-05', http: false, annotations: false, structured: false },
  { alias: 'sdk-2025-03-26', rev: '2025-03-26', http: true, annotations: true, structured: false },
  { alias: 'sdk-2025-06-18', rev: '2025-06-18', http: true, annotations: true, structured: true },
  { alias: 'sdk-2025-11-25', rev: '2025-11-25', http: true, annotations: true, structured: true },
  { alias: 'sdk-latest', rev: '2025-11-25', http: true, annotations: true, structured: true },
];

// Record the protocolVersion of the initialize result the client reads.
function watch(transport) {
  const seen = { version: null };
  const start = transport.start.bind(transport);
  transport.start = async () => {
    const handler = transport.onmessage;
    transport.onmessage = (msg, extra) => {
      if (msg && msg.result && typeof msg.result.protocolVersion === 'string')
        seen.version = msg.result.protocolVersion;
      return handler(msg, extra);
    };
    return start();
  };
  return seen;
}

const text = (res) => (res.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');

async function exercise(era, how, client, seen, zh, en) {
  const tag = `${era.alias} (${era.rev}) over ${how}`;
  const version = pkg(era.alias).version;
  check(seen.version === era.rev, `${tag}: the revision agreed`, seen.version);
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  for (const n of ['remember', 'recall', 'task_state', 'list_memories', 'feedback', 'forget',
                   'update_memory', 'delete_memory', 'get_profile'])
    check(names.includes(n), `${tag}: tools/list has ${n}`, names);
  const lm = tools.find((t) => t.name === 'list_memories') || {};
  check(!!lm.annotations === era.annotations, `${tag}: annotations`, lm);
  check(!!lm.title === era.structured, `${tag}: title`, lm);
  check(!!lm.outputSchema === era.structured, `${tag}: outputSchema`, lm);
  for (const said of [zh, en]) {
    const r = await client.callTool({ name: 'remember', arguments: { text: said } });
    check(!r.isError, `${tag}: remember ${said}`, r);
    check(('structuredContent' in r) === era.structured, `${tag}: remember's structuredContent`, r);
  }
  const rz = await client.callTool({ name: 'recall', arguments: { query: '周报怎么写？' } });
  check(text(rz).includes('三段'), `${tag}: recall (zh) finds the preference`, rz);
  const re = await client.callTool({ name: 'recall', arguments: { query: 'Can I eat peanut butter?' } });
  check(text(re).includes('peanuts'), `${tag}: recall (en) finds the allergy`, re);
  // SDKs from 2025-06-18 on validate structuredContent against the outputSchema here
  const l = await client.callTool({ name: 'list_memories', arguments: {} });
  const lines = text(l).split('\n');
  check(!l.isError && !text(l).includes('{'), `${tag}: list_memories' text is not JSON`, l);
  check(lines.some((x) => x.startsWith('- preference: 以后周报都按三段写 (key ')),
        `${tag}: list_memories has the zh preference line`, lines);
  check(lines.some((x) => /^- constraint: I'm allergic to peanuts \(key .*id [0-9A-Z]{26}\)$/.test(x)),
        `${tag}: list_memories has the en constraint line`, lines);
  if (era.structured) {
    const items = (l.structuredContent || {}).memories || [];
    check(items.length === lines.length, `${tag}: a line per item of structuredContent`, l);
    check(items.every((m) => text(l).includes(m.lineage_id)), `${tag}: each line names its item's id`, l);
  } else {
    check(!('structuredContent' in l), `${tag}: no structuredContent before 2025-06-18`, l);
  }
  // the profile card: the zh and en items, the budget an integer
  const gp = tools.find((t) => t.name === 'get_profile') || {};
  check(gp.inputSchema?.properties?.budget?.type === 'integer', `${tag}: get_profile's budget`, gp);
  const p = await client.callTool({ name: 'get_profile', arguments: { budget: 400 } });
  check(!p.isError && text(p).includes('三段') && text(p).includes('peanuts'),
        `${tag}: get_profile has both items`, p);
  check(('structuredContent' in p) === era.structured &&
        (!era.structured || p.structuredContent.text === text(p)), `${tag}: get_profile's structuredContent`, p);
  const pb = await client.callTool({ name: 'get_profile', arguments: { budget: 0 } });
  check(pb.isError === true && text(pb).includes('budget'), `${tag}: get_profile refuses budget 0`, pb);
  // a refusal is a tool result the model can read
  const bad = await client.callTool({ name: 'list_memories', arguments: { all: 'yes' } });
  check(bad.isError === true && text(bad).includes('all'), `${tag}: a bad argument is isError naming it`, bad);
  console.log(`ok ${tag}: SDK ${version}, ${tools.length} tools, ${lines.length} memories`);
}

async function stdioEra(era, n) {
  const { Client } = await import(`${era.alias}/client/index.js`);
  const { StdioClientTransport } = await import(`${era.alias}/client/stdio.js`);
  const transport = new StdioClientTransport({
    command: cli,
    args: ['--db', `${dir}/stdio-${n}.db`, 'mcp', '--user', `u${n}`, '--agent', 'sdk'],
    stderr: 'ignore',
  });
  const seen = watch(transport);
  const client = new Client({ name: 'agentmem-test', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  try {
    await exercise(era, 'stdio', client, seen, '以后周报都按三段写', "I'm allergic to peanuts");
  } finally {
    await client.close();
  }
}

async function httpEra(era) {
  const { Client } = await import(`${era.alias}/client/index.js`);
  const { StreamableHTTPClientTransport } = await import(`${era.alias}/client/streamableHttp.js`);
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const seen = watch(transport);
  const client = new Client({ name: 'agentmem-test', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  try {
    await exercise(era, 'HTTP', client, seen, '以后周报都按三段写', "I'm allergic to peanuts");
  } finally {
    await client.close();
  }
}

// ---- 2026-07-28: stateless, raw JSON-RPC (no SDK release speaks it yet)
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

async function modernHttp() {
  let id = 0;
  const post = async (method, params, name) => {
    const headers = {
      Authorization: `Bearer ${token}`, 'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': method,
    };
    if (name) headers['Mcp-Name'] = name;
    const res = await fetch(`${url}/mcp`, {
      method: 'POST', headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params: { ...params, _meta: META } }),
    });
    return { status: res.status, body: await res.json() };
  };
  const d = await post('server/discover', {});
  check(d.status === 200 && (d.body.result?.supportedVersions || []).includes('2026-07-28'),
        '2026-07-28 over HTTP: server/discover', d);
  const r = await post('tools/call', { name: 'remember', arguments: { text: '我不吃香菜' } }, 'remember');
  check(r.status === 200 && r.body.result?.resultType === 'complete', '2026-07-28 over HTTP: remember', r);
  const l = await post('tools/call', { name: 'list_memories', arguments: {} }, 'list_memories');
  const t = l.body.result?.content?.[0]?.text || '';
  check(/^- \w+: 我不吃香菜 \(key /m.test(t) && !t.includes('{') &&
        Array.isArray(l.body.result?.structuredContent?.memories),
        '2026-07-28 over HTTP: list_memories (lines, structuredContent)', l);
  const tl = await post('tools/list', {});
  const lm = (tl.body.result?.tools || []).find((x) => x.name === 'list_memories');
  check(!!lm?.outputSchema && tl.body.result?.resultType === 'complete', '2026-07-28 over HTTP: tools/list', tl);
  console.log('ok 2026-07-28 over HTTP (raw JSON-RPC)');
}

async function modernStdio() {
  const child = spawn(cli, ['--db', `${dir}/stdio-modern.db`, 'mcp', '--user', 'um'],
                      { stdio: ['pipe', 'pipe', 'ignore'] });
  const lines = [];
  let buf = '', waiting = null;
  child.stdout.on('data', (d) => {
    buf += d;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      lines.push(JSON.parse(buf.slice(0, i)));
      buf = buf.slice(i + 1);
      if (waiting) waiting();
    }
  });
  let id = 0;
  const rpc = (method, params) => new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no reply to ${method}`)), 20000);
    waiting = () => { if (lines.length) { clearTimeout(timer); waiting = null; resolve(lines.shift()); } };
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params: { ...params, _meta: META } }) + '\n');
  });
  const d = await rpc('server/discover', {});
  check((d.result?.supportedVersions || []).includes('2026-07-28'), '2026-07-28 over stdio: server/discover', d);
  const r = await rpc('tools/call', { name: 'remember', arguments: { text: 'I never drink coffee after 2pm' } });
  check(r.result?.resultType === 'complete' && !r.result?.isError, '2026-07-28 over stdio: remember', r);
  const l = await rpc('tools/call', { name: 'list_memories', arguments: {} });
  const t = l.result?.content?.[0]?.text || '';
  check(/^- \w+: I never drink coffee after 2pm \(/.test(t) && Array.isArray(l.result?.structuredContent?.memories),
        '2026-07-28 over stdio: list_memories', l);
  child.stdin.end();
  await new Promise((resolve) => child.on('close', resolve));
  console.log('ok 2026-07-28 over stdio (raw JSON-RPC)');
}

const latest = pkg('sdk-latest');
try {
  for (let i = 0; i < eras.length; i++) await stdioEra(eras[i], i);
  // one user on the server: each era's run adds the same two statements,
  // which the engine finds again (one item each)
  for (const era of eras) if (era.http) await httpEra(era);
  await modernHttp();
  await modernStdio();
} catch (e) {
  check(false, 'the run', String(e && e.stack || e));
}
console.log(`SDK latest ${latest.version}: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
