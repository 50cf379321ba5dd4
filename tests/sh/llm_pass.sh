#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The optional LLM pass through `agentmem distill --llm`, against a local
# chat completions server (lib/fake_llm.py), on SQLite and on PostgreSQL:
# proposals become items of source llm at the lower confidence (en, zh); a
# one-off proposal and a proposal citing no event of the batch leave no
# item; the same proposal again reinforces; malformed, refusing, slow, 429
# and 500 replies are handled (no crash, nothing half-written, retries
# counted); a forgotten event's text is never sent; a bad AGENTMEM_LLM is
# named.  $1 = path of the agentmem CLI.
set -u
CLI=${1:?usage: llm_pass.sh AGENTMEM}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/expect.bash"
. "$here/lib/pg.bash"
FAKE="$here/lib/fake_llm.py"
fakes=()
cleanup() {
  for p in "${fakes[@]}"; do kill "$p" 2>/dev/null; done
  [ -n "${TMP:-}" ] && pg_cleanup
  rm -rf "$dir"
}
trap cleanup EXIT

cat > "$dir/script.json" <<'J'
[{"match": "PDF", "memories": [{"kind": "preference", "text": "User wants reports as PDF files",
   "key": "preference.report_format"}]},
 {"match": "咖啡", "memories": [{"kind": "preference", "text": "用户喜欢不加糖的咖啡"}]},
 {"match": "this time", "memories": [{"kind": "one_off", "text": "Use a table this time"}]},
 {"match": "PDF", "memories": [{"kind": "fact", "text": "ghost fact",
   "source_event_ids": ["01ZZZZZZZZZZZZZZZZZZZZZZZZ"]},
   {"kind": "weird", "text": "not a kind"}]}]
J

fake() { # MODE: starts one, sets LLM and LOG
  LOG="$dir/req.$1.$RANDOM"; : > "$LOG"
  python3 "$FAKE" "$1" "$LOG" "$dir/script.json" > "$LOG.port" 2>/dev/null &
  fakes+=($!)
  for _ in $(seq 100); do [ -s "$LOG.port" ] && break; sleep 0.05; done
  LLM="openai:test-model@http://127.0.0.1:$(awk '{print $2}' "$LOG.port")/v1"
}
expect_field() { # json-key value description (in the last out)
  if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if str(d[sys.argv[2]]).lower()==sys.argv[3] else 1)' "$dir/out" "$1" "$2" 2>/dev/null
  then passed=$((passed+1)); else echo "FAIL: $3: $1 != $2"; cat "$dir/out" "$dir/err"; failed=$((failed+1)); fi
}
count_items() { "$CLI" --db "$1" memories --user "$2" --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))'; }

suite() { # DB label
  local db=$1 l=$2
  expect_rc 0 "$l: add en" "$CLI" --db "$db" add --user alice --text "Reports? I'd like them as PDF files."
  expect_rc 0 "$l: add zh" "$CLI" --db "$db" add --user alice --text "早上来杯咖啡，不要糖哈"
  expect_rc 0 "$l: add one-off" "$CLI" --db "$db" add --user alice --text "Could you do this time a table"
  fake good
  expect_rc 0 "$l: pass" env AGENTMEM_LLM="$LLM" "$CLI" --db "$db" distill --llm --user alice --json
  expect_field created 2 "$l: two items created (en, zh)"
  expect_field one_off 1 "$l: the one-off stays one-off"
  expect_field dropped 2 "$l: a proposal citing no event of the batch and a wrong kind dropped"
  "$CLI" --db "$db" memories --user alice --json > "$dir/mem.json"
  if python3 - "$dir/mem.json" <<'P'
import json, sys
items = json.load(open(sys.argv[1]))
llm = [m for m in items if m["value"].get("source") == "llm"]
texts = sorted(m["text"] for m in llm)
assert texts == sorted(["User wants reports as PDF files", "用户喜欢不加糖的咖啡"]), texts
assert all(abs(m["confidence"] - 0.5) < 1e-9 for m in llm), [m["confidence"] for m in llm]
assert all(m.get("origin") == "llm" for m in llm), [m.get("origin") for m in llm]
assert not any("ghost" in m["text"] or "table" in m["text"] for m in items)
P
  then passed=$((passed+1)); else echo "FAIL: $l: llm items, their source and confidence"; cat "$dir/mem.json"; failed=$((failed+1)); fi
  expect_rc 0 "$l: pass again" env AGENTMEM_LLM="$LLM" "$CLI" --db "$db" distill --llm --user alice --json
  expect_field merged 2 "$l: the same proposals reinforce"
  expect_field created 0 "$l: no second item"
  local n0; n0=$(count_items "$db" alice)

  fake malformed
  expect_rc 1 "$l: malformed reply" env AGENTMEM_LLM="$LLM" "$CLI" --db "$db" distill --llm --user alice --json
  expect_out "not a JSON object" "$l: malformed named"
  expect_field refused true "$l: malformed counted"
  fake refusal
  expect_rc 1 "$l: refusal" env AGENTMEM_LLM="$LLM" "$CLI" --db "$db" distill --llm --user alice --json
  expect_out "refused" "$l: refusal named"
  fake slow
  expect_rc 1 "$l: slow reply times out" env AGENTMEM_LLM="$LLM" AGENTMEM_LLM_TIMEOUT_MS=800 \
    "$CLI" --db "$db" distill --llm --user alice --json
  expect_out "timed out\|Timeout" "$l: timeout named"
  expect_field retries 2 "$l: timeouts retried"
  [ "$(count_items "$db" alice)" = "$n0" ] && passed=$((passed+1)) || { echo "FAIL: $l: a failed pass wrote"; failed=$((failed+1)); }
  fake 500
  expect_rc 0 "$l: 500 then good" env AGENTMEM_LLM="$LLM" "$CLI" --db "$db" distill --llm --user alice --json
  expect_field retries 1 "$l: the 500 retried"
  expect_field merged 2 "$l: after the 500, merged"
  fake 429
  local t0=$SECONDS
  expect_rc 0 "$l: 429 then good" env AGENTMEM_LLM="$LLM" "$CLI" --db "$db" distill --llm --user alice --json
  expect_field retries 1 "$l: the 429 retried"
  [ $((SECONDS - t0)) -ge 1 ] && passed=$((passed+1)) || { echo "FAIL: $l: Retry-After not honoured"; failed=$((failed+1)); }

  # the budget is the store's: separate runs share it (2 calls a day)
  expect_rc 0 "$l: add dave" "$CLI" --db "$db" add --user dave --text "I want PDF invoices"
  fake good
  for i in 1 2; do
    expect_rc 0 "$l: budget run $i" env AGENTMEM_LLM="$LLM" AGENTMEM_LLM_BUDGET=2 "$CLI" --db "$db" distill --llm --user dave --json
    expect_field calls 1 "$l: budget run $i calls"
  done
  expect_rc 0 "$l: budget run 3" env AGENTMEM_LLM="$LLM" AGENTMEM_LLM_BUDGET=2 "$CLI" --db "$db" distill --llm --user dave --json
  expect_field budget_exhausted true "$l: the third run finds the budget spent"
  expect_field calls 0 "$l: the third run makes no call"
  [ "$(wc -l < "$LOG")" = 2 ] && passed=$((passed+1)) || { echo "FAIL: $l: the model got $(wc -l < "$LOG") requests, wanted 2"; failed=$((failed+1)); }
  expect_rc 0 "$l: add erin" "$CLI" --db "$db" add --user erin --text "早上来杯咖啡"
  expect_rc 0 "$l: another user's budget is its own" env AGENTMEM_LLM="$LLM" AGENTMEM_LLM_BUDGET=2 "$CLI" --db "$db" distill --llm --user erin --json
  expect_field calls 1 "$l: erin still calls"

  # a forgotten event's text is never sent
  sid=$("$CLI" --db "$db" add --user bob --json --text "我的暗号是 ZEBRA-7731，PDF" |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["event_id"])')
  expect_rc 0 "$l: add other" "$CLI" --db "$db" add --user bob --text "I like PDF exports"
  expect_rc 0 "$l: forget the secret event" "$CLI" --db "$db" forget --user bob --level event --id "$sid"
  fake good
  expect_rc 0 "$l: pass after the forget" env AGENTMEM_LLM="$LLM" "$CLI" --db "$db" distill --llm --user bob --json
  expect_field events 1 "$l: only the remaining event sent"
  if ! grep -q "ZEBRA" "$LOG" && ! grep -q "暗号" "$LOG" && grep -q "PDF exports" "$LOG"; then passed=$((passed+1)); else
    echo "FAIL: $l: the forgotten text reached the model"; cat "$LOG"; failed=$((failed+1)); fi
}

expect_rc 2 "bad AGENTMEM_LLM" env AGENTMEM_LLM="gpt@" "$CLI" --db "$dir/x.db" distill --llm --user a
expect_out "AGENTMEM_LLM" "the variable is named"
expect_rc 2 "bad budget" env AGENTMEM_LLM="openai:m@http://127.0.0.1:9/v1" AGENTMEM_LLM_BUDGET=x "$CLI" --db "$dir/x.db" distill --llm --user a
expect_out "AGENTMEM_LLM_BUDGET" "the budget variable is named"
expect_rc 0 "add" "$CLI" --db "$dir/x.db" add --user a --text "hello"
expect_rc 1 "no LLM configured" env -u AGENTMEM_LLM "$CLI" --db "$dir/x.db" distill --llm --user a
expect_out "no LLM is configured" "says what to set"

suite "$dir/t.db" sqlite

if pg_find; then
  pg_init am-llm || exit 1
  trap cleanup EXIT # pg_init's trap, and the fake servers'
  if pg_start; then pg_new_db; suite "$URL" postgres
  else echo "FAIL: PostgreSQL did not start"; failed=$((failed+1)); fi
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
