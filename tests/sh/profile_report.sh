#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The profile card and the blind-spot report (docs/PROFILE.md,
# docs/REPORTS.md), English and Chinese, on SQLite and PostgreSQL:
#   - profile: items across topics grouped under their headings, a near
#     text shown once, a temporary item and a rejected one left out, the
#     budget kept (a small one drops whole items, tokens <= budget), the
#     same bytes twice, the user's language (zh headings for a user whose
#     items are mostly Chinese);
#   - report corrections: confirm / correct / reject counted by key with
#     the rate, periods (month, day), --since leaving earlier acts out,
#     --user; bad period and time refused naming them;
#   - HTTP: GET /v1/profile (user A's token asking B's: 403; ?budget=0 and
#     an unknown parameter: 400), GET /v1/reports/corrections (a user
#     token: 403; admin: the counts, no item text), /metrics counting
#     feedback by kind and origin;
#   - origins: the report names a version's origin column first (a
#     correction's version: "feedback", a pack's "pack:NAME@VERSION"
#     over its value's "source") and, for a version written before
#     origins were kept (origin NULL), its value's "source", else
#     "unknown"; /metrics does the same for feedback;
#   - PostgreSQL: the same card, report and origins through --store URL
#     (skipped without PostgreSQL).
# $1 = path of the agentmem CLI.
set -u
CLI=${1:?usage: profile_report.sh AGENTMEM}
. "$(dirname "$0")/lib/expect.bash"
. "$(dirname "$0")/lib/server.bash"

ok() { passed=$((passed+1)); }
bad() { echo "FAIL: $*"; failed=$((failed+1)); }
jq_() { python3 -c "import json,sys; j=json.load(sys.stdin); print($1)"; }

# seed STORE-FLAGS...: two users, en and zh, and feedback on their items
seed() {
  local s=("$@")
  "$CLI" "${s[@]}" add --user en1 --text "I'm allergic to peanuts." --at 2026-03-02T09:00:00Z >/dev/null
  "$CLI" "${s[@]}" add --user en1 --text "I prefer reports as PDF." --at 2026-03-02T09:01:00Z >/dev/null
  "$CLI" "${s[@]}" add --user en1 --text "I live in Munich." --at 2026-03-02T09:02:00Z >/dev/null
  "$CLI" "${s[@]}" memory add --user en1 --text "I like oat milk lattes in the morning" --kind preference --key drink.latte >/dev/null
  "$CLI" "${s[@]}" memory add --user en1 --text "I like oat milk lattes in the morning!" --kind preference --key drink.latte_again >/dev/null
  "$CLI" "${s[@]}" memory add --user en1 --text "Temporary: use the blue template today" --kind temp --key tmp.blue >/dev/null
  "$CLI" "${s[@]}" memory add --user en1 --text "My favourite colour is teal" --kind preference --key colour.fav >/dev/null
  "$CLI" "${s[@]}" add --user zh1 --text "我对花生过敏。" --at 2026-03-02T09:00:00+08:00 >/dev/null
  "$CLI" "${s[@]}" add --user zh1 --text "我喜欢报告用PDF格式。" --at 2026-03-02T09:01:00+08:00 >/dev/null
  "$CLI" "${s[@]}" add --user zh1 --text "我住在杭州。" --at 2026-03-02T09:02:00+08:00 >/dev/null
  "$CLI" "${s[@]}" memory add --user zh1 --text "I use vim" --kind preference --key editor >/dev/null
}
lineage() { # STORE... USER KEY
  local n=$#; local u=${@:$((n-1)):1} k=${@:$n:1}
  "$CLI" "${@:1:$((n-2))}" memories --user "$u" --json | python3 -c "
import json,sys
for m in json.load(sys.stdin):
    if m['key']=='$k': print(m['lineage_id'])"
}

check_store() { # label STORE-FLAGS...
  local label=$1; shift
  local s=("$@")
  seed "${s[@]}"
  local colour; colour=$(lineage "${s[@]}" en1 colour.fav)
  "$CLI" "${s[@]}" feedback --user en1 --id "$colour" --action reject >/dev/null || bad "$label: reject"
  local fmt; fmt=$(lineage "${s[@]}" en1 report.format)
  "$CLI" "${s[@]}" feedback --user en1 --id "$fmt" --action correct --text "I prefer reports as Word files." >/dev/null || bad "$label: correct"
  local zfmt; zfmt=$(lineage "${s[@]}" zh1 report.format)
  [ -n "$zfmt" ] || zfmt=$("$CLI" "${s[@]}" memories --user zh1 --json | python3 -c "import json,sys; print([m['lineage_id'] for m in json.load(sys.stdin) if 'PDF' in m['text']][0])")
  "$CLI" "${s[@]}" feedback --user zh1 --id "$zfmt" --action correct --text "我喜欢报告用Word格式。" >/dev/null || bad "$label: zh correct"
  local zed; zed=$(lineage "${s[@]}" zh1 editor)
  "$CLI" "${s[@]}" feedback --user zh1 --id "$zed" --action confirm >/dev/null || bad "$label: confirm"

  # the English card
  "$CLI" "${s[@]}" profile --user en1 >"$dir/p1" || bad "$label: profile"
  "$CLI" "${s[@]}" profile --user en1 >"$dir/p2"
  cmp -s "$dir/p1" "$dir/p2" && ok || bad "$label: two cards of one state differ"
  head -1 "$dir/p1" | grep -qx '\[User profile\]' && ok || bad "$label: en header"; 
  for h in "Drinks:" "Health:" "Location:" "Reports and documents:"; do
    grep -qx "$h" "$dir/p1" && ok || bad "$label: heading $h"; done
  [ "$(grep -c 'oat milk' "$dir/p1")" = 1 ] && ok || bad "$label: the near text twice: $(cat "$dir/p1")"
  grep -q "Word files" "$dir/p1" && ok || bad "$label: the corrected value"
  grep -q "PDF\|teal\|blue template" "$dir/p1" && bad "$label: a closed, rejected or temporary item shown: $(cat "$dir/p1")" || ok
  # sections in the topic order: drink before health before reports before location
  [ "$(grep -n ':$' "$dir/p1" | cut -d: -f2 | tr '\n' '|')" = "Drinks|Health|Reports and documents|Location|" ] && ok || bad "$label: order $(cat "$dir/p1")"
  "$CLI" "${s[@]}" profile --user en1 --budget 25 --json >"$dir/pj"
  python3 - "$dir/pj" <<'PY' && ok || bad "$label: budget 25: $(cat "$dir/pj")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["tokens"] <= 25 and j["left_out"] >= 1 and j["items"] >= 1, j
assert j["duplicates"] == 0 or j["duplicates"] == 1
ids = [i["id"] for s in j["sections"] for i in s["items"]]
assert len(ids) == j["items"]
PY
  # the Chinese card: zh headings, the English item too
  "$CLI" "${s[@]}" profile --user zh1 >"$dir/z1"
  head -1 "$dir/z1" | grep -qx '\[用户画像\]' && ok || bad "$label: zh header: $(cat "$dir/z1")"
  grep -q "健康：\|饮食禁忌：" "$dir/z1" && ok || bad "$label: zh heading: $(cat "$dir/z1")"
  grep -q "Word格式" "$dir/z1" && grep -q "I use vim" "$dir/z1" && ok || bad "$label: zh items: $(cat "$dir/z1")"
  "$CLI" "${s[@]}" profile --user nobody --json | grep -q '"items":0' && ok || bad "$label: unknown user"

  # the report
  "$CLI" "${s[@]}" report corrections --json >"$dir/r"
  python3 - "$dir/r" <<'PY' && ok || bad "$label: report: $(cat "$dir/r")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["scope"] == "all" and j["period"] == "month", j
t = j["totals"]
assert t["rejected"] == 1 and t["corrected"] == 2 and t["confirmed"] == 1 and t["created"] >= 9, t
rows = [r for p in j["periods"] for r in p["rows"]]
fmt = [r for r in rows if r["key"] == "report.format" and r["corrected"]]
assert fmt and all(r["origin"] in ("rules", "model") for r in fmt), rows
col = [r for r in rows if r["key"] == "colour.fav"][0]
assert col["rejected"] == 1 and col["origin"] == "api" and col["correction_rate"] == 1.0, col
assert "teal" not in open(sys.argv[1]).read() and "Munich" not in open(sys.argv[1]).read()
assert "en1" not in open(sys.argv[1]).read()
PY
  "$CLI" "${s[@]}" report corrections --user zh1 --period day --json >"$dir/r"
  python3 - "$dir/r" <<'PY' && ok || bad "$label: zh report by day: $(cat "$dir/r")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["scope"] == "user" and j["period"] == "day"
assert all(len(p["period"]) == 10 for p in j["periods"]), j
t = j["totals"]
assert t["corrected"] == 1 and t["confirmed"] == 1 and t["rejected"] == 0, t
PY
  "$CLI" "${s[@]}" report corrections --since 2099-01-01T00:00:00Z --json | grep -q '"periods":\[\]' && ok || bad "$label: --since leaves earlier acts out"
  expect_rc 2 "$label: bad period" "$CLI" "${s[@]}" report corrections --period year
  expect_rc 1 "$label: bad since" "$CLI" "${s[@]}" report corrections --since yesterday
  expect_out "since" "$label: the bad time named"
  "$CLI" "${s[@]}" report corrections >"$dir/rt" && grep -q "^total  created" "$dir/rt" && ok || bad "$label: text report"
}

# check_origins label SQL-RUNNER STORE-FLAGS...: user or1's report names
# each judged version's origin (column first, then the value's "source")
check_origins() {
  local label=$1 sql=$2; shift 2
  local s=("$@")
  "$CLI" "${s[@]}" add --user or1 --text "I prefer reports as PDF." --at 2026-04-02T09:00:00Z >/dev/null
  "$CLI" "${s[@]}" memory add --user or1 --text "I drink green tea" --kind preference --key tea.pref >/dev/null
  "$CLI" "${s[@]}" memory add --user or1 --text "I use emacs" --kind preference --key editor >/dev/null
  "$CLI" "${s[@]}" memory add --user or1 --text "我的书桌靠窗" --kind profile --key desk.spot >/dev/null
  local fmt; fmt=$(lineage "${s[@]}" or1 report.format)
  "$CLI" "${s[@]}" feedback --user or1 --id "$fmt" --action correct --text "I prefer reports as Word files." >/dev/null || bad "$label: or1 correct"
  # written before origins were kept: editor keeps its value's source, desk.spot has none
  $sql "UPDATE memory_items SET origin = NULL WHERE user_id = 'or1' AND key IN ('editor', 'desk.spot')" || bad "$label: sql"
  $sql "UPDATE memory_items SET value_json = 'null' WHERE user_id = 'or1' AND key = 'desk.spot'" || bad "$label: sql"
  $sql "UPDATE memory_items SET origin = 'pack:starter@1' WHERE user_id = 'or1' AND key = 'tea.pref'" || bad "$label: sql"
  for k in report.format editor desk.spot; do
    "$CLI" "${s[@]}" feedback --user or1 --id "$(lineage "${s[@]}" or1 $k)" --action reject >/dev/null || bad "$label: reject $k"; done
  "$CLI" "${s[@]}" feedback --user or1 --id "$(lineage "${s[@]}" or1 tea.pref)" --action confirm >/dev/null || bad "$label: confirm tea"
  "$CLI" "${s[@]}" report corrections --user or1 --json >"$dir/ro"
  python3 - "$dir/ro" <<'PY' && ok || bad "$label: origins in the report: $(cat "$dir/ro")"
import json, sys
rows = [r for p in json.load(open(sys.argv[1]))["periods"] for r in p["rows"]]
def one(key, act):
    got = sorted({r["origin"] for r in rows if r["key"] == key and r[act]})
    assert len(got) == 1, (key, act, got)
    return got[0]
assert one("report.format", "corrected") == "rules"
assert one("report.format", "rejected") == "feedback"   # the correction's version
assert one("editor", "rejected") == "api"               # origin NULL: the value's source
assert one("desk.spot", "rejected") == "unknown"        # neither
assert one("tea.pref", "confirmed") == "pack:starter@1" # the column over the value's "api"
PY
}

"$CLI" --db "$db" init >/dev/null
check_store sqlite --db "$db"
sqlite_sql() { sqlite3 "$db" "$1"; }
check_origins sqlite sqlite_sql --db "$db"
# for /metrics below: en1's drink.latte_again written before origins were kept
sqlite_sql "UPDATE memory_items SET origin = NULL WHERE user_id = 'en1' AND key = 'drink.latte_again'"

# ---- HTTP
tok() { "$CLI" --db "$db" token create "$@" 2>/dev/null; }
ta=$(tok --user en1); tz=$(tok --user zh1); tadm=$(tok --user ops --admin)
start_server
req GET "/v1/profile" "$ta"; expect_code 200 "profile"; expect_body '"title":"Health"' "profile sections"
cp "$dir/body" "$dir/h1"; req GET "/v1/profile" "$ta"; cmp -s "$dir/body" "$dir/h1" && ok || bad "HTTP profile twice differs"
req GET "/v1/profile?user=zh1" "$ta"; expect_code 403 "another user's profile"
req GET "/v1/profile" "$tz"; expect_code 200 "zh profile"; expect_body '"lang":"zh"' "zh card"
req GET "/v1/profile?budget=0" "$ta"; expect_code 400 "budget 0"; err_is invalid_request budget "budget named"
req GET "/v1/profile?budgt=9" "$ta"; expect_code 400 "unknown parameter"
req GET "/v1/profile?user=en1&budget=25" "$tadm"; expect_code 200 "admin reads a profile"
python3 -c "import json; j=json.load(open('$dir/body')); assert j['tokens']<=25" && ok || bad "HTTP budget"
req GET "/v1/reports/corrections" "$ta"; expect_code 403 "a user token asks the report"
req GET "/v1/reports/corrections?period=week" "$tadm"; expect_code 200 "admin report"
expect_body '"period":"week"' "weekly periods"; expect_no_body "teal" "no item text in the report"
req GET "/v1/reports/corrections?period=year" "$tadm"; expect_code 400 "bad period"; err_is invalid_request period "period named"
req GET "/v1/reports/corrections?since=nope" "$tadm"; expect_code 400 "bad since"
# /metrics: feedback by kind and origin moves
m0=$(curl -s --max-time 10 -H "Authorization: Bearer $tadm" "$url/metrics" | grep -c '^agentmem_feedback_origin_total{action="confirm",kind="preference",origin="api"}')
lid=$(curl -s --max-time 10 -H "Authorization: Bearer $ta" "$url/v1/memories" | python3 -c "import json,sys; print([m['lineage_id'] for m in json.load(sys.stdin) if m['key']=='drink.latte'][0])")
req POST "/v1/memories/$lid/feedback" "$ta" '{"action":"confirm"}'; expect_code 200 "confirm over HTTP"
curl -s --max-time 10 -H "Authorization: Bearer $tadm" "$url/metrics" >"$dir/metrics"
grep -q '^agentmem_feedback_origin_total{action="confirm",kind="preference",origin="api"} 1$' "$dir/metrics" && [ "$m0" = 0 ] && ok || bad "metrics: $(grep feedback_origin "$dir/metrics")"
# the version a correction made: origin feedback; one with origin NULL: its value's source
fmt=$(lineage --db "$db" en1 report.format); again=$(lineage --db "$db" en1 drink.latte_again)
req POST "/v1/memories/$fmt/feedback" "$ta" '{"action":"confirm"}'; expect_code 200 "confirm the corrected item"
req POST "/v1/memories/$again/feedback" "$ta" '{"action":"reject"}'; expect_code 200 "reject an item without origin"
curl -s --max-time 10 -H "Authorization: Bearer $tadm" "$url/metrics" >"$dir/metrics"
grep -q '^agentmem_feedback_origin_total{action="confirm",kind="preference",origin="feedback"} 1$' "$dir/metrics" && ok || bad "metrics feedback origin: $(grep feedback_origin "$dir/metrics")"
grep -q '^agentmem_feedback_origin_total{action="reject",kind="preference",origin="api"} 1$' "$dir/metrics" && ok || bad "metrics origin NULL: $(grep feedback_origin "$dir/metrics")"
grep -q 'origin="unknown"' "$dir/metrics" && bad "metrics: unknown origin: $(grep feedback_origin "$dir/metrics")" || ok
grep -q 'oat milk\|drink.latte' "$dir/metrics" && bad "user words in /metrics" || ok
stop_server

. "$(dirname "$0")/lib/pg.bash"
if pg_find >/dev/null && pg_init am-pgprof && trap 'pg_cleanup; rm -rf "$dir"' EXIT && pg_start; then
  pg_new_db tcp
  check_store postgres --store "$URL"
  pg_sql() { psql_in "$DB" "$1" >/dev/null; }
  check_origins postgres pg_sql --store "$URL"
else
  echo "SKIP: PostgreSQL part (no PostgreSQL)"
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
