#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every form of the Redis URL (docs/EVENTS.md "Between server instances",
# docs/SCALING.md "Redis") against a throwaway redis-server (a temp dir, a
# free loopback port, requirepass, and ACL users made with ACL SETUSER), on
# both Redis connections of the project:
#   - the event bus of `agentmem serve --cache URL` (tools/server/bus.c) and
#     the library's recall cache of each server handle (src/cache/redis.c),
#     seen through /healthz ("cache"."state" the bus, "recall_cache" the
#     library), PUBSUB NUMSUB on the bus's channel, and CLIENT LIST (every
#     connection of the server is in the URL's database as the URL's user);
#   - the library alone through the CLI (`agentmem --cache URL cache`, and a
#     working-memory entry that must land in the URL's database).
# Forms: a password only (requirepass) and an ACL user with its password
# (%-escaped, and raw with ':' and '@' in it), each with no database, "/",
# "/0" and "/N"; then the refusals: a wrong password, a wrong user, no
# password at all, a database Redis does not have -- the server starts
# (Redis refusing is not a startup failure), says why on stderr and in
# /healthz (degraded, still 200), ends 0 on SIGTERM, never crashes (a
# double free of the AUTH reply once aborted every password-protected
# database-0 start), and never prints the password; then Redis unreachable
# at start (up once it listens) and a refusal that Redis later accepts (the
# ACL user created while the server runs: both connections come up).
# Skips (exit 77, "SKIP: no redis-server") only when redis-server is missing.
# $1 = the agentmem CLI.
set -u
CLI=${1:?usage: redis_urls.sh AGENTMEM}
CLI=$(cd "$(dirname "$CLI")" && pwd)/$(basename "$CLI")
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v redis-server >/dev/null 2>&1 || ! command -v redis-cli >/dev/null 2>&1; then
  echo "SKIP: no redis-server (scripts/install-deps.sh installs it)"; exit 77
fi
. "$here/lib/expect.bash"
. "$here/lib/serve.bash"

PW='pw-密码-s3cret'          # requirepass (the default user)
UPW='u:口令@pw'              # the ACL user amuser's: ':' and '@' inside
RAWPW='r:p@ss'               # the ACL user rawuser's, written unescaped in a URL
LATEPW='late-迟到-pw'        # the ACL user made while a server runs
enc() { python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$1"; }
PWURL=$(enc "$PW"); UPWURL=$(enc "$UPW"); LATEURL=$(enc "$LATEPW")
secrets=("$PW" "$PWURL" "$UPW" "$UPWURL" "$RAWPW" "$LATEPW" "$LATEURL" "wrong-错-pw")

redis_pids=(); RPORT=; srv_pids=()
cleanup() {
  local p
  for p in "${srv_pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
  for p in "${redis_pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; failed=$((failed+1)); }
ok() { passed=$((passed+1)); }
rcli() { timeout 10 redis-cli -p "$RPORT" -a "$PW" --no-auth-warning "$@"; }

free_port() { # a loopback port nobody listens on (bound and released by the kernel's choice)
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}
redis_start() { # PORT LOG: redis-server with requirepass on 127.0.0.1:PORT; 0 when it answers
  redis-server --port "$1" --bind 127.0.0.1 --save '' --appendonly no --daemonize no \
    --requirepass "$PW" --dir "$dir" >"$2" 2>&1 &
  redis_pids+=($!)
  local _
  for _ in $(seq 100); do
    timeout 5 redis-cli -p "$1" -a "$PW" --no-auth-warning ping 2>/dev/null | grep -q PONG && return 0
    kill -0 "${redis_pids[-1]}" 2>/dev/null || return 1
    sleep 0.05
  done
  return 1
}
for try in 1 2 3 4 5; do
  RPORT=$(free_port)
  redis_start "$RPORT" "$dir/redis.log" && break
  RPORT=
done
[ -n "$RPORT" ] || { cat "$dir/redis.log"; echo "FAIL: redis-server did not start"; exit 1; }
echo "redis-server $(redis-server --version | awk '{print $3}') on 127.0.0.1:$RPORT"
rcli ACL SETUSER amuser on ">$UPW" '~*' '&*' '+@all' >/dev/null || fail "ACL SETUSER amuser"
rcli ACL SETUSER rawuser on ">$RAWPW" '~*' '&*' '+@all' >/dev/null || fail "ACL SETUSER rawuser"
H="127.0.0.1:$RPORT"

. "$here/lib/health.bash"
no_secret() { # LABEL FILE...: no password (right or wrong, raw or escaped) in the files
  local label=$1 s; shift
  for s in "${secrets[@]}"; do
    if grep -qF -- "$s" "$@" 2>/dev/null; then fail "$label: a password is printed"; return; fi
  done
  ok
}
no_crash() { # LABEL FILE: no sanitizer report or libc abort in a stderr file
  if grep -qE 'AddressSanitizer|double free|free\(\): |runtime error|Aborted' "$2"; then
    fail "$1: the server crashed"; head -30 "$2"
  else ok; fi
}
clients_in() { # DB USER SECONDS: every client but ours is in DB as USER, the bus's subscription among them
  local until=$(( SECONDS + $3 ))
  while [ "$SECONDS" -le "$until" ]; do
    rcli CLIENT LIST >"$dir/clients" 2>/dev/null
    python3 - "$dir/clients" "$1" "$2" <<'EOF' >"$dir/clients.why" 2>&1 && return 0
import sys
rows = [dict(kv.split("=", 1) for kv in l.split() if "=" in kv) for l in open(sys.argv[1]) if l.strip()]
rows = [r for r in rows if r.get("cmd") != "client|list"]   # ours
bad = [(r.get("db"), r.get("user"), r.get("cmd")) for r in rows
       if r.get("db") != sys.argv[2] or r.get("user") != sys.argv[3]]
subs = [r for r in rows if r.get("cmd") == "subscribe"]
others = [r for r in rows if r.get("cmd") != "subscribe"]
print("bad", bad, "subs", len(subs), "others", len(others))
sys.exit(0 if not bad and len(subs) == 1 and others else 1)
EOF
    sleep 0.1
  done
  return 1
}

# ------------------------------------------------------------ the accepted forms
# LABEL URL DB USER: serve --cache URL: the bus and the library up in DB as USER;
# the CLI's library connection up, its working memory in DB
accepted() {
  local label=$1 u=$2 db=$3 user=$4
  serve_start "$dir/s.db" "$dir/$label" --threads 1 --cache "$u" ||
    { fail "$label: serve did not start"; cat "$dir/$label.err"; return; }
  srv_pids+=($srv_pid)
  if wait_health "$url" 'd["cache"]["state"]=="up" and d["cache"]["recall_cache"]=="up" and d["degraded"] is False' 10
  then ok; else fail "$label: /healthz: the bus and the recall cache up"; health "$url"; echo; fi
  local n; n=$(rcli PUBSUB NUMSUB "agentmem:bus:$db:events" | tail -n 1)
  [ "$n" = 1 ] && ok || fail "$label: the bus subscribed to agentmem:bus:$db:events ($n)"
  if clients_in "$db" "$user" 5; then ok; else fail "$label: the server's connections: $(cat "$dir/clients.why")"; fi
  grep -q "cache: the bus is up (redis at $H, db $db," "$dir/$label.err" && ok ||
    fail "$label: stderr says the bus is up in db $db"
  serve_stop
  [ "$srv_rc" = 0 ] && ok || fail "$label: serve ended with $srv_rc"
  no_crash "$label" "$dir/$label.err"
  no_secret "$label" "$dir/$label.out" "$dir/$label.err"

  # the library alone (the CLI): up, and its writes in DB
  expect_rc 0 "$label: agentmem --cache URL cache" "$CLI" --db "$dir/s.db" --cache "$u" cache
  expect_out "cache: up" "$label: the library's connection is up"
  no_secret "$label (cli)" "$dir/out" "$dir/err"
  rcli FLUSHALL >/dev/null
  expect_rc 0 "$label: working set" "$CLI" --db "$dir/s.db" --cache "$u" working set --user 用户 \
    --session s1 --key k --value "周五交周报 / report on Fridays" --ttl 60000
  local d sizes=
  for d in 0 2 5 7; do sizes="$sizes $d:$(rcli -n "$d" DBSIZE)"; done
  case "$sizes" in *" $db:0"*) fail "$label: nothing written in db $db ($sizes)";; *) ok;; esac
  [ "$(echo "$sizes" | grep -o ':[1-9][0-9]*' | wc -l)" = 1 ] && ok ||
    fail "$label: keys in another database than $db ($sizes)"
}

accepted pw-nodb "redis://:$PWURL@$H" 0 default
accepted pw-slash "redis://:$PWURL@$H/" 0 default
accepted pw-db0 "redis://:$PWURL@$H/0" 0 default
accepted pw-db5 "redis://:$PWURL@$H/5" 5 default
accepted user-nodb "redis://amuser:$UPWURL@$H" 0 amuser
accepted user-db0 "redis://amuser:$UPWURL@$H/0" 0 amuser
accepted user-db7 "redis://amuser:$UPWURL@$H/7" 7 amuser
accepted user-raw-db2 "redis://rawuser:$RAWPW@$H/2" 2 rawuser
accepted default-user "redis://default:$PWURL@$H" 0 default

# ------------------------------------------------------------ the refused ones
# LABEL URL REASON-REGEX: the server starts degraded and says why; the CLI's
# library connection is down (exit 1) with a reason; nothing crashes or leaks
refused() {
  local label=$1 u=$2 why=$3
  serve_start "$dir/s.db" "$dir/$label" --threads 1 --cache "$u" ||
    { fail "$label: serve did not start (Redis refusing is not a startup failure)"; cat "$dir/$label.err"; return; }
  srv_pids+=($srv_pid)
  if wait_health "$url" 'd["cache"]["state"]=="down" and d["cache"]["recall_cache"]=="down" and d["degraded"] is True and d["status"]=="ok"' 10
  then ok; else fail "$label: /healthz: degraded, both down"; health "$url"; echo; fi
  health "$url" >"$dir/$label.health"
  # the public /healthz says "unreachable"; an admin token's holder gets Redis's reason
  if grep -qE "$why" "$dir/$label.health" || ! grep -q '"error":"unreachable"' "$dir/$label.health"; then
    fail "$label: the public /healthz quotes Redis: $(cat "$dir/$label.health")"; else ok; fi
  [ -n "${tadm:-}" ] || tadm=$("$CLI" --db "$dir/s.db" token create --user ops --admin 2>/dev/null | head -n 1)
  curl -s --max-time 5 -H "Authorization: Bearer $tadm" "$url/healthz" >"$dir/$label.health-admin"
  grep -qE "$why" "$dir/$label.health-admin" && ok ||
    fail "$label: /healthz gives an admin the reason ($why): $(cat "$dir/$label.health-admin")"
  local until=$(( SECONDS + 5 ))
  until grep -qE "cache: redis at $H/[0-9]+ refused.*($why)" "$dir/$label.err" || [ "$SECONDS" -gt "$until" ]; do sleep 0.1; done
  grep -qE "cache: redis at $H/[0-9]+ refused.*($why)" "$dir/$label.err" && ok ||
    { fail "$label: stderr names the cache and why"; cat "$dir/$label.err"; }
  kill -0 "$srv_pid" 2>/dev/null && ok || fail "$label: the server is gone"
  serve_stop
  [ "$srv_rc" = 0 ] && ok || fail "$label: serve ended with $srv_rc"
  no_crash "$label" "$dir/$label.err"
  no_secret "$label" "$dir/$label.out" "$dir/$label.err" "$dir/$label.health" "$dir/$label.health-admin"
  expect_rc 1 "$label: agentmem --cache URL cache (down)" "$CLI" --db "$dir/s.db" --cache "$u" cache
  if grep -qE "cache: down: .*($why)" "$dir/out"; then ok; else fail "$label: the library says why"; cat "$dir/out" "$dir/err"; fi
  no_crash "$label (cli)" "$dir/err"
  no_secret "$label (cli)" "$dir/out" "$dir/err"
}

refused wrong-pw "redis://:wrong-错-pw@$H" 'WRONGPASS'
refused wrong-pw-db0 "redis://:wrong-错-pw@$H/0" 'WRONGPASS'
refused wrong-pw-db5 "redis://:wrong-错-pw@$H/5" 'WRONGPASS'
refused wrong-user "redis://nobody:$UPWURL@$H" 'WRONGPASS'
refused wrong-user-pw "redis://amuser:$PWURL@$H/3" 'WRONGPASS'
refused no-pw "redis://$H" 'NOAUTH'
refused no-pw-db4 "redis://$H/4" 'NOAUTH'
refused db-out-of-range "redis://:$PWURL@$H/99" 'SELECT.*(DB index|out of range)'

tok=$("$CLI" --db "$dir/s.db" token create --user 用户 2>/dev/null | head -n 1)
lib_up() { # URL: recalls until the server's handle is up again (the library retries on its
  # next command, at most every second); 0 when /healthz says recall_cache up, not degraded
  local until=$(( SECONDS + 10 ))
  while [ "$SECONDS" -le "$until" ]; do
    curl -s -o /dev/null --max-time 5 -H "Authorization: Bearer $tok" -H 'Content-Type: application/json' \
      --data-binary '{"query":"周报 report"}' "$1/v1/recall"
    [ "$(health "$1" | field 'd["cache"]["recall_cache"]=="up" and d["degraded"] is False' 2>/dev/null)" = True ] &&
      { ok; return 0; }
    sleep 0.3
  done
  return 1
}

# ------------------------------------------------------------ Redis unreachable, then up
P2=$(free_port)
U2="redis://amuser:$UPWURL@127.0.0.1:$P2/0"
serve_start "$dir/s.db" "$dir/unreach" --threads 1 --cache "$U2" ||
  { fail "unreachable: serve did not start (Redis down is not a startup failure)"; cat "$dir/unreach.err"; }
srv_pids+=($srv_pid)
if wait_health "$url" 'd["cache"]["state"]=="down" and d["degraded"] is True and d["status"]=="ok"' 10
then ok; else fail "unreachable: /healthz degraded"; health "$url"; echo; fi
grep -q "cache: redis is not reachable yet" "$dir/unreach.err" && ok || fail "unreachable: stderr says not reachable yet"
expect_rc 1 "unreachable: agentmem --cache URL cache" "$CLI" --db "$dir/s.db" --cache "$U2" cache
expect_out "cache: down: cannot connect" "unreachable: the library says it cannot connect"
if redis_start "$P2" "$dir/redis2.log"; then
  timeout 10 redis-cli -p "$P2" -a "$PW" --no-auth-warning ACL SETUSER amuser on ">$UPW" '~*' '&*' '+@all' >/dev/null
  if wait_health "$url" 'd["cache"]["state"]=="up"' 10; then ok
  else fail "unreachable: the bus connects once Redis listens"; health "$url"; echo; fi
  lib_up "$url" || { fail "unreachable: the recall cache connects once Redis listens"; health "$url"; echo; }
else fail "the second redis-server did not start on $P2"; fi
serve_stop
[ "$srv_rc" = 0 ] && ok || fail "unreachable: serve ended with $srv_rc"
no_crash unreachable "$dir/unreach.err"
no_secret unreachable "$dir/unreach.out" "$dir/unreach.err"

# ------------------------------------------------------------ refused, then accepted
UL="redis://late:$LATEURL@$H/0"
: >"$dir/late.err"
serve_start "$dir/s.db" "$dir/late" --threads 1 --cache "$UL" || { fail "late: serve did not start"; cat "$dir/late.err"; }
srv_pids+=($srv_pid)
if wait_health "$url" 'd["cache"]["state"]=="down" and d["cache"]["recall_cache"]=="down"' 10; then ok
else fail "late: down before the user exists"; health "$url"; echo; fi
rcli ACL SETUSER late on ">$LATEPW" '~*' '&*' '+@all' >/dev/null || fail "ACL SETUSER late"
if wait_health "$url" 'd["cache"]["state"]=="up"' 10; then ok; else fail "late: the bus reconnects after a refusal"; health "$url"; echo; fi
lib_up "$url" || { fail "late: the recall cache reconnects after a refusal"; health "$url"; echo; }
grep -q "cache: the bus is up (redis at $H, db 0," "$dir/late.err" && ok || fail "late: stderr says the bus is up"
serve_stop
[ "$srv_rc" = 0 ] && ok || fail "late: serve ended with $srv_rc"
no_crash late "$dir/late.err"
no_secret late "$dir/late.out" "$dir/late.err"

echo "redis_urls.sh: $passed passed, $failed failed"
[ "$failed" = 0 ]
