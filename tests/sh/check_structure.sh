#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# scripts/check-structure.sh: the real tree passes with its baseline; on a
# copy of the tree (sources copied, the build's objects linked), a planted
# violation of each rule fails the check and names the rule; the allow-list,
# the tools/ limit and the store's sub-tables count as documented; a stale
# baseline entry fails and says to run --update-baseline.
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BUILD="${AM_BUILD_DIR:-$ROOT/build/cmake}"
CHECK="$ROOT/scripts/check-structure.sh"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
command -v nm >/dev/null && command -v objdump >/dev/null || { echo "SKIP: no binutils (nm, objdump)"; exit 77; }
command -v cc >/dev/null || { echo "SKIP: no C compiler"; exit 77; }
[ -f "$BUILD/libagentmem.so" ] || { echo "SKIP: no build tree at $BUILD (make)"; exit 77; }

# the real tree with its baseline
out=$(bash "$CHECK" --build "$BUILD" 2>&1) || bad "the tree fails its own baseline: $out"

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
T=$tmp/tree B=$tmp/build
mkdir -p "$T/scripts" "$B/CMakeFiles"
cp -r "$ROOT/src" "$ROOT/tools" "$ROOT/include" "$T/"
cp -r "$ROOT/scripts/structure-allow" "$T/scripts/"
cp -rs "$BUILD/CMakeFiles/agentmem_obj.dir" "$BUILD/CMakeFiles/agentmem_server.dir" "$B/CMakeFiles/"
ln -s "$BUILD/libagentmem.so" "$B/libagentmem.so"
base=$tmp/baseline.txt
run() { bash "$CHECK" --root "$T" --build "$B" --baseline "$base" "$@" 2>&1; }
run --update-baseline >/dev/null || bad "--update-baseline on the copy"
out=$(run) || bad "the copy fails the baseline just written: $out"

# expect_fail RULE TEXT: the check of RULE fails, naming RULE, with TEXT;
# expect_pass RULE WHAT: it passes (--only: one rule a run keeps this fast)
expect_fail() {
    local out rc
    out=$(run --only "$1"); rc=$?
    [ $rc = 1 ] || { bad "$1: exit $rc, not 1: $out"; return; }
    grep -F "[$1:" <<<"$out" | grep -qF -- "$2" || bad "$1: no violation naming '$2': $out"
}
expect_pass() {
    local out
    out=$(run --only "$1") || bad "$1: $2: the check fails: $out"
}
obj() {  # obj DIR/NAME.c.o SOURCE: compile a planted object into the build copy
    mkdir -p "$(dirname "$B/CMakeFiles/$1")"
    printf '%s\n' "$2" > "$tmp/planted.c"
    local src=${1#*.dir/}  # its source in the tree too (objects without one are stale)
    mkdir -p "$(dirname "$T/${src%.o}")" && cp "$tmp/planted.c" "$T/${src%.o}"
    cc -c -fPIC -o "$B/CMakeFiles/$1" "$tmp/planted.c" || bad "cc $1"
}
lines() { for ((k = 0; k < $1; k++)); do echo "    n += $k;"; done; }

# a. an api/ file over 400 lines
{ echo '/* SPDX-License-Identifier: Apache-2.0 */'; for k in $(seq 400); do echo "/* line $k */"; done; } > "$T/src/api/planted.c"
expect_fail api-lines "src/api/planted.c has 401 lines"
head -400 "$T/src/api/planted.c" > "$tmp/x" && mv "$tmp/x" "$T/src/api/planted.c"
expect_pass api-lines "400 lines"
rm "$T/src/api/planted.c"

# b. an include against the folder order (base includes api), one allowed
printf '#include "base/base.h"\n#include "api/db_int.h"\n' > "$T/src/base/planted.c"
expect_fail include-order "src/base/planted.c (base) includes src/api/db_int.h (api)"
printf '#include "store/store.h"\n#include "text/analyze.h"\n#include "agentmem.h"\n' > "$T/src/recall/planted.c"
rm "$T/src/base/planted.c"
expect_pass include-order "recall includes store and text"
mkdir -p "$T/src/nowhere" && echo 'int x;' > "$T/src/nowhere/planted.c"
expect_fail include-order "src/nowhere has no place"
rm -r "$T/src/nowhere" "$T/src/recall/planted.c"
# the write path's stages: below the driver, perceive | distill < semantic, beside recall
printf '#include "write/write.h"\n' > "$T/src/write/perceive/planted.c"
expect_fail include-order "src/write/perceive/planted.c (write/perceive) includes src/write/write.h (write)"
printf '#include "write/semantic/merge.h"\n' > "$T/src/write/distill/planted.c"
expect_fail include-order "(write/distill) includes src/write/semantic/merge.h (write/semantic)"
printf '#include "write/perceive/perceive.h"\n' > "$T/src/write/distill/planted.c"
expect_fail include-order "(write/distill) includes src/write/perceive/perceive.h (write/perceive)"
printf '#include "recall/pipeline.h"\n' > "$T/src/write/semantic/planted.c"
expect_fail include-order "(write/semantic) includes src/recall/pipeline.h (recall)"
printf '#include "write/distill/rules.h"\n' > "$T/src/recall/planted.c"
expect_fail include-order "(recall) includes src/write/distill/rules.h (write/distill)"
rm "$T/src/write/perceive/planted.c" "$T/src/write/distill/planted.c" "$T/src/write/semantic/planted.c" \
  "$T/src/recall/planted.c"
printf '#include "write/perceive/perceive.h"\n#include "write/distill/rules.h"\n' > "$T/src/write/semantic/planted.c"
printf '#include "write/semantic/merge.h"\n#include "domain/task.h"\n' > "$T/src/write/planted.c"
expect_pass include-order "semantic includes perceive and distill; the driver includes semantic"
rm "$T/src/write/semantic/planted.c" "$T/src/write/planted.c"

# c. a call cycle between folders (base <-> text), then between server files
O=agentmem_obj.dir/src S=agentmem_server.dir/tools/server
obj "$O/base/planted_a.c.o" 'void planted_text(void); void planted_base(void) { planted_text(); }'
obj "$O/text/planted_b.c.o" 'void planted_base(void); void planted_text(void) { planted_base(); }'
expect_fail call-cycle "call cycle between the folders base, text"
rm "$B/CMakeFiles/$O/base/planted_a.c.o"
expect_pass call-cycle "a one-way call (text -> base)"
rm "$B/CMakeFiles/$O/text/planted_b.c.o"
# a stage is a node of its own: the driver calls it, it never calls the driver
obj "$O/write/planted_c.c.o" 'void planted_stage(void); void planted_drive(void) { planted_stage(); }'
obj "$O/write/perceive/planted_d.c.o" 'void planted_stage(void) {}'
expect_pass call-cycle "the driver calls a stage"
obj "$O/write/perceive/planted_d.c.o" 'void planted_drive(void); void planted_stage(void) { planted_drive(); }'
expect_fail call-cycle "call cycle between the folders write, write/perceive"
rm "$B/CMakeFiles/$O/write/planted_c.c.o" "$B/CMakeFiles/$O/write/perceive/planted_d.c.o"
obj "$S/planted_x.c.o" 'void planted_y(void); void planted_x(void) { planted_y(); }'
obj "$S/planted_y.c.o" 'void planted_x(void); void planted_y(void) { planted_x(); }'
expect_fail call-cycle "tools/server/planted_x.c, tools/server/planted_y.c"
rm "$B/CMakeFiles/$S/planted_x.c.o" "$B/CMakeFiles/$S/planted_y.c.o"

# d. a function over 120 lines in src/; 150 is the limit in tools/
{ echo 'int planted_long(int n) {'; lines 119; echo '    return n;'; echo '}'; } > "$T/src/base/planted.c"
expect_fail func-lines "planted_long() has 122 lines (over 120)"
{ echo 'int planted_long(int n) {'; lines 117; echo '    return n;'; echo '}'; } > "$T/src/base/planted.c"
expect_pass func-lines "a 120-line function in src/"
rm "$T/src/base/planted.c"
{ echo 'static const char *s = "{ not a brace";'; echo 'int planted_tool(int n) {'; lines 147
  echo '    /* } not a brace */ return n;'; echo '}'; } > "$T/tools/agentmem/planted.c"
expect_pass func-lines "a 150-line function in tools/"
{ echo 'int planted_tool(int n) {'; lines 149; echo '    return n;'; echo '}'; } > "$T/tools/agentmem/planted.c"
expect_fail func-lines "planted_tool() has 152 lines (over 150)"
rm "$T/tools/agentmem/planted.c"

# e. an exported symbol outside am_* (a small library in place of the real one)
so() { printf '%s\n' "$1" > "$tmp/so.c"; cc -shared -fPIC -o "$tmp/lib.so" "$tmp/so.c" && rm -f "$B/libagentmem.so" && cp "$tmp/lib.so" "$B/libagentmem.so"; }
cp "$base" "$tmp/baseline.keep"
so 'int am_fine(void) { return 0; }'
run --update-baseline --only exports >/dev/null
expect_pass exports "only am_fine exported"
so 'int am_fine(void) { return 0; } int am__inner(void) { return 1; } int leaky(void) { return 2; }'
expect_fail exports "exports am__inner"
expect_fail exports "exports leaky"
rm "$B/libagentmem.so" && ln -s "$BUILD/libagentmem.so" "$B/libagentmem.so" && cp "$tmp/baseline.keep" "$base"

# f. a writable global; constants (also pointer tables, .data.rel.ro) are fine
obj "$O/base/planted_g.c.o" 'int planted_counter; static const int ok_table[] = {1, 2};
static const char *const ok_names[] = {"a", "b"};
const char *planted_name(int i) { return ok_names[i] + ok_table[i]; }'
expect_fail globals "writable global planted_counter"
out=$(run --only globals); grep -q 'ok_table\|ok_names' <<<"$out" && bad "globals: a constant reported: $out"
echo "src/base/planted_g.c:planted_counter  counted by the test" >> "$T/scripts/structure-allow/globals.txt"
expect_pass globals "planted_counter on the allow-list"
echo "planted_other" >> "$T/scripts/structure-allow/globals.txt"
out=$(run --only globals); [ $? = 2 ] && grep -q "has no reason" <<<"$out" || bad "globals: an allow-list line without a reason: $out"
cp "$ROOT/scripts/structure-allow/globals.txt" "$T/scripts/structure-allow/globals.txt"
rm "$B/CMakeFiles/$O/base/planted_g.c.o"
# the object of a source no longer in the tree (a moved file's, left in the
# build tree) is not read
obj "$O/base/planted_s.c.o" 'int planted_stale;'
rm "$T/src/base/planted_s.c"
expect_pass globals "a stale object"

# g. more than 50 store operations, sub-tables counted (a store.h of its own)
G=$tmp/g && mkdir -p "$G/src/store"
store_h() {  # store_h N M: N operations in the vtable, M in a sub-table
    { echo 'typedef struct am__store am__store;'
      echo 'typedef struct am__store_items_vt {'
      for ((k = 0; k < $2; k++)); do echo "    int (*item_op$k)(am__store *s, void (*cb)(void));"; done
      echo '} am__store_items_vt;'
      echo 'typedef struct am__store_vt {'; echo '    const char *name;'
      echo '    const am__store_items_vt *items; /* int (*not_an_op)(void); */'
      for ((k = 0; k < $1; k++)); do echo "    int (*op$k)(am__store *s);"; done
      echo '} am__store_vt;'; } > "$G/src/store/store.h"
}
store_h 40 10
bash "$CHECK" --root "$G" --only store-ops --strict >/dev/null || bad "store-ops: 40 + 10 operations fail"
store_h 40 11
out=$(bash "$CHECK" --root "$G" --only store-ops --strict) && bad "store-ops: 51 pass"
grep -qF "am__store_vt has 51 operations (over 50) [store-ops:" <<<"$out" || bad "store-ops: $out"
# (51 planted: over the limit whatever the real store.h holds)
planted=$(for ((k = 0; k < 51; k++)); do printf '    int (*planted_op%d)(am__store *s);\\n' "$k"; done)
sed -i "s/^} am__store_vt;/${planted}} am__store_vt;/" "$T/src/store/store.h"
expect_fail store-ops "operations (over 50)"
cp "$ROOT/src/store/store.h" "$T/src/store/store.h"

# h. raw malloc/free outside the allocator module; the allocator's calls are fine
printf '%s\n' '#include <stdlib.h>' '#include "base/base.h"' \
    'void *planted_alloc(const am__allocator *a) {' '    void *p = malloc(8);' '    free(p);' \
    '    p = a->realloc(a->ctx, NULL, 8);' '    am__free(a, p);' '    return am__malloc(a, 8);' '}' > "$T/src/recall/planted.c"
expect_fail raw-alloc "planted_alloc() calls malloc() 1 time"
out=$(run --only raw-alloc); grep -q 'calls realloc\|am__free\|am__malloc' <<<"$out" && bad "raw-alloc: the allocator's calls reported: $out"
cp "$T/src/recall/planted.c" "$T/src/base/base.c"
rm "$T/src/recall/planted.c"
expect_pass raw-alloc "raw calls inside the allocator module"
cp "$ROOT/src/base/base.c" "$T/src/base/base.c"
# a block jansson or getline allocated is freed with libc's free; our own are not
printf '%s\n' '#include <stdio.h>' '#include <stdlib.h>' 'typedef struct rd { char *line, *buf; size_t cap; FILE *f; } rd;' \
    'static long planted_read(rd *r) { return getline(&r->line, &r->cap, r->f); }' \
    'void planted_dump(void *v, rd *r) {' '    char *s = v ? json_dumps(v, 0) : NULL;' '    free(s);' \
    '    char *t = planted_copy(v);' '    free(t);' '    free(r->line);' '    free(r->buf);' '}' > "$T/src/recall/planted.c"
expect_fail raw-alloc "planted_dump() calls free() 2 times"
rm "$T/src/recall/planted.c"

# i. an F-tag, an issue or a session note in a comment (not in a string)
printf '%s\n' 'const char *planted_s = "F12 issue 3";' '/* the F12 rule (issue 31) */' '// asked in the 12th session' > "$T/src/text/planted.c"  # notes:ok
expect_fail notes 'comment refers to "F12"'  # notes:ok
expect_fail notes 'comment refers to "issue 31"'  # notes:ok
expect_fail notes 'comment refers to "12th session"'  # notes:ok
out=$(run --only notes); grep -q 'src/text/planted.c:1:' <<<"$out" && bad "notes: a string reported: $out"
rm "$T/src/text/planted.c"

# j. a run of 10 lines copied between the SQLite and PostgreSQL stores
body() { echo "int planted_$1(int *v) {"; for k in $(seq $2); do echo "    v[$k] = v[$((k - 1))] * 3 + $k;"; done; echo '    return 0;'; echo '}'; }
body sq 7 > "$T/src/store/sqlite/planted.c"; body pg 7 > "$T/src/store/postgres/planted.c"
expect_pass store-copy "9 common lines"
body sq 8 > "$T/src/store/sqlite/planted.c"; body pg 8 > "$T/src/store/postgres/planted.c"
expect_fail store-copy "src/store/sqlite/planted.c:planted_sq ~ src/store/postgres/planted.c:planted_pg"
rm "$T/src/store/sqlite/planted.c" "$T/src/store/postgres/planted.c"

# the copy is clean again (every rule); a stale baseline entry fails
out=$(run) || bad "the copy after the plants fails: $out"
echo "api-lines src/api/gone.c" >> "$base"
out=$(run --only api-lines) && bad "a stale baseline entry passes"
grep -q '"api-lines src/api/gone.c" no longer occurs: run scripts/check-structure.sh --update-baseline' <<<"$out" \
    || bad "stale entry message: $out"
# --strict ignores the baseline and counts each rule
out=$(run --strict)
for r in api-lines include-order call-cycle func-lines exports globals store-ops raw-alloc notes store-copy; do
    grep -qE "^check-structure: $r +[0-9]+$" <<<"$out" || bad "--strict: no count for $r"
done
grep -qE '^check-structure: --strict: [0-9]+ violation' <<<"$out" || bad "--strict: no total"

[ $fail = 0 ] && echo "check_structure: ok"
exit $fail
