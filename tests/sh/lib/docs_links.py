#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Every relative link of the user-facing Markdown resolves.

usage: docs_links.py [ROOT]   (default: the current directory)

Pages: README.md, CONTRIBUTING.md, docs/**/*.md, clients/*/README.md.
A link is [text](target) or ![alt](target), outside fenced code blocks and
inline code.  http(s):// and mailto: targets are not checked.  A target
must name an existing file or folder relative to the page; a #anchor into
a .md page (or the page itself) must name one of its headings, by GitHub's
slug rules: lower case, punctuation other than - and _ dropped, spaces to
-, a repeated slug numbered -1, -2, ...
Prints one line per broken link (page:line: target: why); exit 1 if any.
"""
import os, re, sys, glob
from urllib.parse import unquote

root = sys.argv[1] if len(sys.argv) > 1 else "."
pages = [p for p in ["README.md", "CONTRIBUTING.md"] if os.path.exists(os.path.join(root, p))]
pages += sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "docs", "**", "*.md"), recursive=True))
pages += sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "clients", "*", "README.md")))

FENCE = re.compile(r"^\s*(```|~~~)")
LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")

def slug(heading):
    s = heading.strip().lower()
    s = re.sub(r"<[^>]+>", "", s)              # inline html
    s = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", s)  # a link's text
    s = re.sub(r"[^\w\- ]", "", s, flags=re.UNICODE)
    return s.replace(" ", "-")

anchors_cache = {}
def anchors(path):
    if path in anchors_cache:
        return anchors_cache[path]
    seen, out, fenced = {}, set(), False
    for line in open(path, encoding="utf-8"):
        if FENCE.match(line):
            fenced = not fenced
            continue
        m = None if fenced else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            base = slug(m.group(1))
            n = seen.get(base, 0)
            out.add(base if n == 0 else "%s-%d" % (base, n))
            seen[base] = n + 1
    anchors_cache[path] = out
    return out

broken, checked = [], 0
for page in pages:
    full = os.path.join(root, page)
    fenced = False
    for no, line in enumerate(open(full, encoding="utf-8"), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        line = re.sub(r"`[^`]*`", "", line)
        for m in LINK.finditer(line):
            target = m.group(1)
            if re.match(r"^(https?:|mailto:)", target, re.I):
                continue
            checked += 1
            path, _, frag = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(full), unquote(path))) if path else full
            if not os.path.exists(dest):
                broken.append("%s:%d: %s: no such file" % (page, no, target))
                continue
            if frag and dest.endswith(".md") and frag.lower() not in anchors(dest):
                broken.append("%s:%d: %s: no heading with the anchor #%s" % (page, no, target, frag))

for b in broken:
    print("docs_links: " + b)
print("docs_links: %d pages, %d relative links, %d broken" % (len(pages), checked, len(broken)))
sys.exit(1 if broken else 0)
