#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The README as a user meets it: at most 150 lines; each block that CI runs
# on the installed package (scripts/readme-check.sh) present, its marker
# right before a fenced block; no link out of the repository but http(s);
# no work notes (F-numbers, "issue N", "session N"). Then the check is
# checked on planted copies.
set -u
cd "$(dirname "$0")/../.."
check() { # $1 README file; prints what is wrong, exit 1 if anything
  python3 - "$1" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
lines = text.split("\n")
if text.endswith("\n"):
    lines = lines[:-1]
bad = []
if len(lines) > 150:
    bad.append("README has %d lines, over 150" % len(lines))
for name in ("install", "quickstart", "mcp", "python", "node", "http", "c"):
    m = re.search(r"<!-- %s -->\n```" % re.escape(name), text)
    if not m:
        bad.append("no <!-- %s --> marker before a fenced block" % name)
for m in re.finditer(r"\]\(([^)]+)\)", text):
    target = m.group(1)
    if target.startswith("../") or "/shared/" in target:
        bad.append("link out of the repository: " + target)
for i, line in enumerate(lines, 1):
    if re.search(r"\bF\d{1,2}\b|\bissue \d+|\bsession \d+|\d+(st|nd|rd|th) session", line):
        bad.append("line %d: a work note: %s" % (i, line.strip()))
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY
}
fail=0
out=$(check README.md) || { echo "FAIL: README.md:"; echo "$out"; fail=1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
planted() { # $1 what, $2 sed expression or "long", $3 expected text
  if [ "$2" = long ]; then { cat README.md; seq 1 150; } >"$tmp/R.md"; else sed "$2" README.md >"$tmp/R.md"; fi
  out=$(check "$tmp/R.md") && { echo "FAIL: planted $1 passed"; fail=1; return; }
  case $out in *"$3"*) ;; *) echo "FAIL: planted $1 not named: $out"; fail=1 ;; esac
}
planted "length" long "over 150"
planted "missing marker" 's/<!-- mcp -->//' "<!-- mcp -->"
planted "outside link" 's|(docs/README.md)|(../shared/DESIGN.md)|' "out of the repository"  # notes:ok
planted "work note" 's|^## Install$|## Install (session 12)|' "work note"  # notes:ok
[ $fail = 0 ] && echo "readme_shape: ok"
exit $fail
