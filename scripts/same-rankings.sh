#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# same-rankings.sh -- does the working tree rank exactly like a base commit?
#
#   scripts/same-rankings.sh [BASE] [--sample | --full] [--every N] [--keep DIR]
#
# Builds two agentmem CLIs with the same compiler and build type: BASE (a
# commit-ish; default the commit in scripts/rankings-base) in a temporary
# `git worktree add --detach`, and the working tree as it is on disk
# (uncommitted changes included), each in its own temporary build directory
# (only the `agentmem` target; the user's build/ is never touched).  Then it
# runs both on the same inputs, from the repository root, and compares:
#
#   - `agentmem bench DATASET --no-baselines --dump FILE` on the four dev
#     datasets (locomo, realtalk, madial, memdaily; data in $AM_BENCH_DIR or
#     ../shared/bench): every question's ranked documents;
#   - `agentmem scenario run --dump FILE tests/scenarios/*.jsonl` (the
#     working tree's scenario files for both): every recall step's result
#     (block, memories, events and their scores, route, need_memory), and
#     the PASS/FAIL lines.
#
# A base older than `scenario run --dump` gets the working tree's scenario
# runner (tools/agentmem/scenario*.[ch], a client of include/agentmem.h
# only) built against its own library; its benches stay its own.
#
# Sets: default -- locomo, realtalk, madial whole, memdaily --every 6 (the
# usual check of a change); --full -- memdaily whole as well (about
# 9 minutes a build); --sample -- a few conversations of each (CI: well
# under 2 minutes with both builds on 2 cores).  --every N picks memdaily's
# sample.  --keep DIR copies the dumps and logs to DIR.
#
# Exit: 0 identical (or SKIP: the base commit is not in this clone, e.g. a
# shallow one -- the only skip), 1 some set differs (the first differing
# question or step of each is printed), 2 usage or build/run error.
# Without benchmark data only the scenario outputs are compared (said so).
#
# Test hook: AM_SAME_RANKINGS_PERTURB=SPEC passes `--rank SPEC` to the
# working tree's benches (e.g. w_context=0.4), to see a difference caught.
set -u -o pipefail

prog=same-rankings
usage() {
  sed -n '3,/^# Test hook/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'
}
die() { echo "$prog: $*" >&2; exit 2; }

# ---------------------------------------------------------------- options
base_arg='' mode=dev every='' keep=''
while [ $# -gt 0 ]; do
  case $1 in
    -h|--help) usage; exit 0 ;;
    --sample) mode=sample ;;
    --full) mode=full ;;
    --every) [ $# -ge 2 ] || die "--every needs a number"; every=$2; shift ;;
    --every=*) every=${1#--every=} ;;
    --keep) [ $# -ge 2 ] || die "--keep needs a directory"; keep=$2; shift ;;
    --keep=*) keep=${1#--keep=} ;;
    -*) echo "$prog: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) [ -z "$base_arg" ] || die "one BASE only (got $base_arg and $1)"; base_arg=$1 ;;
  esac
  shift
done
case $every in ''|*[!0-9]*|0) [ -z "$every" ] || die "--every wants a positive number, not '$every'" ;; esac
if [ -n "$keep" ]; then
  if ! mkdir -p "$keep" || ! keep=$(cd "$keep" && pwd); then die "--keep: cannot make $keep"; fi
fi

# ---------------------------------------------------------------- where
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) || die "cannot find the script's directory"
if ! root=$(git -C "$script_dir" rev-parse --show-toplevel 2>/dev/null); then
  echo "SKIP: $prog: $script_dir is not in a git checkout, so there is no base commit to build"
  exit 0
fi
cd "$root" || die "cannot cd to $root"

if [ -n "$base_arg" ]; then
  base_ref=$base_arg base_from="given"
else
  [ -r scripts/rankings-base ] || die "no BASE given and no scripts/rankings-base"
  base_ref=$(grep -v '^[[:space:]]*\(#\|$\)' scripts/rankings-base | head -n 1 | tr -d '[:space:]')
  [ -n "$base_ref" ] || die "scripts/rankings-base names no commit"
  base_from="scripts/rankings-base"
fi
if ! base=$(git rev-parse --verify --quiet "$base_ref^{commit}"); then
  if [ "$(git rev-parse --is-shallow-repository 2>/dev/null)" = true ]; then
    echo "SKIP: $prog: base commit $base_ref ($base_from) is not in this shallow clone (git fetch --unshallow to compare)"
    exit 0
  fi
  die "base $base_ref ($base_from) is not a commit of this repository"
fi
base_short=$(git rev-parse --short "$base")
work_desc="$(git rev-parse --short HEAD 2>/dev/null || echo '?')"
[ -z "$(git status --porcelain 2>/dev/null)" ] || work_desc="$work_desc + local changes"

data=${AM_BENCH_DIR:-$root/../shared/bench}
jobs=$(nproc 2>/dev/null || echo 2)
perturb=()
if [ -n "${AM_SAME_RANKINGS_PERTURB:-}" ]; then
  perturb=(--rank "$AM_SAME_RANKINGS_PERTURB")
fi

# ---------------------------------------------------------------- cleanup
tmp=$(mktemp -d "${TMPDIR:-/tmp}/same-rankings.XXXXXX") || die "cannot make a temporary directory"
wt=$tmp/base-src
pids=()
# shellcheck disable=SC2317  # run by the trap
cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  wait 2>/dev/null
  if [ -e "$wt" ] || git worktree list --porcelain | grep -qxF "worktree $wt"; then
    git worktree remove --force "$wt" >/dev/null 2>&1 || { rm -rf "$wt"; git worktree prune; }
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

# ---------------------------------------------------------------- build
secs() { echo $(( $(date +%s) - $1 )); }

# build SRC DIR LABEL: the agentmem target of SRC into DIR (CLI at DIR/agentmem)
build() {
  local src=$1 out=$2 label=$3 t0
  t0=$(date +%s)
  mkdir -p "$out"
  if ! { cmake -S "$src" -B "$out" -DCMAKE_C_COMPILER="${CC:-cc}" \
           -DCMAKE_BUILD_TYPE=RelWithDebInfo -DAM_CLI_DIR="$out" &&
         cmake --build "$out" --target agentmem -j "$jobs"; } >>"$out.log" 2>&1; then
    tail -n 30 "$out.log" >&2
    die "the $label build failed (log above)"
  fi
  # a base older than AM_CLI_DIR writes its CLI into its own source tree
  [ -x "$out/agentmem" ] || ln -sf "$src/build/agentmem" "$out/agentmem"
  [ -x "$out/agentmem" ] || die "the $label build made no agentmem CLI"
  echo "  built $label in $(secs "$t0") s"
}

echo "$prog: base $base_short ($base_from) against the working tree ($work_desc)"
git worktree add --detach "$wt" "$base" >"$tmp/worktree.log" 2>&1 ||
  { cat "$tmp/worktree.log" >&2; die "git worktree add $base failed"; }
build "$wt" "$tmp/base-build" "base $base_short"
build "$root" "$tmp/work-build" "working tree"
base_cli=$tmp/base-build/agentmem
work_cli=$tmp/work-build/agentmem
base_sc_cli=$base_cli

# The base's scenario runner, or the working tree's built against the base.
if ! "$base_cli" scenario run --help 2>/dev/null | grep -q -- '--dump'; then
  [ -f "$wt/tools/agentmem/scenario.c" ] ||
    die "the base has no 'scenario run --dump' and no tools/agentmem/scenario.c to replace"
  cp "$base_cli" "$tmp/agentmem-base" || die "cannot copy the base CLI"
  base_cli=$tmp/agentmem-base
  cp "$root"/tools/agentmem/scenario*.[ch] "$wt/tools/agentmem/" || die "cannot copy the scenario runner"
  if ! cmake --build "$tmp/base-build" --target agentmem -j "$jobs" >>"$tmp/base-build.log" 2>&1; then
    tail -n 30 "$tmp/base-build.log" >&2
    die "the base has no 'scenario run --dump' and the working tree's runner does not build against it: set scripts/rankings-base to a commit that has it"
  fi
  base_sc_cli=$tmp/base-build/agentmem
  echo "  the base has no 'scenario run --dump': its scenarios run with the working tree's runner (tools/agentmem/scenario*.[ch]) on its own library"
fi

# ---------------------------------------------------------------- compare
compared=() differ=() not_compared=() total_lines=0

# pair NAME BASE-CLI WORK-CLI ARGS...: both CLIs side by side (2 cores),
# each with ARGS and --dump $tmp/{base,work}-NAME.jsonl; exit 0/1 allowed
# for `scenario run` (failed expectations), anything else is an error.
pair() {
  local name=$1 bcli=$2 wcli=$3 rb rw; shift 3
  local extra=()
  [ "$1" != bench ] || extra=("${perturb[@]}")
  "$bcli" "$@" --dump "$tmp/base-$name.jsonl" >"$tmp/base-$name.out" 2>"$tmp/base-$name.err" &
  pids=($!)
  "$wcli" "$@" "${extra[@]}" --dump "$tmp/work-$name.jsonl" >"$tmp/work-$name.out" 2>"$tmp/work-$name.err" &
  pids+=($!)
  wait "${pids[0]}"; rb=$?
  wait "${pids[1]}"; rw=$?
  pids=()
  local side rc
  for side in base work; do
    rc=$rb; [ $side = base ] || rc=$rw
    if [ "$rc" -gt 1 ] || { [ "$rc" = 1 ] && [ "$1" = bench ]; } ||
       [ ! -f "$tmp/$side-$name.jsonl" ]; then
      tail -n 20 "$tmp/$side-$name.err" "$tmp/$side-$name.out" >&2
      die "$name: the $side CLI failed (exit $rc): ${*}"
    fi
  done
}

# clip TEXT: at most 200 characters of it (bash counts characters, not bytes)
clip() {
  if [ ${#1} -le 200 ]; then echo "$1"; else echo "${1:0:200}..."; fi
}

# label LINE KIND: the question or step a dump line is about
label() {
  case $2 in
    bench) clip "$(sed -E 's/^\{"id":"(([^"\\]|\\.)*)","category":"(([^"\\]|\\.)*)","question":"(([^"\\]|\\.)*)".*/question \1 (category \3): \5/' <<<"$1")" ;;
    scenario) clip "$(sed -E 's/^\{"file":"(([^"\\]|\\.)*)","line":([0-9]+),"query":"(([^"\\]|\\.)*)".*/step \1:\3, query: \4/' <<<"$1")" ;;
    *) clip "$1" ;;
  esac
}

# ranked LINE: the engine's ranked document keys of a bench dump line
ranked() {
  clip "$(sed -E 's/.*"engine":\{"ranked":\[([^]]*)\].*/\1/' <<<"$1")"
}

# around A B: where two different lines part, 100 characters either side
around() {
  local a=$1 b=$2 lo=0 hi mid
  hi=${#a}; [ ${#b} -ge "$hi" ] || hi=${#b}
  while [ "$lo" -lt "$hi" ]; do  # longest common prefix, by halving
    mid=$(( (lo + hi + 1) / 2 ))
    if [ "${a:0:mid}" = "${b:0:mid}" ]; then lo=$mid; else hi=$((mid - 1)); fi
  done
  local from=$(( lo > 100 ? lo - 100 : 0 ))
  echo "      parts at character $lo:"
  echo "      base: ...${a:from:200}..."
  echo "      work: ...${b:from:200}..."
}

# check NAME DESCRIPTION KIND: compare $tmp/{base,work}-NAME.jsonl
check() {
  local name=$1 what=$2 kind=$3
  local b=$tmp/base-$name.jsonl w=$tmp/work-$name.jsonl nb nw
  nb=$(wc -l <"$b"); nw=$(wc -l <"$w")
  compared+=("$name")
  total_lines=$((total_lines + nb))
  if cmp -s "$b" "$w"; then
    printf '  %-18s identical: %s lines (%s)\n' "$name" "$nb" "$what"
    return
  fi
  differ+=("$name")
  local n lb lw
  n=$(awk -v B="$b" -v W="$w" 'BEGIN { for (n = 1;; n++) {
        rb = (getline lb < B) > 0; rw = (getline lw < W) > 0
        if (!rb && !rw) { print 0; exit }
        if (rb != rw || lb != lw) { print n; exit } } }')
  printf '  %-18s DIFFERENT (%s): base %s lines, work %s lines; first difference at line %s\n' \
    "$name" "$what" "$nb" "$nw" "$n"
  if [ "$n" = 0 ]; then echo "    the lines are the same; only the end of the file differs"; return; fi
  lb=$(sed -n "${n}p" "$b"); lw=$(sed -n "${n}p" "$w")
  if [ -z "$lb" ] || [ -z "$lw" ]; then
    echo "    only the $([ -z "$lb" ] && echo work || echo base) side has line $n: $(label "$lb$lw" "$kind")"
    return
  fi
  echo "    $(label "$lb" "$kind")"
  local rb rw
  if [ "$kind" = bench ]; then
    rb=$(ranked "$lb"); rw=$(ranked "$lw")
    if [ "$rb" != "$rw" ]; then
      echo "      base ranked: $rb"
      echo "      work ranked: $rw"
      return
    fi
  fi
  around "$lb" "$lw"
}

# bench NAME DIR WHAT ARGS...: one dev dataset, when its data is there
bench() {
  local name=$1 dir=$2 what=$3 t0; shift 3
  if [ ! -d "$data/$dir" ]; then
    not_compared+=("$name")
    printf '  %-18s not compared: no data in %s\n' "$name" "$data/$dir"
    return
  fi
  t0=$(date +%s)
  pair "$name" "$base_cli" "$work_cli" bench "$name" --data "$data/$dir" --no-baselines "$@"
  check "$name" "$what, $(secs "$t0") s" bench
}

if [ ! -d "$data" ]; then
  echo "  no benchmark data in $data (\$AM_BENCH_DIR or ../shared/bench): only the scenario outputs are compared"
  not_compared+=("the four benches (no data)")
else
  data=$(cd "$data" && pwd)
  [ ${#perturb[@]} = 0 ] || echo "  AM_SAME_RANKINGS_PERTURB: the working tree's benches run with ${perturb[*]}"
  case $mode in
    sample)
      bench locomo locomo "every 5th conversation" --every 5
      bench realtalk realtalk "every 3rd chat" --every 3
      bench madial madial_bench "every 4th dialogue" --every 4
      bench memdaily memdaily "every ${every:-100}th trajectory" --every "${every:-100}" ;;
    *)
      bench locomo locomo "all dev questions"
      bench realtalk realtalk "all dev questions"
      bench madial madial_bench "all dev questions"
      if [ "$mode" = full ] && [ -z "$every" ]; then
        bench memdaily memdaily "all dev questions"
      else
        bench memdaily memdaily "every ${every:-6}th trajectory" --every "${every:-6}"
      fi ;;
  esac
fi

scenarios=(tests/scenarios/*.jsonl)
[ -f "${scenarios[0]}" ] || die "no scenario files in tests/scenarios"
t0=$(date +%s)
pair scenarios "$base_sc_cli" "$work_cli" scenario run "${scenarios[@]}"
check scenarios "recall steps of ${#scenarios[@]} files, $(secs "$t0") s" scenario
# the PASS/FAIL lines: memories, task and export steps as well
for side in base work; do cp "$tmp/$side-scenarios.out" "$tmp/$side-verdicts.jsonl"; done
check verdicts "PASS/FAIL lines of the scenario run" verdicts

if [ -n "$keep" ]; then
  cp "$tmp"/*.jsonl "$tmp"/*.out "$tmp"/*.err "$tmp"/*.log "$keep"/ 2>/dev/null
  echo "  dumps and logs kept in $keep"
fi

summary="${#compared[@]} sets compared (${compared[*]}), $total_lines base lines"
[ ${#not_compared[@]} = 0 ] || summary="$summary; not compared: ${not_compared[*]}"
if [ ${#differ[@]} = 0 ]; then
  echo "$prog: IDENTICAL -- $summary"
  exit 0
fi
echo "$prog: DIFFERENT in ${differ[*]} -- $summary"
exit 1
