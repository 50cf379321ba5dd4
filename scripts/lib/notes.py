#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Work notes in code: references that only make sense outside the repository.

    python3 scripts/lib/notes.py              # list offending lines (exit 1 if any)
    python3 scripts/lib/notes.py --root DIR   # another tree
    python3 scripts/lib/notes.py FILE...      # only these files (paths as given)

A comment says what the code does and why, in words a reader of the
repository can follow.  Flagged, anywhere on a line of a code file:

  - a design-document tag: "F16", "(F3, F28)", "F8-F10", "DESIGN F9",
    "DESIGN.md", "seed 004 §6";
  - a tracker reference: "issue 17", "issues 13.9 and 14.9";
  - a work-session note: "session 12", "12th session", "twenty-third session",
    "Eleventh session" (ordinals from eighth upward: "a later session" or
    "the first session" is a user's chat session, product vocabulary).

"F1" as a score ("macro-F1", "precision, recall and F1", "F1 score") is not
a tag.  A line that must carry such text on purpose (a test that plants a
note to see a checker reject it) ends with the marker "notes:ok".

Code files are the tracked files (git ls-files; without git, a walk) under
src/, include/, tools/, tests/, fuzz/, scripts/ and clients/ whose name ends
in one of SUFFIXES, or that sit in scripts/ without a suffix (this file and
its test excepted: they quote what they reject).  Other helpers
(scripts/check-structure.sh) can import find() and scan().
"""
import os
import re
import subprocess
import sys

FOLDERS = ("src", "include", "tools", "tests", "fuzz", "scripts", "clients")
SUFFIXES = (".c", ".h", ".inc", ".sh", ".bash", ".py", ".js", ".mjs", ".cjs", ".ts",
            ".jsonl", ".tsv", ".cmake")
SKIP_DIRS = {"node_modules", "build", ".git", "__pycache__"}
SKIP_PREFIXES = ("fuzz/corpus/", "fuzz/dict/")  # inputs, not code
# the rule's own definition and test quote the notes they reject
SELF = ("scripts/lib/notes.py", "tests/sh/code_notes.sh", "scripts/lib/structure.py")
ALLOW = "notes:ok"

_ORDINALS = ("eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|"
             "sixteenth|seventeenth|eighteenth|nineteenth|twentieth|thirtieth|fortieth|"
             "(?:twenty|thirty|forty|fifty)-(?:first|second|third|fourth|fifth|sixth|"
             "seventh|eighth|ninth)")
RULES = (
    ("design tag", re.compile(r"(?<![\w-])F\d{1,2}(?![\w])")),
    ("design tag", re.compile(r"\bDESIGN(?:\.md)?\b")),
    ("design tag", re.compile(r"\bseed \d{3}\b", re.I)),
    ("issue reference", re.compile(r"\bissues? #?\d+", re.I)),
    ("session note", re.compile(r"\bsession #?\d+\b", re.I)),
    ("session note", re.compile(r"\b(?:\d+(?:st|nd|rd|th)|" + _ORDINALS + r") session\b", re.I)),
)
# F1 the score, not a tag
F1_SCORE = re.compile(r"macro-F1|F1 score|\"F1\"|(?<=recall and )F1|(?<=recall, )F1")


def scan_line(line):
    """The kinds of note on one line (empty: none)."""
    if ALLOW in line:
        return []
    text = F1_SCORE.sub("", line)
    return [kind for kind, rx in RULES if rx.search(text)]


def is_code(rel):
    parts = rel.split("/")
    if parts[0] not in FOLDERS or any(p in SKIP_DIRS for p in parts[:-1]) \
            or rel.startswith(SKIP_PREFIXES) or rel in SELF:
        return False
    name = parts[-1]
    if name.endswith(SUFFIXES):
        return True
    return parts[0] == "scripts" and len(parts) == 2 and "." not in name


def find(root):
    """The code files of the tree at root, relative paths, sorted."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "--", *FOLDERS],
                             capture_output=True, text=True, check=True).stdout
        files = [f for f in out.splitlines() if f]
        if not files:
            raise OSError
    except (OSError, subprocess.CalledProcessError):
        files = []
        for top in FOLDERS:
            for d, dirs, names in os.walk(os.path.join(root, top)):
                dirs[:] = [x for x in dirs if x not in SKIP_DIRS]
                for n in names:
                    files.append(os.path.relpath(os.path.join(d, n), root).replace(os.sep, "/"))
    return sorted(f for f in files if is_code(f))


def scan(path, shown=None):
    """(file:line, kinds, text) for every offending line of one file."""
    hits = []
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for no, line in enumerate(fh, 1):
                kinds = scan_line(line)
                if kinds:
                    hits.append(("%s:%d" % (shown or path, no), kinds, line.rstrip("\n")))
    except OSError as e:
        hits.append((shown or path, ["unreadable"], str(e)))
    return hits


def main(argv):
    root = "."
    files = []
    i = 0
    while i < len(argv):
        if argv[i] == "--root" and i + 1 < len(argv):
            root = argv[i + 1]
            i += 2
        elif argv[i] in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        else:
            files.append(argv[i])
            i += 1
    if files:
        todo = [(f, f) for f in files]
    else:
        todo = [(os.path.join(root, f), f) for f in find(root)]
    count = 0
    for path, shown in todo:
        for where, kinds, text in scan(path, shown):
            print("%s: %s: %s" % (where, "/".join(sorted(set(kinds))), text.strip()[:160]))
            count += 1
    if count:
        print("%d line(s) carry work notes (design tags, issue or session references)" % count,
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
