#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks the understanding corpus (data/understand): every line of every
writer's file is one JSON object with the fields and values LABELS.md
allows; memories are given exactly for the acts that keep something; a
clause is a piece of the turn (or, for a promotion of the previous turn,
of that turn; a withdrawn rule may be named in other words); ids are unique and name their writer and language; no text
is in two splits.  Prints the counts per split, language, act, kind and
task act, and "N passed, N failed".  The files are those splits.tsv
lists: a writer "wNN" is writers/wNN.jsonl (ids "wNN-<lang>-<number>"), a
source "sources/NAME" is sources/NAME.jsonl (ids "<NAME up to its first
'_'>-<lang>-<number>", so one source's files share its ids' numbering);
every .jsonl file in writers/ and sources/ must be listed.  Usage: check.py [DIR]"""
import collections
import json
import os
import sys

ACTS = {"lasting", "fact", "oneoff", "question", "smalltalk", "hypothetical", "reported",
        "complaint", "ref_promote", "ref_withdraw", "invalidation", "correction"}
KEEPS = {"lasting", "correction", "invalidation", "ref_promote"}  # memories required
MAY_KEEP = {"ref_withdraw"}                                       # memories optional
WHOSE = {"self", "spouse", "child", "parent", "sibling", "partner", "friend", "colleague",
         "boss", "team", "company", "pet", "other"}
TASK_ACTS = {"none", "start", "advance", "done", "cancel", "pause", "postpone", "resume"}
TOPICS = {"food", "drink", "health", "fitness", "diet_restrictions", "travel", "transport",
          "schedule", "communication", "reporting_documents", "writing_style", "language",
          "finance", "shopping", "family", "relationships", "work_projects", "career",
          "education", "tools_tech", "home", "pets", "entertainment", "sports", "location",
          "privacy", "other"}
KINDS = {"preference", "constraint", "profile", "habit", "norm"}
FIELDS = {"id", "lang", "prev", "text", "act", "whose", "task_act", "topic", "memories"}


def splits(root):
    """file name (a writer "wNN" or a source "sources/NAME") -> split, from splits.tsv"""
    out = {}
    with open(os.path.join(root, "splits.tsv"), encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                writer, split = line.split("\t")[:2]
                out[writer] = split
    return out


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    bad = []
    split_of = splits(root)
    seen_ids, text_split = set(), {}
    counts = collections.Counter()
    n = 0
    for sub in ("writers", "sources"):
        if os.path.isdir(os.path.join(root, sub)):
            for name in sorted(os.listdir(os.path.join(root, sub))):
                if name.endswith(".jsonl"):
                    key = name[:-6] if sub == "writers" else "%s/%s" % (sub, name[:-6])
                    if key not in split_of:
                        bad.append("%s/%s: the file is in no split (splits.tsv)" % (sub, name))
    for key in sorted(split_of, key=lambda k: ("/" in k, k)):
        split = split_of[key]
        if split not in ("train", "dev", "test") or ("/" in key and split == "test"):
            # the test split is written for it (writers), never taken from a source
            bad.append("splits.tsv: %s: split %r" % (key, split))
            continue
        path = os.path.join(root, key + ".jsonl") if "/" in key else os.path.join(root, "writers", key + ".jsonl")
        name = os.path.relpath(path, root)
        writer = key if "/" not in key else os.path.basename(key).split("_")[0]
        if not os.path.exists(path):
            bad.append("%s: listed in splits.tsv but missing" % name)
            continue
        with open(path, encoding="utf-8") as f:
            for ln, line in enumerate(f, 1):
                where = "%s:%d" % (name, ln)
                n += 1
                try:
                    d = json.loads(line)
                except ValueError as e:
                    bad.append("%s: not JSON (%s)" % (where, e))
                    continue
                missing = FIELDS - {"prev"} - set(d)
                extra = set(d) - FIELDS
                if missing or extra:
                    bad.append("%s: fields missing %s, unknown %s" % (where, sorted(missing), sorted(extra)))
                    continue
                if not d["id"].startswith("%s-%s-" % (writer, d["lang"])) or d["id"] in seen_ids:
                    bad.append("%s: id %s (writer-lang-number, unique)" % (where, d["id"]))
                seen_ids.add(d["id"])
                for field, allowed in (("lang", {"zh", "en"}), ("act", ACTS), ("whose", WHOSE),
                                       ("task_act", TASK_ACTS), ("topic", TOPICS)):
                    if d[field] not in allowed:
                        bad.append("%s: %s %r" % (where, field, d[field]))
                text = d["text"]
                if not isinstance(text, str) or not text.strip():
                    bad.append("%s: empty text" % where)
                    continue
                mems = d["memories"]
                if not isinstance(mems, list):
                    bad.append("%s: memories is not a list" % where)
                    continue
                if d["act"] in KEEPS and not mems:
                    bad.append("%s: act %s without memories" % (where, d["act"]))
                if d["act"] not in KEEPS | MAY_KEEP and mems:
                    bad.append("%s: act %s with memories" % (where, d["act"]))
                for m in mems:
                    if set(m) != {"kind", "attribute", "clause"} or m["kind"] not in KINDS:
                        bad.append("%s: memory %r" % (where, m))
                        continue
                    a = m["attribute"]
                    if not a or not all(c.islower() or c.isdigit() or c == "_" for c in a):
                        bad.append("%s: attribute %r is not snake_case" % (where, a))
                    c = m["clause"].strip()
                    pieces = [text] + ([d["prev"]] if d["act"].startswith("ref_") and d.get("prev") else [])
                    # a withdrawn rule may be named in other words than it was set in;
                    # a promoted one is the previous turn's content, trimmed a little
                    ok = any(c in p for p in pieces)
                    if d["act"] == "ref_promote" and not ok:
                        chars = [ch for ch in c if not ch.isspace()]
                        both = "".join(pieces)
                        ok = bool(chars) and sum(ch in both for ch in chars) >= 0.8 * len(chars)
                    if not c or (d["act"] != "ref_withdraw" and not ok):
                        bad.append("%s: clause %r is not a piece of the turn" % (where, c))
                    counts[(split, d["lang"], "kind", m["kind"])] += 1
                key = " ".join(text.split()).lower()
                if key in text_split and text_split[key] != split:
                    bad.append("%s: the same text is in the %s and %s splits" % (where, text_split[key], split))
                text_split.setdefault(key, split)
                counts[(split, d["lang"], "turns", "")] += 1
                counts[(split, d["lang"], "act", d["act"])] += 1
                counts[(split, d["lang"], "task_act", d["task_act"])] += 1
    for (split, lang, what, value), c in sorted(counts.items()):
        print("%-5s %s %-8s %-14s %5d" % (split, lang, what, value, c))
    for b in bad[:50]:
        print("FAIL: " + b)
    print("%d passed, %d failed" % (n - len(bad) if len(bad) <= n else 0, len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
