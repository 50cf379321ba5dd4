#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# PostgreSQL restarted under load (docs/SCALING.md, "A
# lost connection"): a throwaway PostgreSQL (tests/sh/lib/pg.bash), one
# `agentmem serve --store postgres://...` and `agentmem bench serve`
# writing Chinese and English events for six users (most with a client id,
# every 5th without one: its id is then the end of its text) and
# recalling, while PostgreSQL is stopped twice -- `pg_ctl stop -m fast`
# and started again at once, then `-m immediate` (a crash) for longer than
# busy_timeout_ms -- and started again.  Then:
#   - the server answers again without being restarted (/healthz 200,
#     store_reachable true; a Chinese and an English write and recall);
#   - during the outage /healthz is 503 with store_reachable false, and a
#     write and a recall get 503 + Retry-After, code "unavailable" naming
#     the store -- never a 500, never a dropped connection; so are eight
#     recalls at once (some must open a new handle: it cannot connect);
#   - every write the client saw acknowledged (200) is in PostgreSQL
#     exactly once (by the client's own ids and, for writes without one,
#     by the id in the text), and no write is there twice;
#   - a COMMIT whose backend is terminated while a deferred trigger holds
#     it (not committed) is run again: 200, stored once; a COMMIT that was
#     done but whose answer a proxy withholds (tests/sh/lib/pg_cut_proxy.py)
#     is reported written and stored once, not twice (pg_xact_status);
#   - the server exits 0 on SIGTERM, no sanitizer report.
# Prints requests, acknowledged, failed, resent, the server's retries and
# reconnects, and the time to recover.  Skips (exit 77, "SKIP: no
# PostgreSQL") only when the server binaries are not installed.
set -u
CLI=${1:?usage: pg_faults.sh AGENTMEM}
CLI=$(cd "$(dirname "$CLI")" && pwd)/$(basename "$CLI")
cd "$(dirname "$0")/../.."
. tests/sh/lib/pg.bash
pg_find || exit 77
command -v curl >/dev/null || { echo "SKIP: no curl"; exit 77; }
pg_init am-pgfault || exit 1
srv_pid=
stop_all() {
  [ -n "$srv_pid" ] && kill -TERM "$srv_pid" 2>/dev/null && wait "$srv_pid"
  [ -n "${load_pid:-}" ] && kill "$load_pid" 2>/dev/null
  pg_cleanup
}
trap stop_all EXIT

fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# a crash (-m immediate) must not lose what was committed: WAL written at
# every commit (the machine itself does not crash: fsync may stay off)
PG_EXTRA="-c synchronous_commit=on"
pg_start || { echo "FAIL: the server did not start"; exit 1; }
pg_new_db tcp || { echo "FAIL: createdb"; exit 1; }
echo "PostgreSQL $("$PGBIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$PORT ($TMP)"

# the store and six users with a token each
"$CLI" --store "$URL" init >/dev/null || { echo "FAIL: init"; exit 1; }
for u in ana 李雷 bob 韩梅梅 carol 王芳; do
  echo "$u $("$CLI" --store "$URL" token create --user "$u")"
done >"$TMP/tokens"
[ "$(awk 'NF == 2' "$TMP/tokens" | wc -l)" = 6 ] || { cat "$TMP/tokens"; echo "FAIL: tokens"; exit 1; }
tok=$(awk 'NR == 1 {print $2}' "$TMP/tokens")

# the server: a write waits for the store at most 2 s (busy_timeout_ms)
AGENTMEM_BUSY_TIMEOUT_MS=2000 "$CLI" --store "$URL" serve --listen 127.0.0.1:0 --threads 4 \
  >"$TMP/srv.out" 2>"$TMP/srv.err" &
srv_pid=$!
base=
for _ in $(seq 200); do
  base=$(grep -o 'http://127\.0\.0\.1:[0-9][0-9]*' "$TMP/srv.out" | head -n 1)
  [ -n "$base" ] && break
  sleep 0.05
done
[ -n "$base" ] || { cat "$TMP/srv.err"; echo "FAIL: agentmem serve did not start"; exit 1; }

# status and headers of one request: "STATUS" in $TMP/r.code, body in $TMP/r.body
req() { # METHOD PATH [BODY]
  curl -s -m 30 -o "$TMP/r.body" -D "$TMP/r.head" -w '%{http_code}' -X "$1" \
    -H "Authorization: Bearer $tok" -H 'Content-Type: application/json' \
    ${3:+--data-binary "$3"} "$base$2" >"$TMP/r.code" 2>/dev/null
}
code() { cat "$TMP/r.code"; }
healthz_ok() { req GET /healthz && [ "$(code)" = 200 ] && grep -q '"store_reachable":true' "$TMP/r.body"; }

healthz_ok || fail "/healthz before the faults: $(code) $(cat "$TMP/r.body")"

secs=26
"$CLI" bench serve --url "$base" --tokens "$TMP/tokens" --seconds "$secs" --writes 0.6 \
  --retries 3 --anon 5 --acked "$TMP/acked" --log "$TMP/log" >"$TMP/load.out" 2>&1 &
load_pid=$!

ms() { date +%s%3N; }
# 1. a fast shutdown (open sessions terminated), started again at once
sleep 4
pg_stop fast || fail "pg_ctl stop -m fast"
pg_start || fail "PostgreSQL did not start again after -m fast"
# 2. a crash (-m immediate), down for 3 s (longer than busy_timeout_ms)
sleep 5
pg_stop immediate || fail "pg_ctl stop -m immediate"
down_at=$(ms)
sleep 0.5
req GET /healthz
if [ "$(code)" != 503 ] || ! grep -q '"store_reachable":false' "$TMP/r.body" ||
   ! grep -q '"status":"unavailable"' "$TMP/r.body" || ! grep -q '"store_error":"' "$TMP/r.body"; then
  fail "/healthz while PostgreSQL is down: $(code) $(cat "$TMP/r.body")"
fi
# the public /healthz says "unreachable", never libpq's words (host, port)
if ! grep -q '"store_error":"unreachable"' "$TMP/r.body" || grep -q "$PORT\|127\.0\.0\.1\|onnection" "$TMP/r.body"; then
  fail "/healthz while PostgreSQL is down quotes the driver: $(cat "$TMP/r.body")"
fi
# a write (English) and a recall (Chinese) while it is down: 503, Retry-After, the store named
down_req() { # PATH BODY
  req POST "$1" "$2"
  if [ "$(code)" != 503 ] || ! grep -qi '^Retry-After: [0-9]' "$TMP/r.head" ||
     ! grep -q '"code":"unavailable"' "$TMP/r.body" || ! grep -q '"store":"postgres"' "$TMP/r.body"; then
    fail "$1 while PostgreSQL is down: $(code) $(cat "$TMP/r.body")"
  fi
  if grep -q "$PORT\|127\.0\.0\.1" "$TMP/r.body"; then
    fail "$1 while PostgreSQL is down quotes the driver: $(cat "$TMP/r.body")"
  fi
}
down_req /v1/events '{"text":"While the database is down I ask for tea"}'
down_req /v1/recall '{"query":"我喜欢喝什么？"}'
# more requests at once than handles are free: those that must open a new
# handle (the store down) are answered the same way, not "busy"
par_pids=
for i in 1 2 3 4 5 6 7 8; do
  curl -s -m 30 -o "$TMP/par$i.body" -w '%{http_code}' -X POST -H "Authorization: Bearer $tok" \
    -H 'Content-Type: application/json' --data-binary '{"query":"which tea do I like?"}' \
    "$base/v1/recall" >"$TMP/par$i.code" 2>/dev/null &
  par_pids="$par_pids $!"
done
for p in $par_pids; do wait "$p"; done
for i in 1 2 3 4 5 6 7 8; do
  if [ "$(cat "$TMP/par$i.code")" != 503 ] || ! grep -q '"code":"unavailable"' "$TMP/par$i.body" ||
     ! grep -q '"store":"postgres"' "$TMP/par$i.body"; then
    fail "a recall of 8 at once while PostgreSQL is down: $(cat "$TMP/par$i.code") $(cat "$TMP/par$i.body")"
  fi
done
sleep 1.5
pg_start || fail "PostgreSQL did not start again after -m immediate"
up_at=$(ms)
recovered=
for _ in $(seq 300); do
  if healthz_ok; then recovered=$(ms); break; fi
  sleep 0.05
done
[ -n "$recovered" ] || recovered=$up_at
[ "$recovered" != "$up_at" ] || fail "/healthz did not come back after PostgreSQL started: $(code) $(cat "$TMP/r.body")"
wait "$load_pid"
load_pid=

# the same server, not restarted: writes and recalls in both languages
kill -0 "$srv_pid" 2>/dev/null || fail "the server died"
req POST /v1/events '{"text":"After the restart I still prefer green tea","id":"after-en"}'
[ "$(code)" = 200 ] || fail "an English write after the faults: $(code) $(cat "$TMP/r.body")"
req POST /v1/events '{"text":"重启以后我还是喜欢喝绿茶","id":"after-zh"}'
[ "$(code)" = 200 ] || fail "a Chinese write after the faults: $(code) $(cat "$TMP/r.body")"
req POST /v1/recall '{"query":"我喜欢喝什么茶？"}'
{ [ "$(code)" = 200 ] && grep -q '绿茶' "$TMP/r.body"; } || fail "a Chinese recall after the faults: $(code) $(head -c 300 "$TMP/r.body")"
req POST /v1/recall '{"query":"which tea do I prefer?"}'
{ [ "$(code)" = 200 ] && grep -q 'green tea' "$TMP/r.body"; } || fail "an English recall after the faults: $(code) $(head -c 300 "$TMP/r.body")"
# the ambiguous case: the connection lost during COMMIT.  A deferred
# trigger makes COMMIT of a text with "慢提交" sleep 1.5 s; its backend is
# terminated meanwhile: the server must ask whether it was committed
# (pg_xact_status: aborted), run the write again and answer 200, stored once.
psql_in "$DB" "CREATE FUNCTION slow_commit() RETURNS trigger LANGUAGE plpgsql AS
  \$\$BEGIN IF NEW.content LIKE '%慢提交%' THEN PERFORM pg_sleep(1.5); END IF; RETURN NULL; END\$\$;
  CREATE CONSTRAINT TRIGGER slow_commit AFTER INSERT ON events DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION slow_commit()" || fail "the slow-commit trigger"
req GET /metrics
retries_before_slow=$(awk '/^agentmem_store_retries_total/ {print $2}' "$TMP/r.body")
( req POST /v1/events '{"text":"慢提交：我的车牌号是京A12345"}'; cp "$TMP/r.code" "$TMP/slow.code"
  cp "$TMP/r.body" "$TMP/slow.body" ) &
slow_pid=$!
killed=
for _ in $(seq 100); do
  killed=$(psql_in "$DB" "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                          WHERE query = 'COMMIT' AND wait_event = 'PgSleep'")
  [ -n "$killed" ] && break
  sleep 0.05
done
wait "$slow_pid"
[ "$killed" = t ] || fail "no COMMIT was caught sleeping"
[ "$(cat "$TMP/slow.code")" = 200 ] || fail "the write whose COMMIT lost its connection: $(cat "$TMP/slow.code") $(cat "$TMP/slow.body")"
slow_n=$(psql_in "$DB" "SELECT count(*) FROM events WHERE content LIKE '%慢提交%'")
[ "$slow_n" = 1 ] || fail "the write whose COMMIT lost its connection is stored $slow_n times"
psql_in "$DB" "DROP TRIGGER slow_commit ON events" || fail "drop the trigger"

req GET /metrics
retries=$(awk '/^agentmem_store_retries_total/ {print $2}' "$TMP/r.body")
reconnects=$(awk '/^agentmem_store_reconnects_total/ {print $2}' "$TMP/r.body")

kill -TERM "$srv_pid"; wait "$srv_pid"; srv_rc=$?; srv_pid=
[ "$srv_rc" = 0 ] || fail "the server exited $srv_rc"
if grep -E "AddressSanitizer|LeakSanitizer|runtime error:|Segmentation|Aborted" "$TMP/srv.err"; then
  fail "the server's sanitizer report (above)"
fi
# the driver's words went to the log instead, rate-limited
grep -q "healthz: store down: " "$TMP/srv.err" || fail "the store's failure is not in the log"
n_log=$(grep -c "healthz: store down: " "$TMP/srv.err")
[ "$n_log" -le 20 ] || fail "the store's failure logged $n_log times (not rate-limited)"

# the other ambiguous case: COMMIT done, its answer lost (a proxy withholds
# it and closes the connection).  The write, without an id, must be
# reported written (the store asks pg_xact_status: committed) and be
# stored once -- a blind retry would store it twice.
cut=skipped
if command -v python3 >/dev/null; then
  python3 tests/sh/lib/pg_cut_proxy.py "$PORT" "$TMP/arm" >"$TMP/proxy.port" 2>"$TMP/proxy.err" &
  proxy_pid=$!
  for _ in $(seq 100); do [ -s "$TMP/proxy.port" ] && break; sleep 0.05; done
  pport=$(cat "$TMP/proxy.port")
  : >"$TMP/arm"
  "$CLI" --store "postgresql://am@127.0.0.1:$pport/$DB" add --user ana \
    --text "提交的回答丢了, the answer to COMMIT was lost (cut-commit)" >"$TMP/cut.out" 2>&1
  cut_rc=$?
  kill "$proxy_pid" 2>/dev/null; wait "$proxy_pid" 2>/dev/null
  [ -f "$TMP/arm.done" ] || fail "the proxy cut no COMMIT off"
  [ "$cut_rc" = 0 ] || fail "a write whose COMMIT answer was lost: exit $cut_rc: $(cat "$TMP/cut.out")"
  cut=$(psql_in "$DB" "SELECT count(*) FROM events WHERE content LIKE '%(cut-commit)%'")
  [ "$cut" = 1 ] || fail "a write whose COMMIT answer was lost is stored $cut times"
fi

# every acknowledged write exactly once; no write twice
psql_in "$DB" "SELECT client_id FROM events WHERE client_id LIKE 'load-%'" | sort >"$TMP/stored.ids"
psql_in "$DB" "SELECT substring(content from '#(load-[0-9]+-[0-9]+)\$') FROM events
               WHERE client_id IS NULL AND content LIKE '%#load-%'" | sed 's/^/#/' | sort >"$TMP/stored.anon"
cut -d' ' -f2 "$TMP/acked" | sort >"$TMP/acked.ids"
dups=$(sort "$TMP/stored.ids" "$TMP/stored.anon" | uniq -d | wc -l)
missing=$(sort "$TMP/stored.ids" "$TMP/stored.anon" | comm -23 "$TMP/acked.ids" - | wc -l)
acked=$(wc -l <"$TMP/acked.ids")
acked_anon=$(grep -c '^#' "$TMP/acked.ids")
[ "$dups" = 0 ] || { fail "$dups writes are in the store more than once"; sort "$TMP/stored.ids" "$TMP/stored.anon" | uniq -d | head -5; }
if [ "$missing" != 0 ]; then
  fail "$missing acknowledged writes are not in the store:"
  sort "$TMP/stored.ids" "$TMP/stored.anon" | comm -23 "$TMP/acked.ids" - | head -5 |
    while read -r id; do grep -F " $id " "$TMP/log"; done
  tail -5 "$TMP/srv.err"
fi
[ "$acked" -gt 20 ] || fail "only $acked writes acknowledged"
[ "$acked_anon" -gt 0 ] || fail "no write without an id acknowledged"

# every attempt answered: 200, or 503 with Retry-After and a clean error code
attempts=$(wc -l <"$TMP/log")
bad=$(awk '$2 != 200 && !($2 == 503 && ($5 == "unavailable" || $5 == "busy") && $6 != "-")' "$TMP/log")
[ -z "$bad" ] || { fail "requests that were not answered 200 or a clean 503:"; echo "$bad" | head -5; }
failed=$(awk '$2 != 200' "$TMP/log" | wc -l)
[ "$failed" -gt 0 ] || fail "no request failed while PostgreSQL was down for longer than busy_timeout_ms"
resent=$(sed -n 's/.*resent after a 503 or no reply: \([0-9]*\).*/\1/p' "$TMP/load.out")
stored_after=$(psql_in "$DB" "SELECT count(*) FROM events WHERE client_id IN ('after-en', 'after-zh')")
[ "$stored_after" = 2 ] || fail "the writes after the faults: $stored_after of 2 stored"
[ "${retries:-0}" -gt 0 ] || fail "the server ran no call again on a new connection (retries ${retries:-none})"
# the write whose COMMIT lost its connection was run again by the writer
# thread: counted in /metrics like a worker's
[ "${retries:-0}" -gt "${retries_before_slow:-0}" ] ||
  fail "the COMMIT run again is not in agentmem_store_retries_total (${retries_before_slow:-none} -> ${retries:-none})"

echo "pg_faults: $attempts requests (attempts), $acked writes acknowledged ($acked_anon without an id)," \
     "$failed answered 503, $resent resent by the client;"
echo "pg_faults: the server ran ${retries:-?} store calls again on ${reconnects:-?} new connections;" \
     "down $((up_at - down_at)) ms, /healthz back $((recovered - up_at)) ms after PostgreSQL started;" \
     "missing $missing, twice $dups; a COMMIT cut off: answered $(cat "$TMP/slow.code"), stored $slow_n time(s);"
echo "pg_faults: a COMMIT done and its answer lost: stored $cut time(s)"
sed -n '2,3p' "$TMP/load.out"
if [ "$fails" = 0 ]; then echo "PASS: pg_faults"; else echo "FAIL: pg_faults ($fails)"; fi
[ "$fails" = 0 ]
