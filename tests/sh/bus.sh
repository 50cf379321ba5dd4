#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The event bus between server instances (tools/server/bus.c,
# docs/EVENTS.md "Between server instances"): a throwaway redis-server (a
# temp dir, a free loopback port, a password) and TWO `agentmem serve`
# processes on one store (a SQLite file; a throwaway PostgreSQL too when it
# is installed), both with --cache and the same --webhook:
#   - a write through A (Chinese and English) reaches B's SSE stream (B
#     heard A's note: notes_in), never bob's stream; recall through B finds it;
#   - every event reaches the webhook receiver exactly once (not once per
#     instance), signed, whichever instance holds the lease;
#   - Redis killed: both still serve (writes, recalls, streams from the
#     store), /healthz says "state":"down", "degraded":true with HTTP 200;
#     Redis back: both up again, the events written meanwhile reach B's
#     stream and the webhook (once);
#   - the lease holder hung (SIGSTOP) or stopped (SIGTERM): the other takes
#     over from the recorded cursor, nothing lost, nothing twice, and the
#     hung one, continued, stands by;
#   - Redis holds nothing of a user (notes "am1 <instance> <seq>" only, the
#     lease keys), not after a user is forgotten either;
#   - the password never appears in /healthz or the logs; a wrong one is
#     "down" with Redis's reason; a bad --cache URL is a usage error.
# Skips (exit 77, "SKIP: no redis-server") only when redis-server is missing.
# $1 = the agentmem CLI.
set -u
CLI=${1:?usage: bus.sh AGENTMEM}
CLI=$(cd "$(dirname "$CLI")" && pwd)/$(basename "$CLI")
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v redis-server >/dev/null 2>&1; then
  echo "SKIP: no redis-server (scripts/install-deps.sh installs it)"; exit 77
fi
. "$here/lib/expect.bash"
. "$here/lib/serve.bash"

PW='pw-s3cr3t-密码'          # the Redis password: never in /healthz or a log
PWURL='pw-s3cr3t-%E5%AF%86%E7%A0%81'
redis_pid=; RPORT=; seq0=0
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
  [ -n "$redis_pid" ] && kill -KILL "$redis_pid" 2>/dev/null
  wait 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; failed=$((failed+1)); }
ok() { passed=$((passed+1)); }

redis_start() { # [port]: on a free loopback port (or the one given); sets redis_pid RPORT
  local try p
  for try in 1 2 3 4 5 6 7 8; do
    p=${1:-$(( 20000 + (RANDOM * 7 + $$ + try * 131) % 40000 ))}
    redis-server --port "$p" --bind 127.0.0.1 --save '' --appendonly no --daemonize no \
      --requirepass "$PW" --dir "$dir" >"$dir/redis.log" 2>&1 &
    redis_pid=$!
    for _ in $(seq 50); do
      grep -q 'Ready to accept' "$dir/redis.log" 2>/dev/null && { RPORT=$p; return 0; }
      kill -0 "$redis_pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL "$redis_pid" 2>/dev/null; wait "$redis_pid" 2>/dev/null; redis_pid=
    [ -n "${1:-}" ] && sleep 0.5
  done
  return 1
}
redis_kill() { kill -KILL "$redis_pid" 2>/dev/null; wait "$redis_pid" 2>/dev/null; redis_pid=; }

. "$here/lib/health.bash"
write() { # URL TOKEN TEXT SESSION: POST /v1/events, the status in $code
  code=$(curl -s -o "$dir/body" -w '%{http_code}' --max-time 20 -H "Authorization: Bearer $2" \
    -H 'Content-Type: application/json' \
    --data-binary "$(python3 -c 'import json,sys; print(json.dumps({"text":sys.argv[1],"session":sys.argv[2]}))' "$3" "$4")" \
    "$1/v1/events")
}
recall() { # URL TOKEN QUERY
  code=$(curl -s -o "$dir/body" -w '%{http_code}' --max-time 20 -H "Authorization: Bearer $2" \
    -H 'Content-Type: application/json' \
    --data-binary "$(python3 -c 'import json,sys; print(json.dumps({"query":sys.argv[1]}))' "$3")" \
    "$1/v1/recall")
}
store_seqs() { # STORE: every seq in the outbox after $seq0, one a line
  "$CLI" --db "$1" watch 2>/dev/null | python3 -c '
import json,sys
for l in sys.stdin:
    s=json.loads(l)["seq"]
    if s > int(sys.argv[1]): print(s)' "$seq0"
}
sse_has() { # FILE SEQ SECONDS: the stream file has the event of SEQ
  local until=$(( SECONDS + $3 ))
  while [ "$SECONDS" -le "$until" ]; do
    python3 -c 'import json,sys
ids=[json.loads(l)["id"] for l in open(sys.argv[1])]
sys.exit(0 if int(sys.argv[2]) in ids else 1)' "$1" "$2" 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}
hooks_once() { # STORE SECONDS: every seq of the store after seq0 reached the receiver exactly once
  local until=$(( SECONDS + $2 ))
  while [ "$SECONDS" -le "$until" ]; do
    store_seqs "$1" >"$dir/want"
    if python3 - "$dir/hooks" "$dir/want" <<'EOF' >"$dir/hooks.why" 2>&1; then return 0; fi
import collections, json, sys
got = collections.Counter()
gone = set()  # events of the forgotten user: delivered, then purged from the outbox
bad = 0
for l in open(sys.argv[1]) if __import__("os").path.exists(sys.argv[1]) else []:
    r = json.loads(l)
    bad += not r["verified"]
    got[r["event"]["seq"]] += 1
    if r["event"].get("user", "").startswith("carol-"): gone.add(r["event"]["seq"])
want = [int(x) for x in open(sys.argv[2]) if x.strip()]
twice = sorted(s for s, n in got.items() if n > 1)
missing = sorted(set(want) - set(got))
extra = sorted(set(got) - set(want) - gone)
print("want", len(want), "got", sum(got.values()), "twice", twice, "missing", missing, "extra", extra, "unverified", bad)
sys.exit(0 if want and not twice and not missing and not extra and not bad else 1)
EOF
    # a duplicate never goes away: stop waiting
    grep -q "twice \[[0-9]" "$dir/hooks.why" && return 1
    sleep 0.3
  done
  return 1
}

# ------------------------------------------------------------ usage errors
expect_rc 2 "a bad --cache URL" "$CLI" --db "$dir/x.db" serve --listen 127.0.0.1:0 --cache "http://:$PW@127.0.0.1:1"
expect_out "--cache" "the message names --cache"
if grep -qF "$PW" "$dir/out" "$dir/err"; then fail "the bad URL's password echoed"; else ok; fi
expect_rc 2 "a --cache port out of range" "$CLI" --db "$dir/x.db" serve --listen 127.0.0.1:0 --cache "redis://127.0.0.1:70000"
expect_out "port" "the message names the port"
expect_rc 2 "a --cache user without a password" "$CLI" --db "$dir/x.db" serve --listen 127.0.0.1:0 --cache "redis://someone@127.0.0.1:6379"

redis_start || { echo "FAIL: redis-server did not start"; cat "$dir/redis.log"; exit 1; }
echo "redis-server on 127.0.0.1:$RPORT"
CACHE="redis://:$PWURL@127.0.0.1:$RPORT/3"

python3 "$here/lib/webhook_receiver.py" 'bus-钩子-secret' "$dir/hooks" "$dir/hook.port" &
pids+=($!)
for _ in $(seq 100); do [ -s "$dir/hook.port" ] && break; sleep 0.05; done
HOOK="http://127.0.0.1:$(cat "$dir/hook.port")/hook"
printf 'bus-钩子-secret\n' >"$dir/hook.secret"

# cluster STORE LABEL: the checks on two instances of one store
cluster() {
  local store=$1 label=$2
  : >"$dir/hooks"
  ta=$("$CLI" --db "$store" token create --user alice 2>/dev/null | head -n 1)
  tb=$("$CLI" --db "$store" token create --user bob 2>/dev/null | head -n 1)
  [ -n "$ta" ] && [ -n "$tb" ] || { fail "$label: tokens"; return; }
  seq0=$(store_seqs "$store" | tail -n 1); seq0=${seq0:-0}
  local flags=(--threads 2 --cache "$CACHE" --webhook "$HOOK" --webhook-secret-file "$dir/hook.secret")
  serve_start "$store" "$dir/$label.a" "${flags[@]}" || { fail "$label: A did not start"; cat "$dir/$label.a.err"; return; }
  A=$url; apid=$srv_pid; pids+=($apid)
  serve_start "$store" "$dir/$label.b" "${flags[@]}" || { fail "$label: B did not start"; cat "$dir/$label.b.err"; return; }
  B=$url; bpid=$srv_pid; pids+=($bpid)
  if wait_health "$A" 'd["cache"]["state"]=="up" and d["degraded"] is False and d["status"]=="ok"' 10 &&
     wait_health "$B" 'd["cache"]["state"]=="up"' 10; then ok; else fail "$label: /healthz up"; health "$A"; fi
  # exactly one leader of the webhook group (a fresh Redis: after 6 s)
  local roles= until=$(( SECONDS + 15 ))
  while [ "$SECONDS" -le "$until" ]; do
    roles="$(health "$A" | field 'd["bus"]["webhooks"]') $(health "$B" | field 'd["bus"]["webhooks"]')"
    case "$roles" in "leader standby"|"standby leader") break;; esac
    sleep 0.1
  done
  case "$roles" in "leader standby"|"standby leader") ok;; *) fail "$label: one webhook leader ($roles)";; esac

  # what Redis sees: every note on the channel, captured
  local rcli=(redis-cli -p "$RPORT" -a "$PW" --no-auth-warning)
  "${rcli[@]}" SUBSCRIBE agentmem:bus:3:events >"$dir/$label.notes" 2>&1 & local notes_pid=$!
  pids+=($notes_pid)
  python3 "$here/lib/sse_tail.py" "$B/v1/stream" "$ta" "$dir/$label.sse_b" & pids+=($!)
  python3 "$here/lib/sse_tail.py" "$B/v1/stream" "$tb" "$dir/$label.sse_bob" & pids+=($!)
  python3 "$here/lib/sse_tail.py" "$A/v1/stream" "$ta" "$dir/$label.sse_a" & pids+=($!)
  sleep 1 # the streams are open (each starts after the newest seq)

  # --- a write through A reaches B (zh and en)
  local t0 t1 s_en
  write "$A" "$ta" "以后周报都用PDF格式发给我，三段式" bus1
  [ "$code" = 200 ] && ok || { fail "$label: write zh through A: $code"; cat "$dir/body"; }
  write "$A" "$ta" "From now on, call me Ally and keep answers short" bus1
  t0=$(date +%s%3N)
  [ "$code" = 200 ] && ok || { fail "$label: write en through A: $code"; cat "$dir/body"; }
  s_en=$(store_seqs "$store" | tail -n 1)
  if sse_has "$dir/$label.sse_b" "$s_en" 10; then ok; else fail "$label: B's stream has A's event $s_en"; cat "$dir/$label.sse_b"; fi
  t1=$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    f=json.loads(l)
    if f["id"]==int(sys.argv[2]): print(f["t"])' "$dir/$label.sse_b" "$s_en")
  local lat=$(( t1 - t0 )); [ "$lat" -lt 0 ] && lat=0 # on B's stream before this shell saw A's answer
  echo "bus.sh: $label: A's write answered -> its event on B's stream: $lat ms"
  if grep -q '"data": {[^}]*"user": "alice"' "$dir/$label.sse_bob" 2>/dev/null; then fail "$label: bob's stream on B has alice's events"; else ok; fi
  if sse_has "$dir/$label.sse_a" "$s_en" 5; then ok; else fail "$label: A's own stream has the event"; fi
  if [ "$(health "$B" | field 'd["bus"]["notes_in"] > 0')" = True ]; then ok; else fail "$label: B heard A's notes"; health "$B"; fi
  recall "$B" "$ta" "周报用什么格式"
  if [ "$code" = 200 ] && grep -q 'PDF' "$dir/body"; then ok; else fail "$label: recall zh through B: $code"; cat "$dir/body"; fi
  recall "$B" "$ta" "what should you call me"
  if [ "$code" = 200 ] && grep -q 'Ally' "$dir/body"; then ok; else fail "$label: recall en through B: $code"; cat "$dir/body"; fi
  recall "$B" "$tb" "周报用什么格式"
  if grep -q 'PDF' "$dir/body"; then fail "$label: bob recalls alice's memory through B"; else ok; fi
  write "$B" "$tb" "我以后都喝绿茶，不喝咖啡了" bus2
  [ "$code" = 200 ] && ok || fail "$label: write through B: $code"
  if hooks_once "$store" 15; then ok; else fail "$label: every event once at the webhook: $(cat "$dir/hooks.why")"; fi

  # --- a user forgotten (carol, through B): nothing of a user in Redis, ever
  local tc; tc=$("$CLI" --db "$store" token create --user "carol-$label" 2>/dev/null | head -n 1)
  write "$A" "$tc" "以后给我的合同都加上保密条款 Carolina" bus6
  [ "$code" = 200 ] && ok || fail "$label: carol's write: $code"
  code=$(curl -s -o "$dir/body" -w '%{http_code}' --max-time 20 -H "Authorization: Bearer $tc" \
    -H 'Content-Type: application/json' --data-binary '{"level":"user","grace":0}' "$B/v1/forget")
  [ "$code" = 200 ] && ok || { fail "$label: forget carol through B: $code"; cat "$dir/body"; }
  sleep 1.5
  kill -TERM "$notes_pid" 2>/dev/null
  "${rcli[@]}" --scan >"$dir/$label.keys" 2>&1
  while read -r k; do printf '%s=' "$k"; "${rcli[@]}" GET "$k"; done <"$dir/$label.keys" >"$dir/$label.kv"
  if python3 "$here/lib/bus_redis_check.py" "$dir/$label.notes" "$dir/$label.kv" >"$dir/why" 2>&1; then ok
  else fail "$label: what Redis holds: $(cat "$dir/why")"; fi
  if hooks_once "$store" 15; then ok; else fail "$label: every event once after the forget: $(cat "$dir/hooks.why")"; fi

  # --- Redis killed: both serve from the store
  redis_kill
  if wait_health "$A" 'd["cache"]["state"]=="down" and d["degraded"] is True and d["status"]=="ok" and "error" in d["cache"]' 10 &&
     wait_health "$B" 'd["cache"]["state"]=="down" and d["degraded"] is True' 10; then ok; else fail "$label: /healthz down"; health "$A"; fi
  code=$(curl -s -o /dev/null -w '%{http_code}' "$B/healthz")
  [ "$code" = 200 ] && ok || fail "$label: /healthz with Redis down: HTTP $code"
  write "$A" "$ta" "以后发票抬头写成星河科技有限公司" bus3
  [ "$code" = 200 ] && ok || fail "$label: a write through A with Redis down: $code"
  write "$A" "$ta" "Please always send invoices to billing@example.org" bus3
  [ "$code" = 200 ] && ok || fail "$label: a write through A with Redis down (en): $code"
  local s_down; s_down=$(store_seqs "$store" | tail -n 1)
  recall "$B" "$ta" "发票抬头"
  if [ "$code" = 200 ] && grep -q '星河' "$dir/body"; then ok; else fail "$label: recall through B with Redis down: $code"; fi
  if sse_has "$dir/$label.sse_b" "$s_down" 10; then ok; else fail "$label: B's stream with Redis down (from the store)"; fi

  # --- Redis back: up again, the events written meanwhile delivered once
  redis_start "$RPORT" || { fail "$label: redis did not restart"; return; }
  if wait_health "$A" 'd["cache"]["state"]=="up" and d["degraded"] is False' 10 &&
     wait_health "$B" 'd["cache"]["state"]=="up"' 10; then ok; else fail "$label: /healthz up again"; health "$B"; fi
  write "$A" "$ta" "以后会议纪要用中文写" bus4
  [ "$code" = 200 ] && ok || fail "$label: a write after Redis came back: $code"
  local s_back; s_back=$(store_seqs "$store" | tail -n 1)
  if sse_has "$dir/$label.sse_b" "$s_back" 10; then ok; else fail "$label: B's stream after Redis came back"; fi
  if hooks_once "$store" 20; then ok; else fail "$label: every event once after Redis came back: $(cat "$dir/hooks.why")"; fi

  # --- the lease holder hangs (SIGSTOP): the other takes over within the
  # lease's 3 s; the hung one, continued, stands by and posts nothing twice
  local lead=$A lpid=$apid other=$B opid=$bpid
  if [ "$(health "$B" | field 'd["bus"]["webhooks"]')" = leader ]; then lead=$B lpid=$bpid other=$A opid=$apid; fi
  kill -STOP "$lpid"
  if wait_health "$other" 'd["bus"]["webhooks"]=="leader"' 10; then ok; else fail "$label: the lease taken from a hung holder"; health "$other"; fi
  write "$other" "$ta" "以后报销单每月五号前提交" bus7
  [ "$code" = 200 ] && ok || fail "$label: a write while the holder hangs: $code"
  if hooks_once "$store" 15; then ok; else fail "$label: every event once with the holder hung: $(cat "$dir/hooks.why")"; fi
  kill -CONT "$lpid"
  if wait_health "$lead" 'd["bus"]["webhooks"]=="standby"' 10; then ok; else fail "$label: the continued holder stands by"; health "$lead"; fi
  write "$lead" "$ta" "From now on, book trains rather than flights" bus7
  [ "$code" = 200 ] && ok || fail "$label: a write through the continued one: $code"
  if hooks_once "$store" 15; then ok; else fail "$label: every event once after the hang: $(cat "$dir/hooks.why")"; fi

  # --- the lease holder stops: the other takes over from the cursor
  lead=$A lpid=$apid other=$B opid=$bpid
  if [ "$(health "$B" | field 'd["bus"]["webhooks"]')" = leader ]; then lead=$B lpid=$bpid other=$A opid=$apid; fi
  kill -TERM "$lpid"; wait "$lpid"; local rc=$?
  [ "$rc" = 0 ] && ok || fail "$label: the leader's SIGTERM: exit $rc"
  if wait_health "$other" 'd["bus"]["webhooks"]=="leader"' 10; then ok; else fail "$label: the other instance took the lease"; health "$other"; fi
  write "$other" "$ta" "From now on, send the weekly report on Fridays" bus5
  [ "$code" = 200 ] && ok || fail "$label: a write through the survivor: $code"
  if hooks_once "$store" 15; then ok; else fail "$label: every event once after the failover: $(cat "$dir/hooks.why")"; fi

  # --- the password is nowhere
  health "$other" >"$dir/h.json"
  if grep -qF -e "$PW" -e "$PWURL" "$dir/h.json" "$dir/$label".*.err "$dir/$label".*.out; then
    fail "$label: the Redis password in /healthz or a log"; else ok; fi
  kill -TERM "$opid"; wait "$opid"; rc=$?
  [ "$rc" = 0 ] && ok || fail "$label: the survivor's SIGTERM: exit $rc"
}

cluster "$dir/s.db" sqlite

# the store made anew at the same path: the group's recorded seq (of the old
# file) is past every seq of the new one, which must still be delivered
rm -f "$dir/s.db" "$dir/s.db-wal" "$dir/s.db-shm"
: >"$dir/hooks"; seq0=0
ta=$("$CLI" --db "$dir/s.db" token create --user alice 2>/dev/null | head -n 1)
serve_start "$dir/s.db" "$dir/anew" --cache "$CACHE" --webhook "$HOOK" --webhook-secret-file "$dir/hook.secret" ||
  fail "a server on the new store did not start"
pids+=($srv_pid)
if wait_health "$url" 'd["bus"]["webhooks"]=="leader"' 15; then ok; else fail "the new store's server leads"; health "$url"; fi
write "$url" "$ta" "以后周报都用PDF格式发给我" anew
[ "$code" = 200 ] && ok || fail "a write on the new store: $code"
if hooks_once "$dir/s.db" 15; then ok; else fail "the new store's events delivered: $(cat "$dir/hooks.why")"; fi
serve_stop

# a wrong password: down with Redis's reason, never the password
serve_start "$dir/s.db" "$dir/wrong" --cache "redis://:not-$PWURL@127.0.0.1:$RPORT" || fail "a server with a wrong password did not start"
pids+=($srv_pid)
if wait_health "$url" 'd["cache"]["state"]=="down" and d["degraded"] is True' 10; then ok; else fail "a wrong password is down"; fi
health "$url" >"$dir/h.json"
# the public /healthz says "unreachable"; an admin token's holder and the log get Redis's reason
if grep -q 'AUTH' "$dir/h.json" || ! grep -q '"error": *"unreachable"' "$dir/h.json"; then
  fail "the public /healthz quotes Redis"; cat "$dir/h.json"; else ok; fi
tadm=$("$CLI" --db "$dir/s.db" token create --user ops --admin 2>/dev/null | head -n 1)
curl -s --max-time 5 -H "Authorization: Bearer $tadm" "$url/healthz" >"$dir/ha.json"
if grep -q 'AUTH' "$dir/ha.json"; then ok; else fail "the reason names AUTH (admin)"; cat "$dir/ha.json"; fi
if grep -q 'healthz: cache down: .*AUTH' "$dir/wrong.err"; then ok; else fail "the reason is not logged"; fi
if grep -qF -e "not-pw" -e "$PW" "$dir/h.json" "$dir/ha.json" "$dir/wrong.err"; then fail "the wrong password shown"; else ok; fi
serve_stop

# the same on PostgreSQL when it is installed (tests/sh/lib/pg.bash)
. "$here/lib/pg.bash"
if pg_find; then
  pg_init am-bus; pg_rc=$?
  trap '[ -n "${TMP:-}" ] && pg_cleanup; cleanup' EXIT # pg_init's trap, and this script's
  if [ "$pg_rc" = 0 ] && pg_start && pg_new_db tcp; then
    "$CLI" --db "$URL" token create --user nobody-yet >/dev/null 2>&1 # makes the schema
    cluster "$URL" postgres
  else fail "PostgreSQL did not start"; fi
else
  echo "SKIP: no PostgreSQL (the SQLite cluster ran)"
fi

echo "bus.sh: $passed passed, $failed failed"
[ "$failed" = 0 ]
