#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Comments say what the code does and why, in words the repository explains:
# no design-document tags ("F16"), tracker references ("issue 17") or
# work-session notes ("twenty-third session") in code (scripts/lib/notes.py).
# The tree passes; a planted copy with one of each fails, naming file:line.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
fail=0
python3 "$ROOT/scripts/lib/notes.py" --root "$ROOT" || { echo "FAIL: the tree carries work notes (above)"; fail=1; }

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# the notes are assembled here so that this file itself stays clean
F=F; iss=issue; ses=session
mkdir -p "$tmp/src/recall" "$tmp/tests/sh" "$tmp/tools/agentmem" "$tmp/clients/python" "$tmp/docs"
cat >"$tmp/src/recall/ok.c" <<'C'
/* The session's working memory; a later session sees the items.  The
 * kinds' macro-F1 and per label precision, recall and F1 (a score). */
int ok;
C
cat >"$tmp/src/recall/tag.c" <<C
/* rank.c -- scoring.
 *
 * Heat decays (${F}17): base x 0.5^(age/half_life). */
int tag;
C
printf '#!/bin/sh\n# SPDX-License-Identifier: Apache-2.0\n# the bus (%s 17 item 2)\ntrue\n' "$iss" >"$tmp/tests/sh/issue.sh"
printf '/* measured in the twenty-third %s */\nint s;\n' "$ses" >"$tmp/tools/agentmem/sess.c"
printf '# 用户的记忆（%s28、docs/AGENTS.md）\n' "$F" >"$tmp/clients/python/zh.py"
printf '%s17 in a document is not code\n' "$F" >"$tmp/docs/x.md"
printf 'x = "%s17"  # notes:ok\n' "$F" >"$tmp/clients/python/allowed.py"
set +e
out=$(python3 "$ROOT/scripts/lib/notes.py" --root "$tmp" 2>&1); rc=$?
set -e
[ $rc = 1 ] || { echo "FAIL: planted notes gave exit $rc, not 1: $out"; fail=1; }
for want in "src/recall/tag.c:3:" "tests/sh/issue.sh:3:" "tools/agentmem/sess.c:1:" "clients/python/zh.py:1:"; do
    case $out in *"$want"*) ;; *) echo "FAIL: planted note $want not named: $out"; fail=1 ;; esac
done
for not in "ok.c" "docs/x.md" "allowed.py"; do
    case $out in *"$not"*) echo "FAIL: $not reported: $out"; fail=1 ;; esac
done
# the offending line, not only the file: one line per note, four in all
n=$(printf '%s\n' "$out" | grep -c ': design tag\|: issue reference\|: session note' || true)
[ "$n" = 4 ] || { echo "FAIL: expected 4 offending lines, got $n: $out"; fail=1; }
[ $fail = 0 ] && echo "code_notes: ok"
exit $fail
