#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The licence line of every source file.

    python3 scripts/spdx.py          # list the files without the line (exit 1 if any)
    python3 scripts/spdx.py --add    # add it where it is missing
    python3 scripts/spdx.py --root DIR   # another tree (its files, or a walk)

Source files are the tracked files (git ls-files; without git, a walk of
the tree) whose name ends in one of the suffixes below, plus Makefile,
CMakeLists.txt and .ci/run. The line must be within the first three lines;
--add puts it first, or after a #! line.
"""
import os
import subprocess
import sys

TAG = "SPDX-License-Identifier: Apache-2.0"
STYLES = {
    ".c": "/* %s */", ".h": "/* %s */", ".inc": "/* %s */",
    ".sh": "# %s", ".bash": "# %s", ".py": "# %s", ".cmake": "# %s",
    ".toml": "# %s", ".mjs": "// %s", ".js": "// %s", ".ts": "// %s",
    ".html": "<!-- %s -->",
}
NAMED = {"Makefile": "# %s", "CMakeLists.txt": "# %s", "run": "# %s"}
SKIP_DIRS = ("build/", "models/", "node_modules/", ".git/")


def style_of(path):
    base = os.path.basename(path)
    if base in NAMED and (base != "run" or path == ".ci/run"):
        return NAMED[base]
    return STYLES.get(os.path.splitext(base)[1])


def files(root):
    try:
        out = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True,
                             check=True).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        out = []
    if not out:
        for d, _, names in os.walk(root):
            rel = os.path.relpath(d, root)
            for n in names:
                out.append(os.path.normpath(os.path.join(rel, n)))
    return sorted(p for p in out if not p.startswith(SKIP_DIRS) and "/node_modules/" not in p
                  and style_of(p) and os.path.isfile(os.path.join(root, p)))


def has_tag(text):
    return any(TAG in line for line in text.splitlines()[:3])


def add_tag(text, style):
    line = style % TAG + "\n"
    if text.startswith("#!"):
        nl = text.find("\n") + 1
        return text[:nl] + line + text[nl:]
    return line + text


def main(argv):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if "--root" in argv:
        root = argv[argv.index("--root") + 1]
    add = "--add" in argv
    missing = []
    for p in files(root):
        full = os.path.join(root, p)
        with open(full, encoding="utf-8") as f:
            text = f.read()
        if has_tag(text):
            continue
        missing.append(p)
        if add:
            with open(full, "w", encoding="utf-8") as f:
                f.write(add_tag(text, style_of(p)))
    for p in missing:
        print(("added: " if add else "no licence line: ") + p)
    return 0 if add or not missing else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
