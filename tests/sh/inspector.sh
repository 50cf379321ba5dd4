#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The memory inspector (docs/INSPECTOR.md) end to end: a store with a
# token and events in Chinese and English (one of them markup, one session
# named with markup), another user, and a third with 10,000 events (added
# with `agentmem add --batch`), `agentmem serve` on a free loopback port,
# then
#  1. curl: GET / and its assets are public and carry the
#     Content-Security-Policy, an unknown asset is a 404, the data routes
#     still need the token; GET /v1/events pages and searches, and refuses
#     an unknown parameter and a bad cursor by name;
#  2. headless Chromium (Debian's /usr/bin/chromium driven by playwright-core,
#     tests/browser/inspector.test.js) signs in, checks what is shown, the
#     sources, a correction and its versions, searches, both languages,
#     deleting a memory, a rejection, forgetting a session and everything
#     behind their dialogs, a wrong token, that stored markup stays text,
#     and the first list of the 10,000-event user under a second; it saves
#     screenshots in English and Chinese to $AM_INSPECTOR_SHOTS (default
#     build/; docs/inspector-en.png and -zh.png are made with
#     AM_INSPECTOR_SHOTS=docs).
# Part 2 (and the 10,000 events) is skipped (exit 77) in sanitizer and
# fuzz builds, after part 1.
# $1 = path of the agentmem CLI.
set -u
CLI=${1:?usage: inspector.sh AGENTMEM}
. "$(dirname "$0")/lib/expect.bash"
. "$(dirname "$0")/lib/serve.bash"
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
db="$dir/i.db"
srv_pid=
trap '[ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null; rm -rf "$dir"' EXIT

user=林晓
tok=$("$CLI" --db "$db" token create --user "$user" 2>/dev/null)
other=$("$CLI" --db "$db" token create --user bob 2>/dev/null)
if ! [[ "$tok" =~ ^amk_ && "$other" =~ ^amk_ ]]; then echo "FAIL: token create"; exit 1; fi
add() { # session at text
  "$CLI" --db "$db" add --user "$user" --session "$1" --at "$2" --text "$3" >/dev/null 2>"$dir/err" ||
    { echo "FAIL: add '$3'"; cat "$dir/err"; exit 1; }
}
add s-work 2026-03-02T09:00:00+08:00 "以后周报都按三段写"
add s-work 2026-03-02T09:05:00+08:00 "From now on, always write the minutes in English"
add s-home 2026-03-03T20:00:00+08:00 "我住在杭州"
add s-home 2026-03-03T20:01:00+08:00 "I am allergic to peanuts"
add 's-<b>x</b>' 2026-03-04T08:00:00Z 'Call me <img src=x onerror=alert(1)>'
add s-tea 2026-03-05T15:00:00+08:00 "我不吃香菜"
"$CLI" --db "$db" add --user bob --text "Bob's secret: the vault code is 4711" >/dev/null 2>&1

case ${AM_SANITIZED_BUILD:-}:$CLI in
  1:* | ON:* | *:*/build/asan/* | *:*/build/fuzz/*) sanitized=1 ;;
  *) sanitized=0 ;;
esac
# a user with 10,000 events in Chinese and English, a batch import (the
# browser part only: a sanitizer build skips it)
perf=
if [ "$sanitized" = 0 ]; then
  perf=$("$CLI" --db "$db" token create --user perf 2>/dev/null)
  python3 - "$dir/perf.jsonl" <<'PY'
import json, sys
zh = ["我今天去了{}", "明天要和{}开会", "我喜欢{}", "记得提醒我买{}", "{}的项目进展顺利"]
en = ["Met {} for lunch today", "Remind me to call {}", "I think {} is a good idea",
      "The {} report is due Friday", "Ordered {} online"]
things = ["咖啡", "北京", "小王", "牛奶", "alpha", "Lisbon", "Maria", "bread", "the budget", "茶"]
with open(sys.argv[1], "w") as f:
    for i in range(10000):
        d = 1 + i // 400
        f.write(json.dumps({"user": "perf", "session": "p-%d" % (i // 50),
                            "at": "2025-%02d-%02dT%02d:%02d:00Z" % (1 + d // 28, 1 + d % 28, (i // 20) % 24, (i * 7) % 60),
                            "text": (zh if i % 2 else en)[i % 5].format(things[i % 10]) + " #%d" % i},
                           ensure_ascii=False) + "\n")
PY
  start=$(date +%s)
  "$CLI" --db "$db" add --batch "$dir/perf.jsonl" >/dev/null 2>"$dir/err" ||
    { echo "FAIL: add --batch of 10,000 events"; cat "$dir/err"; exit 1; }
  echo "seeded 10,000 events in $(( $(date +%s) - start )) s"
fi

if ! serve_start "$db" "$dir/srv" --threads 2; then
  echo "FAIL: the server did not start"; cat "$dir/srv.err"; exit 1
fi

# --- 1. the page over plain HTTP
check_get() { # path want-status want-content-type csp(1/0) description
  local code
  code=$(curl -s -D "$dir/hdr" -o "$dir/body" -w '%{http_code}' --max-time 20 "$url$1")
  local ok=1
  [ "$code" = "$2" ] || ok=0
  grep -qi "^content-type: $3" "$dir/hdr" || ok=0
  if [ "$4" = 1 ]; then
    grep -qi "^content-security-policy: default-src 'none'; script-src 'self';" "$dir/hdr" || ok=0
    grep -qi "frame-ancestors 'none'" "$dir/hdr" || ok=0
    grep -qi "^x-frame-options: DENY" "$dir/hdr" || ok=0
  fi
  if [ "$ok" = 1 ]; then passed=$((passed+1)); else
    echo "FAIL: $5: HTTP $code"; cat "$dir/hdr" "$dir/body"; echo; failed=$((failed+1)); fi
}
check_get / 200 "text/html" 1 "GET / without a token"
cmp -s "$dir/body" "$root/tools/server/web/index.html" && passed=$((passed+1)) ||
  { echo "FAIL: GET / is not tools/server/web/index.html"; failed=$((failed+1)); }
check_get /inspector/app.js 200 "text/javascript" 1 "GET /inspector/app.js"
cmp -s "$dir/body" "$root/tools/server/web/app.js" && passed=$((passed+1)) ||
  { echo "FAIL: /inspector/app.js is not tools/server/web/app.js"; failed=$((failed+1)); }
check_get /inspector/style.css 200 "text/css" 1 "GET /inspector/style.css"
check_get /inspector/..%2fserver.c 404 "application/json" 0 "an asset name outside the table"
check_get /inspector/index.html 404 "application/json" 0 "index.html is only at /"
check_get /v1/memories 401 "application/json" 0 "the data still needs a token"
# the page holds no data: nothing of the store is in it
if grep -q "杭州\|peanuts" "$dir/body"; then echo "FAIL: an asset holds data"; failed=$((failed+1));
else passed=$((passed+1)); fi
# (comments aside) app.js never hands a string to the HTML parser or to eval
if grep -v '^ *\(\*\|//\|/\*\)' "$root/tools/server/web/app.js" |
     grep -q "innerHTML\|outerHTML\|insertAdjacentHTML\|document.write\|eval(\|new Function"; then
  echo "FAIL: app.js writes markup (innerHTML, document.write, eval)"; failed=$((failed+1))
else passed=$((passed+1)); fi

# --- GET /v1/events: pages, a search, refusals by name
events() { curl -s --max-time 20 -H "Authorization: Bearer $tok" "$url/v1/events$1"; }
page1=$(events '?limit=4')
n_cursor=$(printf '%s' "$page1" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(len(d["events"]), d["next_cursor"] or "")')
set -- $n_cursor
if [ "${1:-}" = 4 ] && [ -n "${2:-}" ]; then
  page2=$(events "?limit=4&cursor=$2")
  got=$(printf '%s\n%s' "$page1" "$page2" | python3 -c '
import json, sys
pages = [json.loads(l) for l in sys.stdin if l.strip()]
ids = [e["id"] for p in pages for e in p["events"]]
print(len(ids), len(set(ids)), pages[1]["next_cursor"], pages[0]["user"], pages[0]["events"][0]["content"])')
  if [ "$got" = "6 6 None 林晓 我不吃香菜" ]; then passed=$((passed+1)); else
    echo "FAIL: GET /v1/events pages: $got"; failed=$((failed+1)); fi
else echo "FAIL: GET /v1/events?limit=4: $page1"; failed=$((failed+1)); fi
got=$(events '?q=%E6%9D%AD%E5%B7%9E' | python3 -c 'import json,sys; print([e["content"] for e in json.load(sys.stdin)["events"]])')
[ "$got" = "['我住在杭州']" ] && passed=$((passed+1)) || { echo "FAIL: ?q=杭州: $got"; failed=$((failed+1)); }
got=$(events '?q=PEANUTS&session=s-home' | python3 -c 'import json,sys; print([e["content"] for e in json.load(sys.stdin)["events"]])')
[ "$got" = "['I am allergic to peanuts']" ] && passed=$((passed+1)) || { echo "FAIL: ?q=PEANUTS: $got"; failed=$((failed+1)); }
for bad in 'page=2:page' 'cursor=nope:cursor' 'from=yesterday:from' 'limit=0:limit' 'q=%FF:q'; do
  got=$(events "?${bad%%:*}" | python3 -c 'import json,sys; print(json.load(sys.stdin)["error"]["field"])' 2>/dev/null)
  [ "$got" = "${bad##*:}" ] && passed=$((passed+1)) || { echo "FAIL: ?${bad%%:*}: field $got"; failed=$((failed+1)); }
done
# bob's events are never in 林晓's
events '?q=vault' | grep -q 4711 && { echo "FAIL: bob's event in another's list"; failed=$((failed+1)); } ||
  passed=$((passed+1))

case $sanitized in
  1)
    serve_stop
    echo "$passed passed, $failed failed"
    [ "$failed" = 0 ] || exit 1
    echo "SKIP: the browser part does not run in a sanitizer or fuzz build"
    exit 77 ;;
esac

# --- 2. the page in headless Chromium
if [ ! -x /usr/bin/chromium ] || ! command -v npm >/dev/null; then
  echo "SKIP: the inspector test needs /usr/bin/chromium, node and npm (bash scripts/install-deps.sh)"
  exit 77
fi
browser="$root/tests/browser"
if ! cmp -s "$browser/package-lock.json" "$browser/node_modules/.package-lock.json" 2>/dev/null; then
  # npm ci takes the lock file as it is (playwright-core alone; no browser download)
  (cd "$browser" && npm ci --no-audit --no-fund --loglevel=error) >"$dir/npm.log" 2>&1 ||
    { echo "FAIL: npm ci in tests/browser"; cat "$dir/npm.log"; exit 1; }
fi
shots=${AM_INSPECTOR_SHOTS:-$root/build}
mkdir -p "$shots"
if node "$browser/inspector.test.js" "$url" "$tok" "$user" "$shots" "$other" "$perf" >"$dir/node.out" 2>&1; then
  passed=$((passed+1)); cat "$dir/node.out"
else
  echo "FAIL: the browser test"; cat "$dir/node.out"; echo "server stderr:"; cat "$dir/srv.err"
  failed=$((failed+1))
fi
serve_stop
[ "$srv_rc" = 0 ] && passed=$((passed+1)) || { echo "FAIL: server exit $srv_rc"; failed=$((failed+1)); }

# --- what the page did is in the store, and bob's data was never touched
"$CLI" --db "$db" export --user bob >"$dir/bob.json" 2>/dev/null
grep -q "vault code is 4711" "$dir/bob.json" && passed=$((passed+1)) ||
  { echo "FAIL: bob's event is gone"; failed=$((failed+1)); }
"$CLI" --db "$db" export --user "$user" >"$dir/gone.json" 2>/dev/null
left=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["events"]) + len(d["memories"]))' \
       "$dir/gone.json" 2>/dev/null || echo none)
# forgotten (no grace period): the export is refused, or empty
if [ "$left" = 0 ] || [ "$left" = none ]; then passed=$((passed+1)); else
  echo "FAIL: $left events and memories of $user left after 'forget everything'"; failed=$((failed+1)); fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
