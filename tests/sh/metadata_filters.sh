#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Metadata, filters and pages against a live server, the CLI and
# PostgreSQL (docs/SERVER.md "Metadata, filters and pages"), Chinese and
# English:
#   - POST /v1/events and POST/PATCH /v1/memories take "metadata"; the
#     memory distilled from an event carries it; bad metadata is 400 with
#     field "metadata" naming the key, and nothing is written;
#   - GET /v1/memories ?kind ?metadata.K ?from ?to filter, the body stays an
#     array; POST /v1/recall "filters";
#   - an unknown query parameter is 400 naming it, on several routes;
#   - ?limit pages over 250 memories while more are added between the
#     pages: no row twice, none of the first 250 missed; the next page's
#     cursor in X-Next-Cursor; ?limit=1001 and a bad cursor are 400;
#     another user's token cannot page through the first user's memories;
#   - PostgreSQL: metadata stored and filtered, pages (skipped without it).
# $1 = path of the agentmem CLI.
set -u
CLI=${1:?usage: metadata_filters.sh AGENTMEM}
. "$(dirname "$0")/lib/expect.bash"
. "$(dirname "$0")/lib/server.bash"

tok() { "$CLI" --db "$db" token create "$@" 2>/dev/null; }
"$CLI" --db "$db" token create --user alice >/dev/null 2>&1 # makes the store
ta=$(tok --user alice)
tb=$(tok --user bob)
start_server
check() { # description python-condition over the body's JSON j
  if python3 -c "import json,sys; j=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$dir/body"
  then passed=$((passed+1)); else echo "FAIL: $1"; cat "$dir/body"; echo; failed=$((failed+1)); fi
}
count_mem() { req GET /v1/memories "$ta"; python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))))" "$dir/body"; }

# --- metadata in, inherited, returned
req POST /v1/events "$ta" '{"text":"I prefer aisle seats on long flights","metadata":{"project":"apollo","n":3}}'
expect_code 200 "event with metadata"
req POST /v1/events "$ta" '{"text":"我喜欢靠窗的座位","metadata":{"project":"宙斯"}}'
expect_code 200 "Chinese event with metadata"
req GET /v1/memories "$ta"
check "memories carry their event's metadata" \
  'any(m["metadata"]=={"project":"apollo","n":3} for m in j) and any(m["metadata"]=={"project":"宙斯"} for m in j)'
n0=$(count_mem)
req POST /v1/events "$ta" '{"text":"I never eat peanuts","metadata":{"project":{"x":1}}}'
expect_code 400 "nested metadata"; err_is invalid_request metadata "nested metadata names the field"
expect_body "metadata.project" "the key is named"
big=$(python3 -c 'print("x"*513)')
req POST /v1/events "$ta" "{\"text\":\"我从不吃花生\",\"metadata\":{\"note\":\"$big\"}}"
expect_code 400 "a value over 512 bytes"; expect_body "metadata.note: value too long" "the key is named"
req POST /v1/events "$ta" '{"text":"I never eat peanuts","metadata":"project=apollo"}'
expect_code 400 "metadata not an object"; err_is invalid_request metadata "metadata of another type"
[ "$(count_mem)" = "$n0" ] && passed=$((passed+1)) || { echo "FAIL: a refused event wrote a memory"; failed=$((failed+1)); }
req POST /v1/memories "$ta" '{"text":"My badge number is 4417","key":"badge.number","metadata":{"source":"hr"}}'
expect_code 201 "POST /v1/memories with metadata"; check "its metadata" 'j["memory"]["metadata"]=={"source":"hr"}'
mid=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['memory']['lineage_id'])" "$dir/body")
req PATCH "/v1/memories/$mid" "$ta" '{"metadata":{"source":"人事"}}'
expect_code 200 "PATCH metadata only"
check "a new version, the text kept" 'j["memory"]["metadata"]=={"source":"人事"} and "4417" in j["memory"]["text"]'
req PATCH "/v1/memories/$mid" "$ta" '{"text":"My badge number is 5521"}'
check "a correction keeps the metadata" 'j["memory"]["metadata"]=={"source":"人事"}'

# --- filters on the list and on recall
req GET "/v1/memories?metadata.project=%E5%AE%99%E6%96%AF" "$ta"
expect_code 200 "list by metadata"; check "only the matching one, still an array" \
  'isinstance(j, list) and len(j)==1 and j[0]["metadata"]["project"]=="宙斯"'
req GET "/v1/memories?metadata.n=3&kind=preference" "$ta"
check "a number by its text, with the kind" 'len(j)==1 and j[0]["metadata"]["n"]==3'
req GET "/v1/memories?from=2999-01-01T00:00:00Z" "$ta"
check "a time range" 'j==[]'
req GET "/v1/memories?from=yesterday" "$ta"
expect_code 400 "a bad time"
req POST /v1/recall "$ta" '{"query":"which seats do I like? 我喜欢什么座位","filters":{"metadata":{"project":["宙斯"]}}}'
expect_code 200 "recall with filters"
check "only the filtered memories" 'j["memories"] and all(m["metadata"]=={"project":"宙斯"} for m in j["memories"])'
req POST /v1/recall "$ta" '{"query":"seats","filters":{"colour":"red"}}'
expect_code 400 "an unknown filter"; err_is invalid_request filters "unknown filter named"

# --- unknown query parameters
req GET "/v1/memories?limt=5" "$ta"
expect_code 400 "a misspelt parameter"; err_is invalid_request limt "the parameter is named"
req GET "/v1/memories/$mid?verbose=1" "$ta"
expect_code 400 "unknown parameter on GET one memory"; expect_body '"verbose"' "named"
req POST "/v1/recall?debug=1" "$ta" '{"query":"seats"}'
expect_code 400 "unknown parameter on recall"; err_is invalid_request debug "named"
req GET "/v1/memories?all=1&as_of=2026-01-01T00:00:00Z" "$ta"
expect_code 200 "the parameters a route takes still work"

# --- pages over 250 memories, with writes between them
for i in $(seq 1 250); do
  if [ $((i % 2)) = 0 ]; then t="Note $i: the meeting room is B$i"; else t="备忘 $i：会议室是 C$i"; fi
  curl -s -o /dev/null --max-time 20 -H "Authorization: Bearer $tb" -H 'Content-Type: application/json' \
    --data-binary "{\"text\":\"$t\",\"key\":\"note.n$i\",\"kind\":\"fact\",\"metadata\":{\"i\":$i}}" "$url/v1/memories"
done
curl -s --max-time 20 -H "Authorization: Bearer $tb" "$url/v1/memories" >"$dir/all.json"
cursor=""; : >"$dir/seen"; pages=0; extra=1000
while :; do
  q="limit=60"; [ -n "$cursor" ] && q="$q&cursor=$cursor"
  curl -s -D "$dir/h" -o "$dir/page.json" --max-time 20 -H "Authorization: Bearer $tb" "$url/v1/memories?$q"
  python3 -c "import json,sys; [print(m['id']) for m in json.load(open(sys.argv[1]))]" "$dir/page.json" >>"$dir/seen"
  pages=$((pages+1))
  for k in 1 2 3; do  # another writer between the pages
    extra=$((extra+1))
    curl -s -o /dev/null --max-time 20 -H "Authorization: Bearer $tb" -H 'Content-Type: application/json' \
      --data-binary "{\"text\":\"Late note $extra\",\"key\":\"late.n$extra\",\"kind\":\"fact\"}" "$url/v1/memories"
  done
  cursor=$(sed -n 's/^[Xx]-[Nn]ext-[Cc]ursor: *\([^[:space:]]*\).*/\1/p' "$dir/h")
  [ -z "$cursor" ] || [ "$pages" -gt 50 ] && break
done
python3 - "$dir/all.json" "$dir/seen" <<'PY' && passed=$((passed+1)) || { echo "FAIL: pages repeat or miss rows"; failed=$((failed+1)); }
import json, sys
first = [m["id"] for m in json.load(open(sys.argv[1]))]
seen = open(sys.argv[2]).read().split()
assert len(first) == 250, len(first)
assert len(seen) == len(set(seen)), "a row twice"
missed = set(first) - set(seen)
assert not missed, missed
PY
[ "$pages" -ge 5 ] && passed=$((passed+1)) || { echo "FAIL: $pages pages"; failed=$((failed+1)); }
req GET "/v1/memories?limit=1001" "$tb"; expect_code 400 "limit over 1000"; err_is invalid_request limit "limit named"
req GET "/v1/memories?limit=10&cursor=bm90IGEgY3Vyc29y" "$tb"; expect_code 400 "a bad cursor"
# another user's token: no paging through bob's memories
first_cursor=$(curl -s -D - -o /dev/null --max-time 20 -H "Authorization: Bearer $tb" "$url/v1/memories?limit=10" \
  | sed -n 's/^[Xx]-[Nn]ext-[Cc]ursor: *\([^[:space:]]*\).*/\1/p')
req GET "/v1/memories?user=bob&limit=10&cursor=$first_cursor" "$ta"
expect_code 403 "alice's token naming bob"
req GET "/v1/memories?limit=10&cursor=$first_cursor" "$ta"
expect_code 200 "bob's cursor on alice's token"
check "gives alice's own memories only" 'all("Note" not in m["text"] and "备忘" not in m["text"] for m in j)'

# --- a session's working memory pages by key (?limit, ?cursor; next_cursor beside the entries)
for k in 目的地 budget 出发日期 hotel 人数; do
  req PUT "/v1/sessions/w1/working/$(python3 -c 'import sys,urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$k")" "$ta" \
    '{"value":"x","ttl_ms":600000}'; expect_code 200 "working set $k"
done
seen=""; cur=""; n=0
while [ $n -lt 10 ]; do
  req GET "/v1/sessions/w1/working?limit=2${cur:+&cursor=$cur}" "$ta"; expect_code 200 "working page $n"
  seen="$seen $(python3 -c 'import json,sys; print(" ".join(e["key"] for e in json.load(open(sys.argv[1]))["entries"]))' "$dir/body")"
  cur=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["next_cursor"] or "")' "$dir/body")
  n=$((n+1)); [ -n "$cur" ] || break
done
total=$(echo $seen | wc -w); uniq=$(echo $seen | tr ' ' '\n' | sort -u | wc -l)
[ "$total" = 5 ] && [ "$uniq" = 5 ] && [ "$n" = 3 ] && passed=$((passed+1)) ||
  { echo "FAIL: working pages: $seen ($n pages)"; failed=$((failed+1)); }
req GET "/v1/sessions/w1/working" "$ta"; expect_code 200 "working, no page"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["entries"]) == 5 and "next_cursor" not in d' "$dir/body" &&
  passed=$((passed+1)) || { echo "FAIL: the whole list keeps its shape"; failed=$((failed+1)); }
req GET "/v1/sessions/w1/working?cursor=zz" "$ta"; expect_code 400 "working bad cursor"; expect_body '"cursor"' "names cursor"
req GET "/v1/sessions/w1/working?limit=0" "$ta"; expect_code 400 "working limit 0"; expect_body '"limit"' "names limit"
req GET "/v1/sessions/w1/working?bogus=1" "$ta"; expect_code 400 "working unknown parameter"

stop_server

# --- the CLI: metadata, --metadata k=v, pages
expect_rc 0 "cli add --metadata" "$CLI" --db "$db" add --user carol --text "我每周五写周报" --metadata '{"team":"北京"}'
expect_rc 0 "cli memories --metadata" "$CLI" --db "$db" memories --user carol --metadata team=北京 --json
expect_out '"team":"北京"' "the CLI filters by metadata"
expect_rc 1 "cli bad metadata" "$CLI" --db "$db" add --user carol --text x --metadata '{"a":[1]}'
expect_out "metadata.a" "the CLI names the key"

. "$(dirname "$0")/lib/pg.bash"
if pg_find >/dev/null && pg_init am-pgmeta && trap 'pg_cleanup; rm -rf "$dir"' EXIT && pg_start; then
  pg_new_db tcp
  expect_rc 0 "pg add with metadata" "$CLI" --store "$URL" add --user ana --text "I prefer oat milk" --metadata '{"project":"apollo"}'
  expect_rc 0 "pg add Chinese" "$CLI" --store "$URL" add --user ana --text "我喜欢喝豆浆" --metadata '{"project":"zeus"}'
  expect_rc 0 "pg memories filtered" "$CLI" --store "$URL" memories --user ana --metadata project=zeus --json
  expect_out '"project":"zeus"' "pg filter keeps zeus"
  if grep -q apollo "$dir/out"; then echo "FAIL: pg filter kept apollo"; failed=$((failed+1)); else passed=$((passed+1)); fi
  for i in $(seq 1 12); do "$CLI" --store "$URL" memory add --user ana --text "Note $i" --key "n.k$i" --kind fact >/dev/null 2>&1; done
  expect_rc 0 "pg first page" "$CLI" --store "$URL" memories --user ana --limit 5 --json
  c=$(sed -n 's/^next_cursor: //p' "$dir/err")
  [ -n "$c" ] && passed=$((passed+1)) || { echo "FAIL: pg no next cursor"; failed=$((failed+1)); }
  seen=""; n=0
  while [ -n "$c" ] && [ $n -lt 10 ]; do
    "$CLI" --store "$URL" memories --user ana --limit 5 --cursor "$c" --json >"$dir/out" 2>"$dir/err"
    seen="$seen $(python3 -c "import json,sys; print(' '.join(m['id'] for m in json.load(open(sys.argv[1]))))" "$dir/out")"
    c=$(sed -n 's/^next_cursor: //p' "$dir/err"); n=$((n+1))
  done
  total=$(echo $seen | wc -w); uniq=$(echo $seen | tr ' ' '\n' | sort -u | wc -l)
  [ "$total" = "$uniq" ] && [ "$total" -ge 9 ] && passed=$((passed+1)) || { echo "FAIL: pg pages $total/$uniq"; failed=$((failed+1)); }
  pg_cleanup
else
  echo "SKIP: PostgreSQL part (no PostgreSQL)"
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
