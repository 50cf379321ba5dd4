#!/usr/bin/env bash
# The memory inspector (docs/INSPECTOR.md) end to end: a store with a
# token and events in Chinese and English (one of them markup, one session
# named with markup), `agentmem serve` on a free loopback port, then
#  1. curl: GET / and its assets are public and carry the
#     Content-Security-Policy, an unknown asset is a 404, the data routes
#     still need the token;
#  2. headless Chromium (Debian's /usr/bin/chromium driven by playwright-core,
#     tests/browser/inspector.test.js) signs in, checks what is shown, the
#     sources, a correction and its versions, a rejection, forgetting a
#     session and everything behind their dialogs, a wrong token, and that
#     stored markup stays text; it saves a screenshot to $AM_INSPECTOR_SHOT
#     (default build/inspector.png; docs/inspector.png is made with
#     AM_INSPECTOR_SHOT=docs/inspector.png).
# Part 2 is skipped (exit 77) in sanitizer and fuzz builds, after part 1.
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

case ${AM_SANITIZED_BUILD:-}:$CLI in
  1:* | ON:* | *:*/build/asan/* | *:*/build/fuzz/*)
    serve_stop
    echo "$passed passed, $failed failed"
    [ "$failed" = 0 ] || exit 1
    echo "SKIP: the browser part does not run in a sanitizer or fuzz build"
    exit 77 ;;
esac

# --- 2. the page in headless Chromium
if [ ! -x /usr/bin/chromium ] || ! command -v npm >/dev/null; then
  echo "FAIL: the inspector test needs /usr/bin/chromium, node and npm (bash scripts/install-deps.sh)"
  exit 1
fi
browser="$root/tests/browser"
if ! cmp -s "$browser/package-lock.json" "$browser/node_modules/.package-lock.json" 2>/dev/null; then
  # npm ci takes the lock file as it is (playwright-core alone; no browser download)
  (cd "$browser" && npm ci --no-audit --no-fund --loglevel=error) >"$dir/npm.log" 2>&1 ||
    { echo "FAIL: npm ci in tests/browser"; cat "$dir/npm.log"; exit 1; }
fi
shot=${AM_INSPECTOR_SHOT:-$root/build/inspector.png}
mkdir -p "$(dirname "$shot")"
if node "$browser/inspector.test.js" "$url" "$tok" "$user" "$shot" "$other" >"$dir/node.out" 2>&1; then
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
