#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The server under load (docs/SERVER.md): a fresh store,
# USERS users with a token each, `agentmem serve` on a free loopback port,
# SECONDS of mixed writes and recalls from `agentmem bench serve` (one
# connection per user), then the server is stopped with SIGTERM and every
# write it acknowledged is looked up in the store by its client id.
# Prints requests/s and p50/p99 per route, the machine's load, and
# "acknowledged N, missing 0".  Exit 1 on any error or missing write.
#   scripts/load.sh [SECONDS (30)] [USERS (20)] [THREADS (4)] [WRITES (0.5)] [RATE (0)]
# RATE > 0: an open loop at RATE requests/s in all, each request timed from
# when it was due (latency at that load); 0: each user's next request as
# soon as the last is answered (the throughput the server sustains).
# HOSTILE=1 (scripts/hostile.sh): meanwhile a hostile tenant holds its most
# of long-lived work -- 2 exports whose client never reads (about 6 MB each,
# so they stall) and 4 event streams (tests/sh/lib/exhaust.py hold) -- and
# the server runs with --timeout 600 so the stalled exports last the run.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-30} users=${2:-20} threads=${3:-4} writes=${4:-0.5} rate=${5:-0}
cli=${AGENTMEM_CLI:-build/agentmem}
work=$(mktemp -d)
srv= holder=
trap '[ -n "$holder" ] && kill "$holder" 2>/dev/null; [ -n "$srv" ] && kill "$srv" 2>/dev/null; [ -n "${KEEP_DB:-}" ] && cp "$work/load.db" "$KEEP_DB"; rm -rf "$work"' EXIT
db="$work/load.db"
"$cli" --db "$db" init >/dev/null
for i in $(seq 1 "$users"); do
  u=$([ $((i % 2)) = 0 ] && echo "用户$i" || echo "user$i")
  echo "$u $("$cli" --db "$db" token create --user "$u" 2>/dev/null)"
done >"$work/tokens"
extra=()
if [ -n "${PREFILL:-}" ]; then
  # PREFILL=N: each user first says N things over the past year (lasting
  # statements and long notes, 400 to 100 days ago), so the maintenance
  # pass (SERVE_ARGS="--maintain-every 1s") has items to decay and archive
  # and old events to move to the cold column while the load runs
  python3 - "$work/tokens" "$PREFILL" >"$work/prefill.jsonl" <<'PY'
import datetime, json, random, sys
random.seed(11)
users = [l.split()[0] for l in open(sys.argv[1], encoding="utf-8") if l.strip()]
n = int(sys.argv[2])
now = datetime.datetime.now(datetime.timezone.utc)
en = ["From now on I prefer {} for the weekly report", "I live in {} these days",
      "Please always write the summary in {}", "I don't drink {} any more"]
zh = ["以后周报都用{}写", "我现在住在{}", "总结请一直用{}", "我不喝{}了"]
words = ["tables", "Lisbon", "English", "coffee", "bullet points", "Berlin", "tea", "Markdown"]
zwords = ["表格", "南京", "中文", "咖啡", "要点", "上海", "绿茶", "Markdown"]
for u in users:
    for k in range(n):
        at = now - datetime.timedelta(days=400 - 300 * k / max(n - 1, 1), minutes=random.randrange(600))
        z = u.startswith("用户")
        if k % 3 == 2:
            text = ("会议纪要：" if z else "Meeting notes: ") + " ".join(
                random.choice(zwords if z else words) for _ in range(80))
        else:
            text = random.choice(zh if z else en).format(random.choice(zwords if z else words))
        print(json.dumps({"user": u, "session": "old%d" % (k // 10), "text": text,
                          "at": at.isoformat(timespec="seconds")}, ensure_ascii=False))
PY
  "$cli" --db "$db" add --batch "$work/prefill.jsonl" >/dev/null
fi
# SERVE_ARGS: more options of `agentmem serve` ("--maintain-every 1s")
read -r -a serve_args <<<"${SERVE_ARGS:-}"
extra+=("${serve_args[@]}")
if [ -n "${HOSTILE:-}" ]; then
  hostile=$("$cli" --db "$db" token create --user mallory 2>/dev/null)
  python3 -c 'import json, random, sys
random.seed(7)
w = ["budget", "report", "meeting", "预算", "会议", "报告"]
for i in range(8):
    print(json.dumps({"user": "mallory", "text": " ".join(random.choice(w) for _ in range(1400))}, ensure_ascii=False))' >"$work/hostile.jsonl"
  "$cli" --db "$db" add --batch "$work/hostile.jsonl" >/dev/null
  sqlite3 "$db" "INSERT INTO events(id, user_id, source, type, content, lang, occurred_at, tz_minutes,
    ingested_at, status) SELECT e.id || printf('%04d', k.n), e.user_id, e.source, e.type, e.content,
    e.lang, e.occurred_at, e.tz_minutes, e.ingested_at, e.status FROM events e, (WITH RECURSIVE
    c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 80) SELECT n FROM c) k
    WHERE e.user_id = 'mallory'"
  extra=(--timeout 600)
fi
"$cli" --db "$db" serve --listen 127.0.0.1:0 --threads "$threads" "${extra[@]}" >"$work/srv.out" 2>"$work/srv.err" &
srv=$!
port=
for _ in $(seq 100); do
  port=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$work/srv.out")
  [ -n "$port" ] && break
  sleep 0.05
done
[ -n "$port" ] || { echo "load: the server did not start"; cat "$work/srv.err"; exit 1; }
if [ -n "${HOSTILE:-}" ]; then
  python3 tests/sh/lib/exhaust.py hold "$port" "$hostile" "$work/ready" $((secs + 30)) exports=2 streams=4 &
  holder=$!
  for _ in $(seq 200); do [ -f "$work/ready" ] && break; sleep 0.1; done
  [ -f "$work/ready" ] || { echo "load: the hostile tenant did not get in place"; exit 1; }
  echo "load: a hostile tenant holds 2 stalled exports and 4 streams"
fi
echo "load: before: $(cut -d' ' -f1-3 /proc/loadavg) (1/5/15-min load), $(nproc) cores"
rc=0
"$cli" bench serve --url "http://127.0.0.1:$port" --tokens "$work/tokens" --seconds "$secs" \
  --writes "$writes" --acked "$work/acked" $([ "$rate" != 0 ] && echo --rate "$rate") || rc=1
echo "load: after: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -n "$holder" ]; then kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null || true; holder=; fi
kill -TERM "$srv"; wait "$srv" || { echo "load: the server exited $?"; rc=1; }
srv=
sqlite3 "$db" "SELECT client_id FROM events WHERE client_id LIKE 'load-%'" | sort >"$work/stored"
cut -d' ' -f2 "$work/acked" | sort >"$work/acked.ids"
missing=$(comm -23 "$work/acked.ids" "$work/stored" | wc -l)
echo "load: acknowledged $(wc -l <"$work/acked.ids") writes, missing $missing; store $(du -k "$db" | cut -f1) KB"
[ "$missing" = 0 ] || rc=1
exit $rc
