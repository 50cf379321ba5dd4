#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every relative link in README.md, CONTRIBUTING.md, docs/**/*.md and
# clients/*/README.md resolves to a file, and every #anchor into a Markdown
# page to one of its headings (tests/sh/lib/docs_links.py).  Then the check
# itself is checked: a copy of the docs with a planted broken link and a
# planted broken anchor must fail.  $1 (the CLI) is not used.
set -u
cd "$(dirname "$0")/../.."
py=tests/sh/lib/docs_links.py
fail=0
python3 "$py" . || fail=1

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/docs"
cp README.md "$tmp/"
cp -r docs/. "$tmp/docs/"
printf '\nSee [a page](no-such-page.md) and [a heading](internals/testing.md#no-such-heading),\nnot [a heading that is there](internals/testing.md#same-rankings).\n' >>"$tmp/docs/planted.md"
out=$(python3 "$py" "$tmp")
if [ $? -eq 0 ]; then echo "FAIL: a planted broken link passed"; fail=1; fi
case $out in *same-rankings*) echo "FAIL: an anchor that exists was reported:"; echo "$out"; fail=1 ;; esac
for want in 'docs/planted.md:2: no-such-page.md: no such file' 'docs/planted.md:2: internals/testing.md#no-such-heading: no heading'; do
  case $out in *"$want"*) ;; *) echo "FAIL: the planted '$want' was not reported:"; echo "$out"; fail=1 ;; esac
done
[ $fail -eq 0 ] && echo "docs_links: passed" || exit 1
