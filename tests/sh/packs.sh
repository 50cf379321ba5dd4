#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Cold-start rule packs through the CLI (docs/PACKS.md), on SQLite and on
# PostgreSQL (a throwaway server; that half is skipped without PostgreSQL):
#   - every validation error names its field (several in one message), the
#     size limits answer "over the limit", and nothing is applied: no pack,
#     no item;
#   - the CLI's usage errors (apply without --user / --all-matching, both,
#     remove without NAME, an unknown subcommand);
#   - apply to a user (the zh and en example packs), the same version again
#     is unchanged, list per user and for every user (users counted, JSON);
#   - --all-matching: role and region from the latest event metadata that
#     has them, channel from an identity link; users that do not match get
#     nothing;
#   - the rules shown under [规则] / [Rules]; export then import into
#     another user carries the pack and its rules;
#   - remove from one user and from every user: the user's own memories
#     stay, the SQLite file keeps no byte of a removed rule's text; a user
#     forget takes the user's packs;
#   - HTTP: POST/GET/DELETE /v1/packs with an admin token; a user's token
#     403, a bad pack 400 naming the field, an unknown parameter 400;
#   - both scenario files (tests/scenarios/packs_*.jsonl) on PostgreSQL, their
#     recalls (--dump) the same as on SQLite.
# $1 = path of the agentmem CLI.
set -u
CLI=${1:?usage: packs.sh AGENTMEM}
cd "$(dirname "$0")/../.."
. tests/sh/lib/expect.bash
ZH=packs/examples/customer_service_zh.json
EN=packs/examples/sales_en.json

# ---------------------------------------------------------- validation
db="$dir/v.db"
"$CLI" --db "$db" init >/dev/null
bad() { # description needle(s)...: the pack in $dir/pack.json
  local what=$1; shift
  expect_rc 1 "$what: refused" "$CLI" --db "$db" pack apply "$dir/pack.json" --user v
  for n in "$@"; do expect_out "$n" "$what"; done
}
printf '{"name": "x", ' >"$dir/pack.json"
bad "not JSON" "pack: invalid JSON at line 1"
printf '[1]' >"$dir/pack.json"
bad "an array" "pack: expected a JSON object"
printf '{"applies_to": {}}' >"$dir/pack.json"
bad "missing fields" "name: is missing" "version: is missing" "rules: is missing"
printf '{"name":"x","version":"1","color":"red","rules":[{"kind":"rule","text":"t","lang":"en"}]}' >"$dir/pack.json"
bad "unknown field" "pack: color: unknown field"
printf '{"name":"bad name!","version":1,"rules":[{"kind":"rule","text":"t","lang":"en"}]}' >"$dir/pack.json"
bad "bad name and version" "name: expected 1 to 64 letters" "version: expected a string, got a number"
printf '{"name":"x","version":"1","applies_to":[],"rules":[{"kind":"rule","text":"t","lang":"en"}]}' >"$dir/pack.json"
bad "applies_to not an object" "applies_to: expected an object"
printf '{"name":"x","version":"1","applies_to":{"planet":"mars","role":""},"rules":[{"kind":"rule","text":"t","lang":"en"}]}' >"$dir/pack.json"
bad "applies_to fields" "applies_to.planet: unknown field" "applies_to.role: is empty"
printf '{"name":"x","version":"1","rules":[]}' >"$dir/pack.json"
bad "no rules" "rules: expected an array of 1 to 200 rules"
printf '{"name":"x","version":"1","rules":[{"kind":"rule","key":"a.b","text":"t","lang":"fr"},{"kind":"opinion","text":"t","lang":"en"},{"kind":"rule","key":"a.b","text":"  ","lang":"zh"},{"kind":"rule","text":"t","lang":"en","why":"x"},"rule"]}' >"$dir/pack.json"
bad "bad rules" "rules\[0\].lang: expected zh or en" "rules\[1\].kind: expected rule, preference or constraint" \
    "rules\[2\].text: is empty" "rules\[2\].key: the key of rules\[0\] too" "rules\[3\].why: unknown field" \
    "rules\[4\]: expected an object"
printf '{"name":"x","version":"1","rules":[{"kind":"rule","text":"a\\u0007b","lang":"en"},{"text":"t"}]}' >"$dir/pack.json"
bad "control character, missing kind and lang" "rules\[0\].text: has a control character at byte 1" \
    "rules\[1\].kind: is missing" "rules\[1\].lang: is missing"
python3 -c 'import json; print(json.dumps({"name":"x","version":"1","rules":[{"kind":"rule","text":"长"*400,"lang":"zh"}]}))' >"$dir/pack.json"
bad "a text over 1,000 bytes" "rules\[0\].text: is 1200 bytes, over the limit of 1000"
python3 -c 'import json; print(json.dumps({"name":"x","version":"1","rules":[{"kind":"rule","text":"r%d" % i,"lang":"en"} for i in range(201)]}))' >"$dir/pack.json"
bad "201 rules" "rules: 201 rules, over the limit of 200"
python3 -c 'import json; print(json.dumps({"name":"x","version":"1","rules":[{"kind":"rule","text":"t","lang":"en"}],"pad":"x"*300000}))' >"$dir/pack.json"
bad "a file over 256 KiB" "bytes, over the limit of 262144"
printf '{"name":"x","version":"1","rules":[{"kind":"rule","text":"\xff","lang":"en"}]}' >"$dir/pack.json"
bad "invalid UTF-8" "pack: invalid UTF-8 at byte"
expect_rc 0 "nothing applied: pack list" "$CLI" --db "$db" pack list
expect_out "(no packs)" "no pack after the refusals"
expect_rc 0 "nothing applied: the user's packs" "$CLI" --db "$db" pack list --user v
expect_out "(no packs)" "no pack for the user after the refusals"
# the CLI's arguments
expect_rc 2 "apply without --user or --all-matching" "$CLI" --db "$db" pack apply "$ZH"
expect_out "apply needs --user U or --all-matching" "apply's target"
expect_rc 2 "apply with both" "$CLI" --db "$db" pack apply "$ZH" --user v --all-matching
expect_rc 2 "apply without FILE" "$CLI" --db "$db" pack apply --user v
expect_rc 2 "remove without NAME" "$CLI" --db "$db" pack remove --user v
expect_out "remove needs the pack's NAME" "remove's NAME"
expect_rc 2 "an unknown subcommand" "$CLI" --db "$db" pack show
expect_out "expected apply, list or remove" "pack's subcommands"
expect_rc 2 "--all-matching on list" "$CLI" --db "$db" pack list --all-matching
expect_rc 1 "a missing file" "$CLI" --db "$db" pack apply "$dir/none.json" --user v
expect_rc 1 "remove an unknown pack" "$CLI" --db "$db" pack remove nothing
expect_out "no user has pack nothing" "remove's message"

# ---------------------------------------------------------- the flows
# suite NAME STORE-ARGS...: the same checks on one store (I: another
# empty store of the same kind, for the import)
suite() {
  local name=$1; shift
  local S=("$@")
  "$CLI" "${S[@]}" init >/dev/null
  expect_rc 0 "$name: apply zh" "$CLI" "${S[@]}" pack apply "$ZH" --user 王芳
  expect_out "王芳: applied, 6 items" "$name: applied"
  expect_rc 0 "$name: apply zh again" "$CLI" "${S[@]}" pack apply "$ZH" --user 王芳 --json
  expect_out '"outcome":"unchanged","items":0' "$name: unchanged"
  expect_rc 0 "$name: recall" "$CLI" "${S[@]}" recall --user 王芳 --text "这笔订单的退款金额是多少？"
  expect_out "\[规则\]" "$name: the rules' title"
  expect_out "人民币" "$name: a rule shown"
  # --all-matching: the latest metadata that has the field; links for channels
  "$CLI" "${S[@]}" add --user cs1 --session a --text "你好，我想查一下订单" \
    --metadata '{"role":"customer_service","region":"CN"}' >/dev/null
  "$CLI" "${S[@]}" add --user cs1 --session a --text "订单号是12345" >/dev/null
  "$CLI" "${S[@]}" add --user cs2 --session a --text "Hi, I need a quote" \
    --metadata '{"role":"sales","region":"US"}' >/dev/null
  "$CLI" "${S[@]}" add --user cs3 --session a --text "你好" \
    --metadata '{"role":"customer_service","region":"TW"}' >/dev/null
  "$CLI" "${S[@]}" add --user cs3 --session a --text "在吗" --metadata '{"role":"sales"}' >/dev/null
  "$CLI" "${S[@]}" link --channel wecom --external-id w1 --user cs3 >/dev/null
  expect_rc 0 "$name: zh to every match" "$CLI" "${S[@]}" pack apply "$ZH" --all-matching --json
  expect_out '"users":\[{"user":"cs1","outcome":"applied","items":6}\]}' "$name: only cs1 matches zh"
  expect_rc 0 "$name: en to every match" "$CLI" "${S[@]}" pack apply "$EN" --all-matching --json
  expect_out '"users":\[{"user":"cs2","outcome":"applied","items":6}\]}' "$name: only cs2 matches en"
  printf '{"name":"wecom","version":"1","applies_to":{"channel":"wecom","role":"sales"},"rules":[{"kind":"rule","text":"企业微信里回复不超过三行","lang":"zh"}]}' >"$dir/wecom.json"
  expect_rc 0 "$name: a channel pack" "$CLI" "${S[@]}" pack apply "$dir/wecom.json" --all-matching --json
  expect_out '"users":\[{"user":"cs3","outcome":"applied","items":1}\]}' "$name: the linked user, by its latest role"
  expect_rc 0 "$name: list" "$CLI" "${S[@]}" pack list
  expect_out 'customer_service_zh@1.0  applies_to {"region":"CN","role":"customer_service"}  6 rules  2 users' "$name: list counts users"
  expect_out 'sales_en_us@1.0' "$name: list has the en pack"
  expect_rc 0 "$name: list a user" "$CLI" "${S[@]}" pack list --user cs1 --json
  expect_out '"user":"cs1","packs":\[{"name":"customer_service_zh","version":"1.0","applies_to":{"region":"CN","role":"customer_service"},"rules":6,"applied_at":"' "$name: a user's list"
  expect_rc 0 "$name: recall en" "$CLI" "${S[@]}" recall --user cs2 --text "What would 20 seats of the Pro plan cost?"
  expect_out "\[Rules\] (set by the operator, not said by the user)" "$name: the en title"
  # export, import into another user: the pack and its rules go along
  expect_rc 0 "$name: export" "$CLI" "${S[@]}" export --user cs1
  cp "$dir/out" "$dir/cs1.json"
  expect_out '"packs":\[{"pack":{"applies_to"' "$name: the export lists the pack"
  expect_rc 0 "$name: import" "$CLI" "${I[@]}" import "$dir/cs1.json" --user cs9
  expect_rc 0 "$name: the imported user's packs" "$CLI" "${I[@]}" pack list --user cs9
  expect_out "customer_service_zh@1.0" "$name: import carried the pack"
  expect_rc 0 "$name: the imported user's recall" "$CLI" "${I[@]}" recall --user cs9 --text "这笔订单的退款金额是多少？"
  expect_out "人民币" "$name: import carried the rules"
  expect_rc 0 "$name: remove from the imported user" "$CLI" "${I[@]}" pack remove customer_service_zh
  expect_out "cs9: removed 6 items" "$name: the imported rules are the pack's"
  # remove: from one user, then from every user; the user's items stay
  "$CLI" "${S[@]}" add --user 王芳 --session b --text "以后回复详细一点，把原因也讲清楚" >/dev/null
  expect_rc 0 "$name: remove from a user" "$CLI" "${S[@]}" pack remove customer_service_zh --user 王芳
  expect_out "王芳: removed 6 items" "$name: removed"
  expect_rc 0 "$name: memories after remove" "$CLI" "${S[@]}" memories --user 王芳 --all
  expect_out "把原因也讲清楚" "$name: the user's item stays"
  if grep -q "人民币" "$dir/out"; then failed=$((failed+1)); echo "FAIL: $name: a rule's version stays"; else passed=$((passed+1)); fi
  expect_rc 1 "$name: remove again" "$CLI" "${S[@]}" pack remove customer_service_zh --user 王芳
  expect_out "user 王芳 has no pack customer_service_zh" "$name: remove again's message"
  "$CLI" "${S[@]}" pack apply "$ZH" --user 王芳 >/dev/null
  expect_rc 0 "$name: remove from every user" "$CLI" "${S[@]}" pack remove customer_service_zh --json
  expect_out '"users":\[{"user":"cs1","items":6},{"user":"王芳","items":6}\]' "$name: every holder"
  # a user forget takes the user's packs
  "$CLI" "${S[@]}" forget --user cs2 --level user >/dev/null
  expect_rc 0 "$name: list after a forget" "$CLI" "${S[@]}" pack list
  if grep -q "sales_en_us" "$dir/out"; then failed=$((failed+1)); echo "FAIL: $name: a forgotten user's pack is listed"; else passed=$((passed+1)); fi
  expect_out "wecom@1" "$name: another user's pack stays"
}

I=(--db "$dir/i.db")
echo "validation: $passed passed, $failed failed"
suite sqlite --db "$dir/s.db"
echo "sqlite: $passed passed, $failed failed"
# the SQLite file keeps no byte of a removed rule (the store scrubbed)
in_file() { python3 -c 'import sys; d=b"".join(open(p,"rb").read() for p in sys.argv[2:]); sys.exit(0 if sys.argv[1].encode() in d else 1)' "$@"; }
files=("$dir/s.db"); [ -f "$dir/s.db-wal" ] && files+=("$dir/s.db-wal")
if in_file "涉及金额时一律用人民币" "${files[@]}"; then failed=$((failed+1)); echo "FAIL: sqlite: a removed rule's text stays in the file"; else passed=$((passed+1)); fi

# ---------------------------------------------------------- HTTP (admin only)
. tests/sh/lib/server.bash
db="$dir/http.db"
tadm=$("$CLI" --db "$db" token create --user ops --admin 2>/dev/null)
tusr=$("$CLI" --db "$db" token create --user 王芳 2>/dev/null)
start_server
zh=$(python3 -c 'import json,sys; print(json.dumps({"pack": json.load(open(sys.argv[1])), "user": "王芳"}, ensure_ascii=False))' "$ZH")
req POST /v1/packs "$tusr" "$zh"; expect_code 403 "http: a user's token cannot apply a pack"
req GET /v1/packs "$tusr"; expect_code 403 "http: a user's token cannot list packs"
req POST /v1/packs "$tadm" "$zh"; expect_code 200 "http: apply"
expect_body '"outcome":"applied","items":6' "http: applied"
req POST /v1/packs "$tadm" '{"pack":{"name":"x","version":"1","rules":[{"kind":"rule","text":"t","lang":"fr"}]}}'
expect_code 400 "http: a bad pack"; expect_body 'rules[0].lang: expected zh or en' "http: the field named"
req POST /v1/packs "$tadm" '{"pack":{"name":"x"},"colour":1}'; expect_code 400 "http: an unknown field"
req GET "/v1/packs?user=%E7%8E%8B%E8%8A%B3" "$tadm"; expect_code 200 "http: list a user"
expect_body '"name":"customer_service_zh","version":"1.0"' "http: the user's pack"
req GET "/v1/packs?usr=x" "$tadm"; expect_code 400 "http: an unknown parameter"
req POST /v1/recall "$tusr" '{"query":"这笔订单的退款金额是多少？"}'; expect_code 200 "http: recall"
expect_body '[规则]' "http: the rules in the user's block"
req DELETE "/v1/packs/customer_service_zh?user=%E7%8E%8B%E8%8A%B3" "$tusr"; expect_code 403 "http: a user's token cannot remove"
req DELETE /v1/packs/customer_service_zh "$tadm"; expect_code 200 "http: remove"
expect_body '"items":6' "http: the items removed"
req DELETE /v1/packs/customer_service_zh "$tadm"; expect_code 404 "http: remove again"
stop_server

. tests/sh/lib/pg.bash
if pg_find; then
  pg_init am-packs || exit 1
  trap 'pg_cleanup; rm -rf "$dir"' EXIT
  if pg_start; then
    echo "on PostgreSQL too (port $PORT)"
    pg_new_db && I=(--store "$URL") && pg_new_db && suite postgres --store "$URL"
    for f in tests/scenarios/packs_en.jsonl tests/scenarios/packs_zh.jsonl; do
      pg_new_db
      expect_rc 0 "postgres: scenario $f" "$CLI" scenario run --store "$URL" --dump "$dir/pg.dump" "$f"
      expect_out " 0 failed" "postgres: scenario $f passes"
      "$CLI" scenario run --store "sqlite:$dir/sq-$(basename "$f").db" --dump "$dir/sq.dump" "$f" >/dev/null
      if cmp -s "$dir/pg.dump" "$dir/sq.dump"; then passed=$((passed+1)); else
        echo "FAIL: $f: the recalls differ between PostgreSQL and SQLite"; diff "$dir/sq.dump" "$dir/pg.dump" | head -4
        failed=$((failed+1)); fi
    done
  else
    echo "FAIL: PostgreSQL would not start"; failed=$((failed+1))
  fi
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
