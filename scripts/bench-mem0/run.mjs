#!/usr/bin/env node
// SPDX-License-Identifier: Apache-2.0
// run.mjs -- LoCoMo evidence recall and search latency of mem0's open-source
// TypeScript package (mem0ai/oss Memory), scored by the rule of
// `agentmem bench locomo` (tools/bench/bench_data.c, bench_score.c):
//
//  * one fresh Memory per conversation, all its turns under one user id;
//    a turn is "Speaker: text" plus " [image: caption]" for image turns,
//    sessions in numeric order;
//  * questions of category 5 are skipped; evidence strings are split on
//    ; , and white space, dots trimmed at both ends, "D1:3-D1:5" / "D1:3-5"
//    ranges expanded; an id is looked up verbatim among the conversation's
//    dia_ids (the first turn with that id); a question none of whose ids
//    resolves is skipped;
//  * recall@k = |gold ∩ top k| / |gold| (a turn counted once), averaged
//    over the questions.
//
// Write path: add(turn, {userId, infer: false, metadata: {dia_id, turn}}):
// no LLM, each turn stored as given (mem0's default infer: true asks an LLM
// to extract facts; none is reachable offline).  Read path: search(question,
// {filters: {user_id}, topK: 10}) -- timed, gives recall@5 and @10; a second
// search with topK 25 gives recall@25 (timed apart).  Embedder: USE lite,
// the weights agentmem's use-lite embedder reads (use_embedder.mjs), through
// mem0's "langchain" embedder provider.  Vector store: mem0's "memory"
// provider on an in-process SQLite ":memory:" database; history off.
//
// usage: node run.mjs [LOCOMO_JSON] [--model DIR] [--backend wasm|cpu]
//                     [--conversations N] [--limit N] [--no-k25]
// LOCOMO_JSON defaults to $AM_BENCH_DIR/locomo/locomo_dev.json (AM_BENCH_DIR
// unset: ../shared/bench, as agentmem bench); DIR to
// ../../models/use-lite.  JSON report on stdout, progress on stderr.
import fs from "node:fs";
import path from "node:path";
import os from "node:os";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { UseLiteEmbeddings } from "./use_embedder.mjs";

// Before mem0 loads: no telemetry or notice requests (they would also put
// network waits into the timings).
process.env.MEM0_TELEMETRY = "false";

const here = path.dirname(fileURLToPath(import.meta.url));
// mem0ai's CommonJS build: its ESM build cannot load the optional NLP
// packages it uses when present (natural: Porter stemming for its BM25;
// compromise: entity extraction), since it reaches them through require().
const require = createRequire(import.meta.url);
const { Memory } = require("mem0ai/oss");

// ------------------------------------------------------------------ args

function parseArgs(argv) {
  const o = {
    data: path.join(process.env.AM_BENCH_DIR || "../shared/bench",
                    "locomo/locomo_dev.json"),
    model: path.join(here, "../../models/use-lite"),
    backend: "wasm",
    conversations: 0,
    limit: 0,
    k25: true,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => {
      if (i + 1 >= argv.length) throw new Error(`${a}: missing value`);
      return argv[++i];
    };
    if (a === "--model") o.model = val();
    else if (a === "--backend") o.backend = val();
    else if (a === "--conversations") o.conversations = Number(val());
    else if (a === "--limit") o.limit = Number(val());
    else if (a === "--no-k25") o.k25 = false;
    else if (a === "-h" || a === "--help") {
      console.log("usage: node run.mjs [LOCOMO_JSON] [--model DIR] [--backend wasm|cpu] " +
                  "[--conversations N] [--limit N] [--no-k25]");
      process.exit(0);
    } else if (a.startsWith("--")) throw new Error(`unknown option ${a}`);
    else o.data = a;
  }
  return o;
}

// ------------------------------------------------------------------ data

// "D12:3" -> [12, 3] or null (1-7 digits each side, as agentmem).
function parseDia(s) {
  const m = /^D(\d{1,7}):(\d{1,7})$/.exec(s);
  return m ? [Number(m[1]), Number(m[2])] : null;
}

// One evidence token -> the ids it stands for (a range expanded).
function expandRef(tok) {
  const dash = tok.indexOf("-");
  if (dash >= 0) {
    const a = parseDia(tok.slice(0, dash));
    const r = tok.slice(dash + 1);
    if (a) {
      let t2 = null;
      const b = parseDia(r);
      if (b) t2 = b[0] === a[0] ? b[1] : null;
      else if (/^\d{1,7}$/.test(r)) t2 = Number(r);
      if (t2 !== null && t2 >= a[1] && t2 - a[1] <= 500) {
        const out = [];
        for (let t = a[1]; t <= t2; t++) out.push(`D${a[0]}:${t}`);
        return out;
      }
    }
  }
  return [tok];
}

function splitRefs(raw) {
  const out = [];
  for (let tok of raw.split(/[;, \t\r\n]+/)) {
    tok = tok.replace(/^\.+/, "").replace(/\.+$/, "");
    if (tok) out.push(...expandRef(tok));
  }
  return out;
}

function loadLocomo(file) {
  const root = JSON.parse(fs.readFileSync(file, "utf8"));
  const convs = [];
  let refs = 0, resolved = 0, skippedCat5 = 0, skippedNoEvidence = 0;
  for (const c of root) {
    const conv = c.conversation;
    const sessions = Object.keys(conv)
      .filter((k) => /^session_\d{1,6}$/.test(k) && Array.isArray(conv[k]))
      .map((k) => Number(k.slice(8)))
      .sort((a, b) => a - b);
    const turns = [];
    const ids = new Map(); // dia_id -> first turn index
    for (const n of sessions) {
      for (const t of conv[`session_${n}`]) {
        const cap = typeof t.blip_caption === "string" && t.blip_caption ? t.blip_caption : null;
        const text = cap ? `${t.speaker}: ${t.text} [image: ${cap}]` : `${t.speaker}: ${t.text}`;
        if (!ids.has(t.dia_id)) ids.set(t.dia_id, turns.length);
        turns.push({ dia: t.dia_id, text });
      }
    }
    const qs = [];
    c.qa.forEach((q, i) => {
      if (q.category === 5) {
        skippedCat5++;
        return;
      }
      const gold = new Set();
      for (const e of q.evidence || []) {
        if (typeof e !== "string") {
          refs++;
          continue;
        }
        for (const r of splitRefs(e)) {
          refs++;
          if (ids.has(r)) {
            resolved++;
            gold.add(ids.get(r));
          }
        }
      }
      if (!gold.size) {
        skippedNoEvidence++;
        return;
      }
      qs.push({ id: `${c.sample_id}#${i}`, text: q.question, category: String(q.category), gold });
    });
    convs.push({ id: c.sample_id, turns, qs });
  }
  return { convs, refs, resolved, skippedCat5, skippedNoEvidence };
}

// ------------------------------------------------------------------ stats

function quantile(v, q) {
  if (!v.length) return 0;
  const s = [...v].sort((a, b) => a - b);
  const pos = q * (s.length - 1);
  const lo = Math.floor(pos), hi = Math.ceil(pos);
  return s[lo] + (s[hi] - s[lo]) * (pos - lo);
}
const r3 = (x) => Math.round(x * 1000) / 1000;
const r4 = (x) => Math.round(x * 10000) / 10000;

function lat(v) {
  return { p50: r3(quantile(v, 0.5)), p95: r3(quantile(v, 0.95)), mean: r3(v.reduce((a, b) => a + b, 0) / (v.length || 1)) };
}

// Gold turns found in the first k of ranked (turn indexes, best first).
function recallAt(k, ranked, gold) {
  const seen = new Set();
  let found = 0;
  for (const t of ranked.slice(0, k)) {
    if (seen.has(t)) continue;
    seen.add(t);
    if (gold.has(t)) found++;
  }
  return found / gold.size;
}

// ------------------------------------------------------------------ timing

// Wall time (ms) and this process's CPU time (ms, user + system) of fn.
async function timed(fn) {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const out = await fn();
  const t1 = performance.now();
  const c = process.cpuUsage(c0);
  return { out, wall: t1 - t0, cpu: (c.user + c.system) / 1000 };
}

// The embedder, with the time spent in it counted (to tell mem0's own
// search cost from the encoder's).
class CountingEmbeddings {
  constructor(inner) {
    this.inner = inner;
    this.ms = 0;
  }
  async embedQuery(t) {
    const t0 = performance.now();
    try { return await this.inner.embedQuery(t); } finally { this.ms += performance.now() - t0; }
  }
  async embedDocuments(ts) {
    const t0 = performance.now();
    try { return await this.inner.embedDocuments(ts); } finally { this.ms += performance.now() - t0; }
  }
}

// ------------------------------------------------------------------ run

function newMemory(embeddings, n) {
  return new Memory({
    version: "v1.1",
    embedder: { provider: "langchain", config: { model: embeddings } },
    vectorStore: {
      provider: "memory",
      config: { collectionName: `locomo_${n}`, dimension: embeddings.inner.dim, dbPath: ":memory:" },
    },
    // Never called with infer: false; the OpenAI client only wants a key.
    llm: { provider: "openai", config: { apiKey: "unused-offline", model: "unused" } },
    disableHistory: true,
  });
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const ds = loadLocomo(o.data);
  const use = await UseLiteEmbeddings.load(o.model, o.backend);
  const emb = new CountingEmbeddings(use);
  await emb.embedQuery("warm up");

  const ks = o.k25 ? [5, 10, 25] : [5, 10];
  const sum = Object.fromEntries(ks.map((k) => [k, 0]));
  const byCat = {};
  const add = { wall: [], cpu: [] };
  const s10 = { wall: [], cpu: [], noEmbed: [], returned: 0 };
  const s25 = { wall: [], cpu: [], returned: 0 };
  let questions = 0, turns = 0, units = 0;
  let left = o.limit > 0 ? o.limit : Infinity;
  const convs = o.conversations > 0 ? ds.convs.slice(0, o.conversations) : ds.convs;
  const t0 = performance.now();

  for (const [ci, c] of convs.entries()) {
    if (left <= 0) break;
    if (!c.qs.length) continue;
    const mem = newMemory(emb, ci);
    const user = `locomo-${c.id}`;
    const idOf = new Map(); // mem0 memory id -> turn index
    for (const [ti, t] of c.turns.entries()) {
      const r = await timed(() =>
        mem.add(t.text, { userId: user, infer: false, metadata: { dia_id: t.dia, turn: ti } }));
      add.wall.push(r.wall);
      add.cpu.push(r.cpu);
      for (const m of r.out.results) idOf.set(m.id, ti);
    }
    turns += c.turns.length;
    units++;
    const qs = c.qs.slice(0, Math.min(c.qs.length, left));
    for (const q of qs) {
      const e0 = emb.ms;
      const r = await timed(() => mem.search(q.text, { filters: { user_id: user }, topK: 10 }));
      s10.wall.push(r.wall);
      s10.cpu.push(r.cpu);
      s10.noEmbed.push(r.wall - (emb.ms - e0));
      const rank10 = r.out.results.map((m) => idOf.get(m.id));
      s10.returned += rank10.length;
      const rec = { 5: recallAt(5, rank10, q.gold), 10: recallAt(10, rank10, q.gold) };
      if (o.k25) {
        const r2 = await timed(() => mem.search(q.text, { filters: { user_id: user }, topK: 25 }));
        s25.wall.push(r2.wall);
        s25.cpu.push(r2.cpu);
        const rank25 = r2.out.results.map((m) => idOf.get(m.id));
        s25.returned += rank25.length;
        rec[25] = recallAt(25, rank25, q.gold);
      }
      const cat = (byCat[q.category] ||= { questions: 0, sum: Object.fromEntries(ks.map((k) => [k, 0])) });
      cat.questions++;
      for (const k of ks) {
        sum[k] += rec[k];
        cat.sum[k] += rec[k];
      }
      questions++;
    }
    left -= qs.length;
    process.stderr.write(`[mem0] conversation ${ci + 1}/${convs.length}: ${c.turns.length} turns, ` +
                         `${questions} questions done, ${Math.round((performance.now() - t0) / 1000)} s\n`);
  }

  const per = (s, n) => Object.fromEntries(ks.map((k) => [String(k), r4(n ? s[k] / n : 0)]));
  const pkg = (name) =>
    JSON.parse(fs.readFileSync(path.join(here, "node_modules", name, "package.json"), "utf8")).version;
  const report = {
    system: "mem0",
    dataset: "locomo",
    data: path.resolve(o.data),
    k: ks,
    questions,
    recall: per(sum, questions),
    by_category: Object.fromEntries(Object.entries(byCat).sort()
      .map(([k, v]) => [k, { questions: v.questions, recall: per(v.sum, v.questions) }])),
    latency_ms: {
      search10_p50: r3(quantile(s10.wall, 0.5)),
      search10_p95: r3(quantile(s10.wall, 0.95)),
      search10: lat(s10.wall),
      search10_cpu: lat(s10.cpu),
      search10_without_embedding: lat(s10.noEmbed),
      search25: o.k25 ? lat(s25.wall) : null,
      add_p50: r3(quantile(add.wall, 0.5)),
      add_p95: r3(quantile(add.wall, 0.95)),
      add_cpu: lat(add.cpu),
    },
    add_total_s: r3(add.wall.reduce((a, b) => a + b, 0) / 1000),
    returned_mean: { 10: r3(s10.returned / (questions || 1)), 25: o.k25 ? r3(s25.returned / (questions || 1)) : null },
    units,
    events: turns,
    evidence: { refs: ds.refs, resolved: ds.resolved, skipped_no_evidence: ds.skippedNoEvidence,
                skipped_category_5: ds.skippedCat5 },
    config: {
      write: "add(turn, {infer: false}): no LLM, one memory per turn",
      search: "search(question, {filters: {user_id}, topK}) with mem0's defaults (threshold 0.1, no reranker)",
      embedder: `USE lite (${path.resolve(o.model)}) via @tensorflow/tfjs ${o.backend} backend, mem0 "langchain" embedder`,
      vector_store: "mem0 \"memory\" (SQLite :memory:)",
      history: "off",
      versions: {
        node: process.versions.node,
        mem0ai: pkg("mem0ai"),
        "@tensorflow/tfjs": pkg("@tensorflow/tfjs"),
        "@tensorflow/tfjs-backend-wasm": pkg("@tensorflow/tfjs-backend-wasm"),
        natural: pkg("natural"),
        compromise: pkg("compromise"),
      },
      host: `${os.cpus().length} x ${os.cpus()[0]?.model || "?"}`,
    },
    wall_s: r3((performance.now() - t0) / 1000),
  };
  process.stdout.write(JSON.stringify(report, null, 2) + "\n");
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
