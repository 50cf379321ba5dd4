#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Resource exhaustion (docs/SERVER.md "Limits"): a hostile tenant against a
# live server on loopback while a second tenant probes it
# (tests/sh/lib/exhaust.py): exports whose clients never read (the user's
# cap of 2, the rest 429 with Retry-After; the stalled ones time out and
# give their slots back), streams past the cap of 4 per user and per token,
# 200 connections trickling request heads from 127.0.0.2 (the per-IP limit
# and the header deadline close them), a writer flood from 127.0.0.3; the
# victim's every request answers 200 within 2 s throughout.  Refusals are
# logged at most 5 lines a second.  SIGTERM ends the server (exit 0) within
# 5 s under stalled exports and streams, and under trickling heads with a
# writer flood.  Bounded: about 40 s.  $1 = path of the agentmem CLI.
set -u
CLI=${1:?usage: exhaust.sh AGENTMEM}
. "$(dirname "$0")/lib/expect.bash"
. "$(dirname "$0")/lib/server.bash"
py="$here/lib/exhaust.py"

"$CLI" --db "$db" init >/dev/null 2>&1
tv=$("$CLI" --db "$db" token create --user victim 2>/dev/null)
tm=$("$CLI" --db "$db" token create --user mallory 2>/dev/null)
tm2=$("$CLI" --db "$db" token create --user mallory 2>/dev/null)
# an export of about 6 MB: more than every buffer between the server and a
# client that reads nothing (the kernel's send buffer grows to 4 MB), so its
# exports stall -- 8 events written, then copied in SQL (fast under ASan too)
python3 - "$dir/batch.jsonl" <<'PY'
import json, random, sys
random.seed(7)
words = ["budget", "report", "meeting", "预算", "会议", "报告", "travel", "设计"]
with open(sys.argv[1], "w") as f:
    for i in range(8):
        text = "note %d: " % i + " ".join(random.choice(words) for _ in range(1400))
        f.write(json.dumps({"user": "mallory", "text": text, "id": "m%d" % i}, ensure_ascii=False) + "\n")
        f.write(json.dumps({"user": "eve", "text": text, "id": "e%d" % i}, ensure_ascii=False) + "\n")
    f.write(json.dumps({"user": "victim", "text": "I prefer tea; 下周开预算会议"}, ensure_ascii=False) + "\n")
PY
"$CLI" --db "$db" add --batch "$dir/batch.jsonl" >/dev/null || { echo "FAIL: seeding"; exit 1; }
sqlite3 "$db" "INSERT INTO events(id, user_id, source, type, content, lang, occurred_at, tz_minutes,
  ingested_at, status) SELECT e.id || printf('%04d', k.n), e.user_id, e.source, e.type, e.content,
  e.lang, e.occurred_at, e.tz_minutes, e.ingested_at, e.status FROM events e, (WITH RECURSIVE
  c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 80) SELECT n FROM c) k
  WHERE e.user_id IN ('mallory', 'eve')" || { echo "FAIL: seeding (SQL)"; exit 1; }
te=$("$CLI" --db "$db" token create --user eve 2>/dev/null)

# sigterm_within WHAT: SIGTERM, then the server must be gone (exit 0) in 5 s
sigterm_within() {
  local t0 t1 state
  t0=$(date +%s%N)
  kill -TERM "$srv_pid"
  for _ in $(seq 100); do
    state=$(awk '{print $3}' "/proc/$srv_pid/stat" 2>/dev/null)
    [ -z "$state" ] || [ "$state" = Z ] && break
    sleep 0.05
  done
  t1=$(date +%s%N)
  state=$(awk '{print $3}' "/proc/$srv_pid/stat" 2>/dev/null)
  if [ -n "$state" ] && [ "$state" != Z ]; then
    echo "FAIL: $1: the server still runs 5 s after SIGTERM"; failed=$((failed+1))
    kill -KILL "$srv_pid"; wait "$srv_pid"; srv_pid=; return
  fi
  wait "$srv_pid"; srv_rc=$?; srv_pid=
  local ms=$(( (t1 - t0) / 1000000 ))
  if [ "$srv_rc" = 0 ] && [ "$ms" -le 5000 ]; then passed=$((passed+1)); echo "ok: $1: exited 0 in $ms ms"
  else echo "FAIL: $1: exit $srv_rc after $ms ms"; tail -5 "$dir/srv.err"; failed=$((failed+1)); fi
}

# hold_then_sigterm WHAT HOLD-ARGS...: the hostile load held, then SIGTERM
hold_then_sigterm() {
  local what=$1; shift
  rm -f "$dir/ready"
  python3 "$py" hold "$port" "$tm" "$dir/ready" 20 "$@" >"$dir/hold.out" 2>&1 &
  local holder=$!
  for _ in $(seq 200); do [ -f "$dir/ready" ] && break; sleep 0.1; done
  if [ ! -f "$dir/ready" ]; then echo "FAIL: $what: the load was not in place"; cat "$dir/hold.out"; failed=$((failed+1)); fi
  sleep 1
  sigterm_within "$what"
  kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null
}

# --- the classes one after another, a victim probing throughout
per_ip=40 header_timeout=2
start_server --timeout 3 --header-timeout "$header_timeout" --max-conns-per-ip "$per_ip"
python3 "$py" attack "$port" "$tv" "$tm" "$tm2" "$header_timeout" "$per_ip" >"$dir/attack.out" 2>&1
cat "$dir/attack.out"
passed=$((passed + $(grep -c '^ok: ' "$dir/attack.out")))
failed=$((failed + $(grep -c '^FAIL: ' "$dir/attack.out")))
grep -qE '^(ok|FAIL): the victim' "$dir/attack.out" || { echo "FAIL: the attack did not run to its end"; failed=$((failed+1)); }

# refusals are logged, at most SRV_LOG_PER_S (5) lines a second, the rest counted
lines=$(grep -cE 'refused|connection limit|closed [0-9]+ connections' "$dir/srv.err")
if grep -q 'similar lines suppressed' "$dir/srv.err" && [ "$lines" -le 150 ]; then passed=$((passed+1))
else echo "FAIL: refusal log not rate-limited ($lines lines)"; head -20 "$dir/srv.err"; failed=$((failed+1)); fi
awk '{ if (substr($0, 1, 16) != "agentmem serve: ") bad++ } END { exit bad > 0 }' "$dir/srv.err" \
  && passed=$((passed+1)) || { echo "FAIL: a log line not from the rate-limited log"; failed=$((failed+1)); }

# --- SIGTERM under stalled exports and open streams
hold_then_sigterm "SIGTERM under 2 stalled exports and 4 streams" exports=2 streams=4

# --- SIGTERM under trickling heads and a writer flood (the header deadline
# longer than the hold, so the tricklers are there when it comes)
rm -f "$dir/srv.out" # (else start_server may read the last server's port before the new one writes)
start_server --max-conns-per-ip 100 --header-timeout 30
hold_then_sigterm "SIGTERM under 100 trickling heads and a writer flood" trickle=100 flood=8 exports=2

# --- a forget ends the user's export that a stalled client holds (its spool
# holds what was forgotten) at once, not at the idle timeout (30 s here)
rm -f "$dir/srv.out"
start_server
python3 "$py" forget_cut "$port" "$te" >"$dir/cut.out" 2>&1
cat "$dir/cut.out"
passed=$((passed + $(grep -c '^ok: ' "$dir/cut.out")))
failed=$((failed + $(grep -c '^FAIL: ' "$dir/cut.out")))
[ "$(grep -c '^ok: ' "$dir/cut.out")" = 5 ] || { echo "FAIL: the forget check did not run to its end"; failed=$((failed+1)); }
stop_server

# --- the store is whole after it all
n=$(sqlite3 "$db" "PRAGMA integrity_check")
[ "$n" = ok ] && passed=$((passed+1)) || { echo "FAIL: integrity_check: $n"; failed=$((failed+1)); }

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
