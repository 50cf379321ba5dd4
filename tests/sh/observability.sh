#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The engine's decisions as log lines and metrics (docs/SERVER.md "Logs",
# "Metrics"), against a live server: events in Chinese and English, a
# recall, feedback and a forget.  serve --log-format json: every stderr line
# of the engine is one JSON object {ts, level, event, fields} with the
# expected events and fields and no word the users said; with --log-content
# the texts are there.  /metrics counts memories by kind and outcome,
# one-offs, recalls by route and reason, feedback by action and recall
# stage seconds, with the values this script caused.  The CLI's --log FILE
# writes the same lines for any command.  $1 = path of the agentmem CLI.
set -u
CLI=${1:?usage: observability.sh AGENTMEM}
. "$(dirname "$0")/lib/expect.bash"
. "$(dirname "$0")/lib/server.bash"
# a restart must not read the last server's address
restart() { rm -f "$dir/srv.out" "$dir/srv.err"; start_server "$@"; }
stopped() { # the server exits 0 (a sanitizer build: nothing reported)
  stop_server
  if [ "$srv_rc" = 0 ]; then ok; else bad "server exit $srv_rc"; tail -20 "$dir/srv.err"; fi
}

tok() { "$CLI" --db "$db" token create "$@" 2>/dev/null; }
"$CLI" --db "$db" token create --user alice >/dev/null 2>&1 # makes the store
ta=$(tok --user alice)
tb=$(tok --user bob)

ok() { passed=$((passed+1)); }
bad() { echo "FAIL: $1"; failed=$((failed+1)); }

# the users' words, none of which may reach the log without --log-content
words=(三段式 周报 结论 表格 Notion Obsidian conclusion "weekly" "三段式怎么写" locker)

workload() {
  req POST /v1/events "$ta" '{"text":"以后周报都用三段式，先写结论","session":"s1"}'; expect_code 200 "zh rule"
  req POST /v1/events "$ta" '{"text":"这次报告先用表格","session":"s1","task":"t1"}'; expect_code 200 "zh one-off"
  req POST /v1/events "$tb" '{"text":"I usually keep my notes in Notion","session":"s2"}'; expect_code 200 "en fact"
  req POST /v1/events "$tb" '{"text":"I switched to Obsidian, not Notion anymore","session":"s2"}'; expect_code 200 "en supersede"
  req POST /v1/events "$tb" '{"text":"From now on, put the conclusion first in my weekly reports.","session":"s2"}'; expect_code 200 "en rule"
  req POST /v1/recall "$ta" '{"query":"周报三段式怎么写？"}'; expect_code 200 "zh recall"
  req POST /v1/recall "$tb" '{"query":"where do I keep my notes, Obsidian?"}'; expect_code 200 "en recall"
  req POST /v1/recall "$tb" '{"query":"thanks!"}'; expect_code 200 "chit-chat recall"
  req GET /v1/memories "$tb"; expect_code 200 "list"
  mem=$(python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); print([x["id"] for x in m if "conclusion" in x["text"]][0])' "$dir/body")
  req POST "/v1/memories/$mem/feedback" "$tb" '{"action":"correct","text":"Put the summary first in my weekly reports"}'; expect_code 200 "correct"
  req GET /v1/memories "$ta"; expect_code 200 "list zh"
  memz=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[0]["id"])' "$dir/body")
  req POST "/v1/memories/$memz/feedback" "$ta" '{"action":"confirm"}'; expect_code 200 "confirm"
  # one memory stated and deleted: counted by kind, named by its id only
  req POST /v1/memories "$tb" '{"text":"My locker code at the gym is 4471","kind":"fact","key":"gym.locker"}'; expect_code 201 "memory add"
  memd=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["memory"]["lineage_id"])' "$dir/body")
  req DELETE "/v1/memories/$memd" "$tb"; expect_code 200 "memory delete"
}

# the engine's lines of srv.err (JSON objects), checked by python
check_log() { # content(0|1)
  python3 - "$dir/srv.err" "$1" "${words[@]}" <<'PY'
import json, sys
path, content, words = sys.argv[1], sys.argv[2] == "1", sys.argv[3:]
recs, bad = [], []
for line in open(path, encoding="utf-8"):
    if not line.startswith("{"):
        continue                      # the server's own messages
    try:
        r = json.loads(line)
    except ValueError:
        bad.append("not JSON: " + line[:80]); continue
    if set(r) != {"ts", "level", "event", "fields"} or not r["ts"].endswith("Z"):
        bad.append("shape: " + line[:120])
    recs.append(r)
ev = lambda e: [r["fields"] for r in recs if r["event"] == e]
ex = ev("extract")
def need(cond, what):
    if not cond: bad.append(what)
need(any(f["outcome"] == "created" and f["kind"] == "preference" and f["key"].startswith("k")
         and f["source"] in ("rules", "model") and "score" in f and "rule" in f for f in ex),
     "an extraction created a preference, with key id, source, rule, score")
need(any(f["outcome"] == "superseded" for f in ex), "a superseded extraction")
need(any(f["outcome"] == "one_off" for f in ex), "a one-off extraction")
need(len(ev("write")) == 5 and all("memories_created" in f and "ms" in f for f in ev("write")),
     "five write records")
rc = ev("recall")
need(len(rc) == 3, "three recall records")
need(any(f["route"] == "semantic_first" and f["reason"] and "search_events" in f and "rank_items" in f
         and "total_ms" in f and "search_ms" in f and f["memories"] >= 1 and f["memory_ids"]
         and f["top_memory_scores"] for f in rc), "a recall with stages, scores, kept ids")
need(any(f["route"] == "none" and f["reason"] == "chit_chat" for f in rc), "the chit-chat route")
md = ev("memory_delete")
need(len(md) == 1 and md[0]["kind"] == "fact" and md[0]["versions"] >= 1 and md[0]["memory_id"],
     "a memory_delete record with the kind and the id")
fb = ev("feedback")
need(sorted(f["action"] for f in fb) == ["confirm", "correct"], "two feedback records")
need(all(f["kind"] for f in fb), "feedback names the kind")
text = open(path, encoding="utf-8").read()
leaked = [w for w in words if w in text]
if content:
    need("以后周报都用三段式，先写结论" in [f.get("text") for f in ex] or
         any("以后周报都用三段式" in (f.get("text") or "") for f in ex), "zh sentence with --log-content")
    need(any(f.get("query") == "where do I keep my notes, Obsidian?" for f in rc), "en query with --log-content")
    need(any(f.get("text") == "Put the summary first in my weekly reports" for f in fb), "correction text")
else:
    need(not leaked, "user text in the log: %s" % leaked)
    need(not any(f.get("text") or f.get("query") for r in recs for f in [r["fields"]]), "a text field")
for b in bad: print(b)
sys.exit(1 if bad else 0)
PY
}

# --- 1: JSON lines, ids only
start_server --log-format json --log-level info
workload
req GET /metrics "$ta"; expect_code 200 "metrics"
cp "$dir/body" "$dir/metrics"
stopped
if check_log 0 >"$dir/chk" 2>&1; then ok; else bad "log without content"; cat "$dir/chk"; fi
# the values this workload caused
metric() { awk -v s="$1" '$1 == s {print $2}' "$dir/metrics"; }
m_is() { # series want
  local v; v=$(metric "$1")
  if [ "$v" = "$2" ]; then ok; else bad "metric $1 = '$v', wanted $2"; fi
}
m_is 'agentmem_memories_total{kind="preference",outcome="created"}' 3
m_is 'agentmem_memories_total{kind="preference",outcome="superseded"}' 1
m_is 'agentmem_one_offs_total' 1
m_is 'agentmem_memories_total{kind="fact",outcome="deleted"}' 1
m_is 'agentmem_recalls_total{route="semantic_first",reason="default"}' 2
m_is 'agentmem_recalls_total{route="none",reason="chit_chat"}' 1
m_is 'agentmem_feedback_total{action="correct",kind="preference"}' 1
m_is 'agentmem_feedback_total{action="confirm",kind="preference"}' 1
m_is 'agentmem_events_written_total{source="user"}' 5
m_is 'agentmem_recall_stage_seconds_count{stage="total"}' 3
m_is 'agentmem_recall_stage_seconds_count{stage="search"}' 2
m_is 'agentmem_recall_stage_seconds_bucket{stage="rank",le="+Inf"}' 2
# labels come from fixed vocabularies only: no id, no word of a user
if grep -E '^agentmem_' "$dir/metrics" | grep -qE '01[0-9A-HJKMNP-TV-Z]{24}|alice|bob|Notion|周报'; then
  bad "an id or a user's word in /metrics"; else ok; fi

# --- 2: --log-content: the texts are fields
rm -f "$db" "$db"-wal "$db"-shm
"$CLI" --db "$db" token create --user alice >/dev/null 2>&1
ta=$(tok --user alice); tb=$(tok --user bob)
restart --log-format json --log-content
workload
stopped
if check_log 1 >"$dir/chk" 2>&1; then ok; else bad "log with content"; cat "$dir/chk"; fi

# --- 3: text lines at debug: statements not kept show up too
rm -f "$db" "$db"-wal "$db"-shm
"$CLI" --db "$db" token create --user alice >/dev/null 2>&1
ta=$(tok --user alice)
restart --log-format text --log-level debug
req POST /v1/events "$ta" '{"text":"今天天气不错"}'; expect_code 200 "small talk"
stopped
if grep -qE '^[0-9T:.-]+Z debug extract .*outcome=not_kept' "$dir/srv.err"; then ok; else
  bad "debug text line of a statement not kept"; cat "$dir/srv.err"; fi
if grep -q '天气' "$dir/srv.err"; then bad "text in a text line"; else ok; fi
restart --log-level warn --log-format text
req POST /v1/events "$ta" '{"text":"以后周报都用三段式"}'; expect_code 200 "at warn"
stopped
if grep -q ' extract ' "$dir/srv.err"; then bad "an info record at --log-level warn"; else ok; fi

# --- 4: the CLI's --log FILE for any command; bad values are usage errors
expect_rc 0 "add --log" "$CLI" --db "$db" --log "$dir/cli.log" add --user carol --text "From now on, reply in English"
expect_rc 0 "recall --log" "$CLI" --db "$db" --log "$dir/cli.log" recall --user carol --text "which language?"
if python3 -c '
import json, sys
ev = [json.loads(l)["event"] for l in open(sys.argv[1])]
sys.exit(0 if "extract" in ev and "write" in ev and "recall" in ev else 1)' "$dir/cli.log"; then ok; else
  bad "--log FILE"; cat "$dir/cli.log"; fi
if grep -q 'English' "$dir/cli.log"; then bad "text in --log without --log-content"; else ok; fi
expect_rc 0 "--log - --log-content" "$CLI" --db "$db" --log - --log-content recall --user carol --text "语言用什么"
expect_out '"query":"语言用什么"' "--log-content on stderr"
expect_rc 2 "bad --log-format" "$CLI" --db "$db" serve --log-format xml
expect_out "log-format" "names the flag"
expect_rc 2 "bad --log-level" "$CLI" --db "$db" --log - --log-level loud recall --user carol --text x
expect_rc 2 "--log-content alone" "$CLI" --db "$db" recall --log-content --user carol --text x

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
