#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Zero configuration (docs/guide/configuration.md): the store a command
# uses when none is named, and `agentmem doctor`.
#   - XDG_DATA_HOME set: $XDG_DATA_HOME/agentmem/agentmem.db, its missing
#     folders made 0700 on the first write, an existing folder's mode left
#     as it was; a second run reuses the store (recall finds the first
#     run's Chinese and English events); a reading command and doctor
#     create nothing;
#   - only HOME: ~/.local/share/agentmem/agentmem.db (0700);
#   - $AGENTMEM_DB wins over the default, --db and --store over both;
#   - a folder that cannot be made: exit 1 naming it, nothing written;
#   - the embedder auto with no encoder installed: keyword recall works,
#     doctor says how to add the encoder;
#   - recall from another working directory answers the same;
#   - doctor --json: the store's path, where it came from, exists /
#     will_create, schema version, the embedder, usable; exit 1 when the
#     store cannot be created;
#   - `agentmem mcp` without --db: initialize, remember, recall on the
#     default store, whose file then exists.
# $1 = path of the agentmem CLI.
set -u
CLI=${1:?usage: zeroconf.sh AGENTMEM}
CLI=$(cd "$(dirname "$CLI")" && pwd)/$(basename "$CLI")
. "$(dirname "$0")/lib/expect.bash"
unset AGENTMEM_DB AGENTMEM_EMBEDDER AGENTMEM_MODEL_DIR AM_MODEL_DIR AGENTMEM_CACHE AGENTMEM_LLM
# no encoder may be found through the data home here: keyword recall
xdg=$dir/xdg
home=$dir/home
mkdir -p "$home"
run() { env XDG_DATA_HOME="$xdg" HOME="$home" "$@"; }
mode() { stat -c %a "$1"; }
check() { # description python-expression over the JSON in $dir/out ("j")
  if python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' \
      "$dir/out" "$2" 2>>"$dir/err"; then passed=$((passed+1)); else
    echo "FAIL: $1: $2"; cat "$dir/out" "$dir/err"; failed=$((failed+1)); fi
}
same() { # description A B: files equal
  if cmp -s "$2" "$3"; then passed=$((passed+1)); else
    echo "FAIL: $1"; diff "$2" "$3" | head -20; failed=$((failed+1)); fi
}

# --- XDG_DATA_HOME set -------------------------------------------------------
expect_rc 0 "doctor on a fresh data home" run "$CLI" doctor
expect_out "will be created on first use" "doctor says the store will be created"
expect_out "$xdg/agentmem/agentmem.db" "doctor names the default path"
expect_out "fetch-model.sh" "doctor says how to add the encoder"
expect_out "AGENTMEM_MODEL_DIR" "doctor names the variable for the encoder"
[ ! -e "$xdg" ] && passed=$((passed+1)) || { echo "FAIL: doctor created $xdg"; failed=$((failed+1)); }
expect_rc 0 "doctor --json on a fresh data home" run "$CLI" doctor --json
check "doctor --json: fresh store" \
  'j["store"]["from"]=="default" and j["store"]["exists"] is False and j["store"]["will_create"] is True and j["store"]["schema_version"] is None and j["usable"] is True and j["missing"]==[]'
check "doctor --json: the path" "j['store']['path']=='$xdg/agentmem/agentmem.db'"
check "doctor --json: auto fell back to keyword recall" \
  "j['embedder']['configured']=='auto' and j['embedder']['from']=='default' and j['embedder']['resolved']=='none' and j['embedder']['model_dir'] is None and 'fetch-model.sh' in j['embedder']['hint'] and j['model_files'] is None"
check "doctor --json: the data home searched" \
  "any(s['dir']=='$xdg/agentmem/models/use-lite' and s['from']=='data home' and not s['has_model'] for s in j['embedder']['searched'])"
check "doctor --json: version, llm" "j['version'] and j['llm']=={'configured':False,'spec':None,'key_set':False}"
expect_rc 1 "recall before any write" run "$CLI" recall --user 王芳 --text "周报"
[ ! -e "$xdg" ] && passed=$((passed+1)) || { echo "FAIL: a reading command created $xdg"; failed=$((failed+1)); }

expect_rc 0 "first write (zh) to the default store" run "$CLI" add --user 王芳 --text "我每周四下午写周报"
expect_rc 0 "first write (en) to the default store" run "$CLI" add --user alice --text "I write the weekly report every Thursday afternoon"
[ -f "$xdg/agentmem/agentmem.db" ] && passed=$((passed+1)) || { echo "FAIL: no $xdg/agentmem/agentmem.db"; failed=$((failed+1)); }
for d in "$xdg" "$xdg/agentmem"; do
  [ "$(mode "$d")" = 700 ] && passed=$((passed+1)) || { echo "FAIL: $d has mode $(mode "$d"), wanted 700"; failed=$((failed+1)); }
done
expect_rc 0 "second run reuses the store (zh)" run "$CLI" recall --user 王芳 --text "周报什么时候写"
expect_out "周四" "the first run's Chinese event is recalled"
expect_rc 0 "second run reuses the store (en)" run "$CLI" recall --user alice --text "when is the weekly report due"
expect_out "Thursday" "the first run's English event is recalled"
[ "$(mode "$xdg/agentmem")" = 700 ] && passed=$((passed+1)) || { echo "FAIL: the folder's mode changed"; failed=$((failed+1)); }
expect_rc 0 "doctor --json on the store" run "$CLI" doctor --json
check "doctor --json: the existing store" \
  "j['store']['exists'] is True and j['store']['will_create'] is False and j['store']['schema_version']==j['store']['schema_current'] and j['store']['schema_version']>0 and j['store']['size_bytes']>0 and j['store']['writable'] is True"

# recall from another working directory: the same answer
(cd "$dir" && run "$CLI" recall --user 王芳 --text "周报什么时候写" >"$dir/r1" 2>&1)
(cd / && run "$CLI" recall --user 王芳 --text "周报什么时候写" >"$dir/r2" 2>&1)
(cd "$home" && run "$CLI" recall --user alice --text "when is the weekly report due" >"$dir/r3" 2>&1)
(cd / && run "$CLI" recall --user alice --text "when is the weekly report due" >"$dir/r4" 2>&1)
same "zh recall from two working directories" "$dir/r1" "$dir/r2"
same "en recall from two working directories" "$dir/r3" "$dir/r4"
grep -q "周四" "$dir/r2" && passed=$((passed+1)) || { echo "FAIL: zh recall from / is empty"; cat "$dir/r2"; failed=$((failed+1)); }

# an existing data home keeps its mode; only the folders made are 0700
xdg2=$dir/xdg2
mkdir -m 755 "$xdg2"
expect_rc 0 "write under an existing data home" env XDG_DATA_HOME="$xdg2" HOME="$home" "$CLI" init
[ "$(mode "$xdg2")" = 755 ] && [ "$(mode "$xdg2/agentmem")" = 700 ] && passed=$((passed+1)) ||
  { echo "FAIL: modes $(mode "$xdg2") / $(mode "$xdg2/agentmem"), wanted 755 / 700"; failed=$((failed+1)); }

# --- only HOME ---------------------------------------------------------------
expect_rc 0 "HOME only: first write" env -u XDG_DATA_HOME HOME="$home" "$CLI" add --user bob --text "Bob prefers tea"
db_home=$home/.local/share/agentmem/agentmem.db
[ -f "$db_home" ] && passed=$((passed+1)) || { echo "FAIL: no $db_home"; failed=$((failed+1)); }
for d in "$home/.local" "$home/.local/share" "$home/.local/share/agentmem"; do
  [ "$(mode "$d")" = 700 ] && passed=$((passed+1)) || { echo "FAIL: $d has mode $(mode "$d")"; failed=$((failed+1)); }
done
expect_rc 0 "HOME only: second run" env -u XDG_DATA_HOME HOME="$home" "$CLI" recall --user bob --text "tea"
expect_out "tea" "HOME only: the first run's event"
expect_rc 0 "HOME only: doctor" env -u XDG_DATA_HOME HOME="$home" "$CLI" doctor --json
check "HOME only: doctor's path" "j['store']['path']=='$db_home' and j['store']['exists'] is True"

# --- $AGENTMEM_DB, then --db / --store ------------------------------------------
expect_rc 0 "AGENTMEM_DB wins" run env AGENTMEM_DB="$dir/env.db" "$CLI" add --user carol --text "卡罗尔喜欢绿茶"
[ -f "$dir/env.db" ] && passed=$((passed+1)) || { echo "FAIL: AGENTMEM_DB not used"; failed=$((failed+1)); }
expect_rc 0 "AGENTMEM_DB: the default store" run "$CLI" recall --user carol --text "绿茶"
expect_out "nothing remembered" "AGENTMEM_DB: carol is not in the default store"
expect_rc 0 "AGENTMEM_DB: doctor" run env AGENTMEM_DB="$dir/env.db" "$CLI" doctor --json
check "doctor: from \$AGENTMEM_DB" "j['store']['from']=='\$AGENTMEM_DB' and j['store']['path']=='$dir/env.db'"
expect_rc 0 "--db wins over both" run env AGENTMEM_DB="$dir/env.db" "$CLI" --db "$dir/flag.db" add --user dave --text "Dave likes coffee"
[ -f "$dir/flag.db" ] && passed=$((passed+1)) || { echo "FAIL: --db not used"; failed=$((failed+1)); }
expect_rc 0 "--db: AGENTMEM_DB's store" run env AGENTMEM_DB="$dir/env.db" "$CLI" recall --user dave --text coffee
expect_out "nothing remembered" "--db: dave is not in AGENTMEM_DB's store"
expect_rc 0 "--store sqlite: wins too" run env AGENTMEM_DB="$dir/env.db" "$CLI" --store "sqlite:$dir/flag.db" recall --user dave --text coffee
expect_out "coffee" "--store: dave's event"
expect_rc 0 "--db: doctor" run env AGENTMEM_DB="$dir/env.db" "$CLI" --db "$dir/flag.db" doctor --json
check "doctor: from --db" "j['store']['from']=='--db' and j['store']['path']=='$dir/flag.db'"

# --- a folder that cannot be made -----------------------------------------------
printf x >"$dir/afile"
expect_rc 1 "uncreatable data home" env XDG_DATA_HOME="$dir/afile/data" HOME="$home" "$CLI" add --user u --text "hello"
expect_out "$dir/afile" "the error names the path"
expect_out "cannot create the store's folder" "the error says what failed"
expect_rc 1 "doctor: uncreatable store" env XDG_DATA_HOME="$dir/afile/data" HOME="$home" "$CLI" doctor --json
check "doctor --json: not usable, the path named" \
  "j['usable'] is False and j['store']['will_create'] is False and any('$dir/afile' in m for m in j['missing'])"
expect_rc 1 "doctor text: uncreatable store" env XDG_DATA_HOME="$dir/afile/data" HOME="$home" "$CLI" doctor
expect_out "NOT usable" "doctor says it is not usable"
expect_rc 2 "no HOME, no XDG_DATA_HOME, no AGENTMEM_DB" env -u HOME -u XDG_DATA_HOME "$CLI" recall --user u --text x
expect_out "AGENTMEM_DB" "the error says how to name a store"

# --- mcp without --db -----------------------------------------------------------
xdg3=$dir/xdg3
{
  printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
  printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/initialized"}'
  printf '%s\n' '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"remember","arguments":{"text":"我下周三去上海出差"}}}'
  printf '%s\n' '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"recall","arguments":{"query":"什么时候去上海"}}}'
} | timeout 60 env XDG_DATA_HOME="$xdg3" HOME="$home" "$CLI" mcp --user 李雷 >"$dir/out" 2>"$dir/err"
rc=$?
[ "$rc" = 0 ] && passed=$((passed+1)) || { echo "FAIL: mcp exit $rc"; cat "$dir/err"; failed=$((failed+1)); }
[ -f "$xdg3/agentmem/agentmem.db" ] && [ "$(mode "$xdg3/agentmem")" = 700 ] && passed=$((passed+1)) ||
  { echo "FAIL: mcp did not make the default store"; ls -laR "$xdg3" 2>&1; failed=$((failed+1)); }
python3 - "$dir/out" <<'EOF' && passed=$((passed+1)) || { echo "FAIL: mcp replies"; cat "$dir/out" "$dir/err"; failed=$((failed+1)); }
import json, sys
r = {m.get("id"): m for m in map(json.loads, open(sys.argv[1]))}
assert "result" in r[1], r[1]
assert not r[2]["result"].get("isError"), r[2]
assert "上海" in json.dumps(r[3]["result"], ensure_ascii=False), r[3]
EOF
expect_rc 0 "the CLI sees what mcp wrote" env XDG_DATA_HOME="$xdg3" HOME="$home" "$CLI" recall --user 李雷 --text "上海出差"
expect_out "上海" "mcp's memory through the default store"

echo "zeroconf: $passed passed, $failed failed"
[ "$failed" = 0 ]
