#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Nothing the user said leaves through events, end to end (docs/EVENTS.md):
# a bilingual conversation written through the server (preferences, a
# profession, health, tasks with ids made of words) reaches a webhook
# receiver (signed bodies) and an SSE stream (?after=0: every frame) with
# no Chinese bigram and no English word of 4+ letters of its texts, and no
# session or task id, in any body, type or frame -- while the key ids the
# events carry are the key_id of GET /v1/memories.  Then, with PostgreSQL
# installed, tests/unit/test_event_privacy runs against a throwaway
# PostgreSQL server (the same session's payloads; a forget's tombstones
# holding no id; restore within the grace period).
# $1 = the agentmem CLI; $AM_EVENT_PRIVACY_TEST = the unit test's binary.
set -u
CLI=${1:?usage: event_privacy.sh AGENTMEM}
CLI=$(cd "$(dirname "$CLI")" && pwd)/$(basename "$CLI")
cd "$(dirname "$0")/../.."
here=$PWD/tests/sh
TEST_BIN=${AM_EVENT_PRIVACY_TEST:-build/cmake/test_event_privacy}
. "$here/lib/expect.bash"
. "$here/lib/server.bash"
rcv_pid=; tail_pid=
cleanup() {
  [ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null
  [ -n "$rcv_pid" ] && kill "$rcv_pid" 2>/dev/null
  [ -n "$tail_pid" ] && kill "$tail_pid" 2>/dev/null
  [ -n "$dir" ] && rm -rf "$dir"
}
trap cleanup EXIT

# --- the server: webhooks and a stream
printf 'privacy-密钥\n' >"$dir/secret"
python3 "$here/lib/webhook_receiver.py" 'privacy-密钥' "$dir/hooks" "$dir/hook.port" &
rcv_pid=$!
for _ in $(seq 100); do [ -s "$dir/hook.port" ] && break; sleep 0.05; done
[ -s "$dir/hook.port" ] || { echo "FAIL: the webhook receiver did not start"; exit 1; }
tok=$("$CLI" --db "$db" token create --user p1 2>/dev/null)
start_server --webhook "http://127.0.0.1:$(cat "$dir/hook.port")/h" --webhook-secret-file "$dir/secret"
texts=(
  "以后采购合同都用PDF格式发给我"
  "From now on send the quarterly budget as a spreadsheet please"
  "我是心理医生，在市中心开诊所"
  "I work as a pediatric cardiologist at Riverside hospital"
  "我有抑郁症，每天早上吃舍曲林"
  "I was diagnosed with type two diabetes last spring"
  "我现在改用钉钉了，不用微信"
  "Actually I now prefer the quarterly budget as a slide deck"
  "我想咨询离婚诉讼，孩子的抚养权怎么争取"
  "Next step for the custody case: collect the school records"
  "以后出差都订靠近地铁站的酒店"
  "My blood pressure medication is lisinopril, twice daily"
  "以后采购合同都改用Word格式"
)
sessions=("私人会诊-张医生" "clinic-visit")
tasks=("divorce-lawyer" "离婚诉讼")
: >"$dir/texts"
for i in "${!texts[@]}"; do
  t=${texts[$i]}; printf '%s\n' "$t" >>"$dir/texts"
  task=""; [ "$i" -ge 8 ] && [ "$i" -le 9 ] && task=",\"task\":\"${tasks[$((i % 2))]}\""
  body=$(python3 -c 'import json,sys; print(json.dumps({"user":"p1","text":sys.argv[1],"session":sys.argv[2]}))' \
         "$t" "${sessions[$((i % 2))]}")
  req POST /v1/events "$tok" "${body%\}}$task}"; expect_code 200 "write $i"
done
# every event of the conversation, from the start
python3 "$here/lib/sse_tail.py" "$url/v1/stream?after=0" "$tok" "$dir/sse" &
tail_pid=$!
want=$("$CLI" --db "$db" watch --user p1 | wc -l)
for _ in $(seq 100); do
  [ "$(cat "$dir/sse" 2>/dev/null | wc -l)" -ge "$want" ] &&
    [ "$(cat "$dir/hooks" 2>/dev/null | wc -l)" -ge "$want" ] && break
  sleep 0.1
done
req GET /v1/memories "$tok"; expect_code 200 "memories"
cp "$dir/body" "$dir/memories"
kill -TERM "$tail_pid" 2>/dev/null; wait "$tail_pid" 2>/dev/null; tail_pid=
stop_server
kill -TERM "$rcv_pid" 2>/dev/null; wait "$rcv_pid" 2>/dev/null; rcv_pid=
if python3 - "$dir" "$want" "${sessions[@]}" "${tasks[@]}" <<'PY'
import json, re, sys
d, want, ids = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
texts = open(d + "/texts", encoding="utf-8").read().splitlines()
# the payload's own vocabulary (docs/EVENTS.md): not evidence of a leak
schema = ("seq type user memory_id key task_id event_id change level fields what asked_user at "
          "occurred_at memory.created memory.updated memory.invalidated memory.forgotten "
          "task.updated security.denied promoted superseded pending_confirm historical confirmed "
          "corrected rejected event session task user created status stage pending note artifact")
words = set()
for t in texts:
    for run in re.findall(r"[\u3400-\u4dbf\u4e00-\u9fff]{2,}", t):
        words.update(run[i:i + 2] for i in range(len(run) - 1))
    for w in re.findall(r"[A-Za-z]{4,}", t):
        w = w.lower()
        if w not in schema and re.search(r"[g-z]", w):
            words.add(w)
words.update(ids)
hooks = [json.loads(l) for l in open(d + "/hooks", encoding="utf-8")]
frames = [json.loads(l) for l in open(d + "/sse", encoding="utf-8")]
assert len(hooks) >= want and len(frames) >= want and want >= 8, (len(hooks), len(frames), want)
assert all(h["verified"] for h in hooks), "a webhook body without a valid signature"
bad = []
for what, items in (("webhook", [json.dumps(h["event"], ensure_ascii=False) for h in hooks]),
                    ("sse", [json.dumps(f, ensure_ascii=False) for f in frames])):
    for s in items:
        for w in words:
            if w in s:
                bad.append((what, w, s[:160]))
for b in bad[:10]:
    print("  leak:", *b)
assert not bad, "%d words of the input left through events" % len(bad)
key_ids = {m["key_id"] for m in json.load(open(d + "/memories", encoding="utf-8"))}
keys = {f["data"]["key"] for f in frames if "key" in f["data"]}
assert keys and keys <= key_ids, (keys, key_ids)
assert all(f["event"] == f["data"]["type"] for f in frames), frames
assert any(f["event"].startswith("memory.updated.k") for f in frames)
print("event_privacy.sh: %d webhook bodies, %d SSE frames, %d input words: none leaked"
      % (len(hooks), len(frames), len(words)))
PY
then passed=$((passed+1)); else echo "FAIL: webhook bodies / SSE frames"; failed=$((failed+1)); fi

# --- the library's checks on PostgreSQL (pg_init's cleanup replaces ours)
rm -rf "$dir"; dir=
. "$here/lib/pg.bash"
if pg_find; then
  if pg_init am-evpriv && pg_start && pg_new_db tcp; then
    if AM_PG_URL="$URL" "$TEST_BIN" >"$TMP/unit.log" 2>&1; then passed=$((passed+1))
      echo "event_privacy.sh: test_event_privacy passed on PostgreSQL"
    else echo "FAIL: test_event_privacy on PostgreSQL"; tail -30 "$TMP/unit.log"; failed=$((failed+1)); fi
    grep -q "SQLite only" "$TMP/unit.log" && { echo "FAIL: the PostgreSQL checks did not run"; failed=$((failed+1)); }
  else echo "FAIL: PostgreSQL did not start"; failed=$((failed+1)); fi
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
