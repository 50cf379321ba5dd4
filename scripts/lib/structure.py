# SPDX-License-Identifier: Apache-2.0
"""The structure checks of scripts/check-structure.sh (docs/internals/structure.md).

Each check is a function that returns violations: a stable key (what the
baseline lists: no line numbers, so an edit elsewhere does not change it), a
place (file:line) and a message naming the rule.  The run fails on a
violation the baseline does not list and on a baseline entry that no longer
occurs (the baseline only shrinks; --update-baseline rewrites it); --strict
ignores the baseline.

Sources are read from --root (default: the repository); the nm/objdump checks
read the objects and the shared library of --build (default: build/cmake).
Python 3 standard library plus binutils (nm, objdump); nothing else.
"""
import argparse
import bisect
import hashlib
import os
import re
import subprocess
import sys

# ---------------------------------------------------------------------------
# The folder order (rule "include-order"; also the nodes of "call-cycle").
# A file of src/ may include headers of its own place or of places to its
# LEFT (a lower rank).  Places with the same rank (write | recall) may not
# include each other.  A folder maps to a place by its longest matching
# prefix, so sub-folders count as their parent (store/sqlite is store,
# text/lexicon is text) unless FOLDERS gives them a place of their own.  A
# folder of src/ that is not in FOLDERS is itself a violation: give it a
# place here.
#
#   rank place      folders (today's and the planned ones)
ORDER = {
    'base': 0,       # allocation, buffers, logging, HTTP client
    'text': 1,       # analysis, entities, lexicons
    'security': 2,   # redaction, PII hashing, vault sealing, token hashing
    'embed': 3,      # embedders behind their vtable
    'store': 4,      # the store seam and its backends
    'index': 5,      # lexical scoring over a store's postings
    'domain': 6,     # tasks, rounds, item versions, heat, forget, outbox
    'write': 7,      # the write pipeline and its stages
    'recall': 7,     # the read pipeline (beside write: neither includes the other)
    'cache': 8,      # the Redis recall cache and working memory
    'lifecycle': 9,  # maintenance passes over written memory (uses cache)
    'api': 10,       # entry points: argument checks, transactions, boxing
}
FOLDERS = {
    'base': 'base',
    'text': 'text',            # text/lexicon with it
    'security': 'security',
    'embed': 'embed',
    'store': 'store',          # store/sqlite, store/postgres with it
    'index': 'index',
    'domain': 'domain',
    'write': 'write',          # the driver: pipeline.c, event.c, statement.c
    'write/perceive': 'write/perceive',  # the stages below it (SUB_ORDER)
    'write/distill': 'write/distill',
    'write/semantic': 'write/semantic',
    'recall': 'recall',
    'lifecycle': 'lifecycle',
    'cache': 'cache',
    'api': 'api',
}
# Places inside a place of ORDER ("write/perceive" is inside "write"): each a
# node of its own for include-order and call-cycle, against every other place
# ranked as its parent (so recall includes no write stage, and no stage
# includes recall), among its siblings ranked here.  The write path's stages
# stand below its driver: a stage includes stages to its left only, never the
# driver's headers (write/*.h) nor a stage to its right; perceive | distill
# stand side by side.
SUB_ORDER = {
    'write/perceive': 0,
    'write/distill': 0,
    'write/semantic': 1,
    'write': 2,
}
# Headers every file may include: the public headers (include/).
PUBLIC_INCLUDE = 'include'

API_MAX_LINES = 400
FUNC_MAX_LINES = {'src': 120, 'tools': 150}
STORE_HEADER = 'src/store/store.h'
STORE_VTABLE = 'am__store_vt'
STORE_MAX_OPS = 50
ALLOCATOR_FILES = {'src/base/base.c', 'src/base/alloc.c'}
RAW_ALLOC = ('malloc', 'calloc', 'realloc', 'free', 'strdup', 'strndup')
COPY_WINDOW = 10
GLOBALS_ALLOW = 'scripts/structure-allow/globals.txt'
BASELINE = 'scripts/structure-baseline.txt'
# Object folders of the build tree (CMake's layout): the library's objects
# and the server's.
LIB_OBJ_DIR = 'CMakeFiles/agentmem_obj.dir'
SERVER_OBJ_DIR = 'CMakeFiles/agentmem_server.dir'
SHARED_LIB = 'libagentmem.so'
# Linker-made names every shared object defines.
LINKER_NAMES = {'_init', '_fini', '_edata', '_end', '__bss_start'}

RULES = {
    'api-lines': 'an api/ file is at most %d lines' % API_MAX_LINES,
    'include-order': 'a file includes only its own folder or folders to its left '
                     '(%s)' % ' < '.join(' | '.join(sorted((p for p in ORDER if ORDER[p] == r),
                                                            reverse=True))
                                         for r in sorted(set(ORDER.values())))
                     + '; inside write: perceive | distill < semantic < the driver',
    'call-cycle': 'no call cycle between folders of src/ or files of tools/server',
    'func-lines': 'a function is at most %d lines in src/, %d in tools/'
                  % (FUNC_MAX_LINES['src'], FUNC_MAX_LINES['tools']),
    'exports': 'the shared library exports only am_* (am__ is internal)',
    'globals': 'no writable global outside ' + GLOBALS_ALLOW,
    'store-ops': 'the store vtable has at most %d operations' % STORE_MAX_OPS,
    'raw-alloc': 'allocation goes through the injected allocator (base/), '
                 'no raw malloc/calloc/realloc/free/strdup',
    'notes': 'no F-tag, "issue N" or session note in code comments '
             '(they belong in commit messages and CHANGELOG.md)',
    'store-copy': 'no run of %d similar lines between store/sqlite and store/postgres'
                  % COPY_WINDOW,
}


class V:
    """One violation: rule, stable baseline key, place, message."""

    def __init__(self, rule, key, where, what):
        self.rule, self.key, self.where, self.what = rule, rule + ' ' + key, where, what

    def text(self):
        return '%s: %s [%s: %s]' % (self.where, self.what, self.rule, RULES[self.rule])


class CheckError(Exception):
    pass


# ---------------------------------------------------------------------------
# Sources

def read(root, rel):
    with open(os.path.join(root, rel), encoding='utf-8', errors='replace') as f:
        return f.read()


def files(root, top, exts):
    out = []
    base = os.path.join(root, top)
    for d, subdirs, names in os.walk(base):
        subdirs.sort()
        for n in sorted(names):
            if n.endswith(exts):
                out.append(os.path.relpath(os.path.join(d, n), root))
    return out


TOKEN = re.compile(r'/\*.*?(?:\*/|\Z)|//[^\n]*|"(?:\\.|[^"\\\n])*"?'
                   r"|'(?:\\.|[^'\\\n])*'?", re.S)
_STRIP_CACHE = {}


def strip_c(src, keep_strings=False):
    """(code, comments): code with comments (and string contents unless
    keep_strings) blanked, newlines kept; comments as (line, text)."""
    hit = _STRIP_CACHE.get((src, keep_strings))
    if hit is not None:
        return hit
    comments = []
    pos = [0, 1]  # the offset counted up to, its line

    def blank(m):
        t = m.group(0)
        if t[0] == '/':
            pos[1] += src.count('\n', pos[0], m.start())
            pos[0] = m.start()
            comments.append((pos[1], t))
            return re.sub(r'[^\n]', ' ', t)
        if keep_strings or len(t) < 2:
            return t
        q = t[0]
        return q + re.sub(r'[^\n]', ' ', t[1:-1]) + t[-1]
    out = (TOKEN.sub(blank, src), comments)
    _STRIP_CACHE[(src, keep_strings)] = out
    return out


def blank_preprocessor(code):
    """Preprocessor lines (with their continuations) blanked."""
    lines = code.split('\n')
    cont = False
    for k, ln in enumerate(lines):
        if cont or ln.lstrip().startswith('#'):
            cont = ln.rstrip().endswith('\\')
            lines[k] = ''
    return '\n'.join(lines)


FUNC_NAME = re.compile(r'([A-Za-z_]\w*)\s*$')


def functions(src):
    """[(name, first_line, last_line)] of the function definitions of a C
    file: a top-level brace block whose header ends with a parameter list."""
    code = blank_preprocessor(strip_c(src)[0])
    nl = [k for k, ch in enumerate(code) if ch == '\n']

    def line_of(off):
        return bisect.bisect_left(nl, off) + 1
    out = []
    depth, head_start, current = 0, 0, None
    for m in re.finditer(r'[{};]', code):
        c, i = m.group(0), m.start()
        if c == '{':
            if depth == 0:
                current = None
                head = code[head_start:i]
                h = head.rstrip()
                if h.endswith(')'):
                    # the parameter list: the last balanced (...) of the head
                    d, k = 0, len(h) - 1
                    while k >= 0:
                        if h[k] == ')':
                            d += 1
                        elif h[k] == '(':
                            d -= 1
                            if d == 0:
                                break
                        k -= 1
                    f = FUNC_NAME.search(h[:k]) if k > 0 else None
                    if f and f.group(1) not in ('if', 'while', 'for', 'switch', 'return',
                                                'sizeof'):
                        current = (f.group(1),
                                   line_of(head_start + len(head) - len(head.lstrip())))
            depth += 1
        elif c == '}':
            depth -= 1
            if depth == 0:
                if current:
                    out.append((current[0], current[1], line_of(i)))
                current = None
                head_start = i + 1
        elif depth == 0:
            head_start = i + 1
    return out


def function_at(funcs, line):
    for name, a, b in funcs:
        if a <= line <= b:
            return name
    return None


# ---------------------------------------------------------------------------
# a. api-lines

def check_api_lines(root, _build):
    out = []
    for rel in files(root, 'src/api', ('.c',)):
        n = read(root, rel).count('\n')
        if n > API_MAX_LINES:
            out.append(V('api-lines', rel, '%s:%d' % (rel, n),
                         '%s has %d lines (over %d)' % (rel, n, API_MAX_LINES)))
    return out


# ---------------------------------------------------------------------------
# b. include-order

def top_place(place):
    """The place of ORDER a place is (inside), or None."""
    top = place.split('/')[0]
    return top if top in ORDER else None


def left_of(them, me):
    """Place them is to the left of place me (me may include them)."""
    a, b = top_place(them), top_place(me)
    if a != b:
        return ORDER[a] < ORDER[b]
    return SUB_ORDER.get(them, 0) < SUB_ORDER.get(me, 0)


def place_of(folder):
    """The place of a folder of src/ (path below src/), or None."""
    parts = folder.split('/')
    for k in range(len(parts), 0, -1):
        p = '/'.join(parts[:k])
        if p in FOLDERS:
            return FOLDERS[p]
    return None


INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def resolve_include(root, rel, name):
    """The repository path an #include "name" of file rel means, or None
    (a system header)."""
    for base in (os.path.dirname(rel), 'src', PUBLIC_INCLUDE):
        p = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(os.path.join(root, p)):
            return p
    return None


def check_include_order(root, _build):
    out = []
    seen_unplaced = set()
    for rel in files(root, 'src', ('.c', '.h')):
        folder = os.path.dirname(rel)[len('src/'):]
        me = place_of(folder)
        if me is None:
            if folder not in seen_unplaced:
                seen_unplaced.add(folder)
                out.append(V('include-order', 'unplaced src/' + folder, rel + ':1',
                             'folder src/%s has no place in the folder order '
                             '(FOLDERS in scripts/lib/structure.py)' % folder))
            continue
        text = read(root, rel)
        for m in INCLUDE.finditer(text):
            target = resolve_include(root, rel, m.group(1))
            if target is None or not target.startswith('src/'):
                continue  # system or public header
            them = place_of(os.path.dirname(target)[len('src/'):])
            if them is None or them == me:
                continue
            if left_of(them, me):
                continue
            line = text.count('\n', 0, m.start()) + 1
            out.append(V('include-order', '%s -> %s' % (rel, target), '%s:%d' % (rel, line),
                         '%s (%s) includes %s (%s), which is not to its left'
                         % (rel, me, target, them)))
    return out


# ---------------------------------------------------------------------------
# c. call-cycle (from the build tree's objects)

def run(cmd):
    try:
        return subprocess.run(cmd, check=True, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True).stdout
    except FileNotFoundError:
        raise CheckError('%s is not installed (binutils)' % cmd[0])
    except subprocess.CalledProcessError as e:
        raise CheckError('%s failed: %s' % (' '.join(cmd), e.stderr.strip()))


def objects(build, objdir, top, root=None):
    """{repository path of the source: object path} under build/objdir/top;
    with root, only objects whose source is still there (a build tree keeps
    the objects of files moved or deleted since)."""
    base = os.path.join(build, objdir)
    out = {}
    for d, subdirs, names in os.walk(os.path.join(base, top), followlinks=True):
        subdirs.sort()
        for n in sorted(names):
            if n.endswith('.o'):
                p = os.path.join(d, n)
                src = os.path.relpath(p, base)[:-2]
                if root is None or os.path.exists(os.path.join(root, src)):
                    out[src] = p
    if not out:
        raise CheckError('no objects under %s: build first (make)' % os.path.join(base, top))
    return out


def symbols(objs):
    """(defined: {symbol: source}, uses: {source: set of undefined symbols})."""
    defined, uses = {}, {}
    src_of = {path: src for src, path in objs.items()}
    for src in objs:
        uses[src] = set()
    # one nm for all (-A: each line starts with "file: ")
    for ln in run(['nm', '-A'] + sorted(src_of)).splitlines():
        cut = ln.find('.o:')
        path, rest = ln[:cut + 2], ln[cut + 3:]
        src = src_of.get(path)
        f = rest.split()
        if src is None:
            continue
        if len(f) == 2 and f[0] == 'U':
            uses[src].add(f[1])
        elif len(f) == 3 and f[1] in 'TDBRVWGSC':
            defined.setdefault(f[2], src)
    return defined, uses


def sccs(nodes, edges):
    """Strongly connected components (Tarjan, iterative) with more than one node."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def cycle_report(kind, node_of, defined, uses):
    edges, why = {}, {}
    for src, syms in uses.items():
        a = node_of(src)
        for s in sorted(syms):
            if s in defined:
                b = node_of(defined[s])
                if a != b:
                    edges.setdefault(a, set()).add(b)
                    why.setdefault((a, b), (src, s, defined[s]))
    nodes = set(edges) | {b for bs in edges.values() for b in bs}
    out = []
    for comp in sccs(nodes, edges):
        inside = ['%s -> %s (%s calls %s of %s)' % (a, b, *why[(a, b)])
                  for a in comp for b in sorted(edges.get(a, ())) if b in comp
                  and (not top_place(a) or not top_place(b) or not left_of(b, a))]
        first = why[next((a, b) for a in comp for b in sorted(edges.get(a, ())) if b in comp)][0]
        out.append(V('call-cycle', '%s %s' % (kind, ' '.join(comp)), first + ':1',
                     'call cycle between the %ss %s; %s: %s'
                     % (kind, ', '.join(comp), 'the calls' if kind == 'file' else
                        'the calls against the folder order', '; '.join(inside))))
    return out


def check_call_cycle(root, build):
    lib = objects(build, LIB_OBJ_DIR, 'src', root)
    d, u = symbols(lib)
    out = cycle_report('folder', lambda s: place_of(os.path.dirname(s)[len('src/'):]) or
                       os.path.dirname(s), d, u)
    srv = objects(build, SERVER_OBJ_DIR, 'tools/server', root)
    d, u = symbols(srv)
    out += cycle_report('file', lambda s: s, d, u)
    return out


# ---------------------------------------------------------------------------
# d. func-lines

def check_func_lines(root, _build):
    out = []
    for top, limit in sorted(FUNC_MAX_LINES.items()):
        for rel in files(root, top, ('.c', '.h')):
            for name, a, b in functions(read(root, rel)):
                n = b - a + 1
                if n > limit:
                    out.append(V('func-lines', '%s:%s' % (rel, name), '%s:%d' % (rel, a),
                                 '%s() has %d lines (over %d)' % (name, n, limit)))
    return out


# ---------------------------------------------------------------------------
# e. exports

def check_exports(_root, build):
    so = os.path.join(build, SHARED_LIB)
    if not os.path.exists(so):
        raise CheckError('no %s: build first (make)' % so)
    out = []
    for ln in run(['nm', '-D', '--defined-only', so]).splitlines():
        f = ln.split()
        if len(f) < 3:
            continue
        name = f[2].split('@')[0]
        if name in LINKER_NAMES:
            continue
        if not name.startswith('am_') or name.startswith('am__'):
            out.append(V('exports', name, SHARED_LIB,
                         '%s exports %s' % (SHARED_LIB, name)))
    return out


# ---------------------------------------------------------------------------
# f. globals

def writable(section):
    if section in ('*COM*', '.tbss', '.tdata') or section.startswith(('.bss', '.tbss.', '.tdata.')):
        return True
    return section.startswith('.data') and not section.startswith('.data.rel.ro')


def load_allow(root):
    allow = set()
    path = os.path.join(root, GLOBALS_ALLOW)
    if not os.path.exists(path):
        return allow
    with open(path, encoding='utf-8') as f:
        for k, ln in enumerate(f, 1):
            ln = ln.strip()
            if not ln or ln.startswith('#'):
                continue
            parts = ln.split(None, 1)
            if len(parts) < 2:
                raise CheckError('%s:%d: "%s" has no reason (a symbol, then why it may be '
                                 'a writable global)' % (GLOBALS_ALLOW, k, ln))
            allow.add(parts[0])
    return allow


def check_globals(root, build):
    allow = load_allow(root)
    out = []
    objs = objects(build, LIB_OBJ_DIR, 'src', root)
    src_of = {path: src for src, path in objs.items()}
    src = None
    # one objdump for all: each file's table after a "path:     file format" line
    for ln in run(['objdump', '-t'] + sorted(src_of)).splitlines():
        if ':     file format' in ln:
            src = src_of.get(ln.split(':     file format')[0])
            continue
        if src is None:
            continue
        if True:
            m = re.match(r'^[0-9a-f]+\s+([lgw! ]).{5}O\s+(\S+)\s+[0-9a-f]+\s+(\S+)$', ln)
            if not m or not writable(m.group(2)):
                continue
            name = re.sub(r'\.\d+$', '', m.group(3))
            # the compiler's own: sanitizer type descriptors and metadata
            # (clang -fsanitize: __unnamed_N, __asan_*, __ubsan_*, ...)
            if name.startswith(('__unnamed_', '__asan', '__odr_asan', '__ubsan',
                                '__sancov', '__llvm')):
                continue
            # clang names a function's static local fn.var, gcc var.N
            name = name.rsplit('.', 1)[-1] if '.' in name else name
            if name in allow or '%s:%s' % (src, name) in allow:
                continue
            out.append(V('globals', '%s:%s' % (src, name), src + ':1',
                         'writable global %s (%s, %s)' % (name, m.group(2),
                                                          'static' if m.group(1) == 'l'
                                                          else 'extern')))
    return out


# ---------------------------------------------------------------------------
# g. store-ops

def struct_body(code, name):
    """The member text of `typedef struct name {...} name;` or `struct name {...}`."""
    m = re.search(r'\bstruct\s+%s\s*\{' % re.escape(name), code)
    if not m:
        return None
    d, i = 1, m.end()
    while i < len(code) and d:
        d += {'{': 1, '}': -1}.get(code[i], 0)
        i += 1
    return code[m.end():i - 1]


def count_ops(code, name, seen):
    body = struct_body(code, name)
    if body is None or name in seen:
        return 0
    seen.add(name)
    # a member whose declarator is (*name)(...): an operation (a callback
    # among its parameters is not one)
    n = sum(1 for decl in body.split(';')
            if re.match(r'[^()]*\(\s*\*\s*\w+\s*\)\s*\(', decl))
    # sub-tables: members of a struct type of the same header (by value or pointer)
    for t in re.findall(r'(?:struct\s+)?\b(\w+)\s*\*?\s*\w+\s*;', body):
        if t != name and struct_body(code, t) is not None:
            n += count_ops(code, t, seen)
        elif t.endswith('_vt') or t.endswith('_ops'):
            # a typedef name: find its struct tag
            m = re.search(r'typedef\s+struct\s+(\w+)\s*(?:\{[^;]*?\})?\s*%s\s*;' % t, code)
            if m:
                n += count_ops(code, m.group(1), seen)
    return n


def check_store_ops(root, _build):
    code = strip_c(read(root, STORE_HEADER))[0]
    if struct_body(code, STORE_VTABLE) is None:
        raise CheckError('%s: no struct %s' % (STORE_HEADER, STORE_VTABLE))
    n = count_ops(code, STORE_VTABLE, set())
    if n > STORE_MAX_OPS:
        return [V('store-ops', str(n), STORE_HEADER + ':1',
                  '%s has %d operations (over %d)' % (STORE_VTABLE, n, STORE_MAX_OPS))]
    return []


# ---------------------------------------------------------------------------
# h. raw-alloc

RAW_CALL = re.compile(r'(?<![\w.>])(%s)\s*\(' % '|'.join(RAW_ALLOC))
# Blocks a third-party library allocates with libc's malloc and documents
# to be released with libc's free -- not ours to route: jansson's
# json_dumps (we install no json_set_alloc_funcs), realpath(p, NULL),
# utf8proc_map's result and getline's buffer.  free(X) passes only when X
# is such a block: assigned from json_dumps / realpath in the same
# statement, or &X handed to utf8proc_map / getline -- in the same function
# (a struct member, X->f: anywhere in the file).  Every other free is ours.
THIRD_PARTY_ASSIGN = ('json_dumps', 'realpath')
THIRD_PARTY_OUT = ('utf8proc_map', 'getline')
FREE_ARG = re.compile(r'\s*([A-Za-z_]\w*(?:\s*->\s*[A-Za-z_]\w*)*)\s*\)')


def third_party_block(code, arg):
    """Does code hand arg a block of a THIRD_PARTY_* call?"""
    x = r'\s*->\s*'.join(re.escape(p.strip()) for p in arg.split('->'))
    assign = r'(?<![\w>.])%s\s*=(?!=)[^;]*?\b(?:%s)\s*\(' % (x, '|'.join(THIRD_PARTY_ASSIGN))
    out = r'\b(?:%s)\s*\([^;]*&\s*%s(?![\w-])' % ('|'.join(THIRD_PARTY_OUT), x)
    return re.search(assign, code) is not None or re.search(out, code) is not None


def check_raw_alloc(root, _build):
    out = []
    for rel in files(root, 'src', ('.c', '.h')):
        if rel in ALLOCATOR_FILES:
            continue
        src = read(root, rel)
        code = blank_preprocessor(strip_c(src)[0])
        counts, first = {}, {}
        funcs = None
        lines = None
        for m in RAW_CALL.finditer(code):
            if funcs is None:
                funcs = functions(src)
                lines = code.split('\n')
            line = code.count('\n', 0, m.start()) + 1
            fn = function_at(funcs, line)
            a = FREE_ARG.match(code, m.end()) if m.group(1) == 'free' else None
            if a:
                arg = a.group(1)
                if '->' in arg:
                    scope = code
                else:
                    f = [(b, e) for n, b, e in funcs if n == fn and b <= line <= e]
                    scope = '\n'.join(lines[f[0][0] - 1:f[0][1]]) if f else ''
                if third_party_block(scope, arg):
                    continue
            k = (fn or '(file scope)', m.group(1))
            counts[k] = counts.get(k, 0) + 1
            first.setdefault(k, line)
        for (fn, call), c in sorted(counts.items()):
            out.append(V('raw-alloc', '%s:%s:%s x%d' % (rel, fn, call, c),
                         '%s:%d' % (rel, first[(fn, call)]),
                         '%s() calls %s() %d time%s' % (fn, call, c, '' if c == 1 else 's')))
    return out


# ---------------------------------------------------------------------------
# i. notes

NOTE = re.compile(r'\bF\d+[a-z]?\b|\bissues?\s*#?\d+|\bsessions?\s+#?\d+'
                  r'|\b\d+(?:st|nd|rd|th)\s+session\b|\b(?:first|second|third|fourth|fifth|'
                  r'sixth|seventh|eighth|ninth|tenth)\s+session\b', re.I)
NOTE_F = re.compile(r'\bF\d+[a-z]?\b')
# F1 the score (precision, recall and F1; macro-F1), not a tag
F1_SCORE = re.compile(r'macro-F1|F1 score|"F1"|(?<=recall and )F1|(?<=recall, )F1')


def note_hits(text):
    """The note references in a comment: F-tags (upper-case F only) and
    issue / session numbers."""
    hits = []
    text = F1_SCORE.sub('', text)
    for m in NOTE.finditer(text):
        s = m.group(0)
        if s[0] in 'fF' and s[1:2].isdigit() and not NOTE_F.fullmatch(s):
            continue
        hits.append(s)
    return hits


def check_notes(root, _build):
    out = []
    for top in ('src', 'tools', 'include', 'tests', 'fuzz'):
        for rel in files(root, top, ('.c', '.h', '.inc')):
            per = {}
            first = {}
            for line, text in strip_c(read(root, rel))[1]:
                for k, ln in enumerate(text.split('\n')):
                    for h in note_hits(ln):
                        per[h] = per.get(h, 0) + 1
                        first.setdefault(h, line + k)
            for h, c in sorted(per.items()):
                out.append(V('notes', '%s:%s' % (rel, h), '%s:%d' % (rel, first[h]),
                             'comment refers to "%s"%s' % (h, '' if c == 1 else ' (%d times)' % c)))
    return out


# ---------------------------------------------------------------------------
# j. store-copy

def norm_lines(src):
    """[(line, normalized text)] of the non-blank code lines: comments gone,
    whitespace removed, names and strings kept."""
    code = strip_c(src, keep_strings=True)[0]
    out = []
    for k, ln in enumerate(code.split('\n'), 1):
        t = re.sub(r'\s+', '', ln)
        if t:
            out.append((k, t))
    return out


def windows(lines):
    out = {}
    for k in range(len(lines) - COPY_WINDOW + 1):
        h = hashlib.sha1('\n'.join(t for _, t in lines[k:k + COPY_WINDOW]).encode()).digest()
        out.setdefault(h, []).append(k)
    return out


def check_store_copy(root, _build):
    side = {}
    for b in ('sqlite', 'postgres'):
        side[b] = {}
        for rel in files(root, 'src/store/' + b, ('.c', '.h')):
            src = read(root, rel)
            ls = norm_lines(src)
            side[b][rel] = (ls, windows(ls), functions(src))
    found = {}
    for ra, (la, wa, fa) in sorted(side['sqlite'].items()):
        for rb, (lb, wb, fb) in sorted(side['postgres'].items()):
            pairs = sorted((i, j) for h, is_ in wa.items() if h in wb for i in is_ for j in wb[h])
            covered = set()
            for i, j in pairs:
                if (i, j) in covered:
                    continue
                n = 0  # extend the run
                while (i + n < len(la) and j + n < len(lb) and la[i + n][1] == lb[j + n][1]):
                    covered.add((i + n, j + n))
                    n += 1
                a_line, b_line = la[i][0], lb[j][0]
                fa_name = function_at(fa, a_line) or '(file scope)'
                fb_name = function_at(fb, b_line) or '(file scope)'
                key = '%s:%s ~ %s:%s' % (ra, fa_name, rb, fb_name)
                prev = found.get(key)
                if prev is None or n > prev[0]:
                    found[key] = (n, '%s:%d' % (ra, a_line), '%s:%d' % (rb, b_line))
    return [V('store-copy', key, a,
              '%d similar lines here and at %s (%s)' % (n, b, key))
            for key, (n, a, b) in sorted(found.items())]


# ---------------------------------------------------------------------------

CHECKS = [
    ('api-lines', check_api_lines),
    ('include-order', check_include_order),
    ('call-cycle', check_call_cycle),
    ('func-lines', check_func_lines),
    ('exports', check_exports),
    ('globals', check_globals),
    ('store-ops', check_store_ops),
    ('raw-alloc', check_raw_alloc),
    ('notes', check_notes),
    ('store-copy', check_store_copy),
]


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(prog='check-structure.sh', description=__doc__.split('\n')[0])
    ap.add_argument('--root', default=os.path.dirname(os.path.dirname(here)),
                    help='the source tree (default: this repository)')
    ap.add_argument('--build', help='the CMake build tree (default: ROOT/build/cmake)')
    ap.add_argument('--baseline', help='the baseline file (default: ROOT/%s)' % BASELINE)
    ap.add_argument('--strict', action='store_true', help='ignore the baseline')
    ap.add_argument('--update-baseline', action='store_true',
                    help='write today\'s violations as the baseline')
    ap.add_argument('--only', action='append', choices=[c for c, _ in CHECKS],
                    help='run only this check (repeatable)')
    a = ap.parse_args(argv)
    root = os.path.abspath(a.root)
    build = os.path.abspath(a.build or os.path.join(root, 'build', 'cmake'))
    baseline_path = a.baseline or os.path.join(root, BASELINE)

    found = []
    try:
        for name, fn in CHECKS:
            if not a.only or name in a.only:
                found += fn(root, build)
    except CheckError as e:
        print('check-structure: %s' % e, file=sys.stderr)
        return 2
    keys = {}
    for v in found:
        keys.setdefault(v.key, v)

    if a.update_baseline:
        if a.only and os.path.exists(baseline_path):
            # only the entries of the rules run are rewritten
            with open(baseline_path, encoding='utf-8') as f:
                for ln in f:
                    k = ln.rstrip('\n')
                    if k and not k.startswith('#') and k.split(' ', 1)[0] not in a.only:
                        keys.setdefault(k, None)
        with open(baseline_path, 'w', encoding='utf-8') as f:
            f.write('# SPDX-License-Identifier: Apache-2.0\n')
            f.write('# Known structure violations (scripts/check-structure.sh); this list only\n'
                    '# shrinks: fix one, then run scripts/check-structure.sh --update-baseline.\n')
            for k in sorted(keys):
                f.write(k + '\n')
        print('check-structure: baseline written: %d entries (%s)' % (len(keys), baseline_path))
        return 0

    per_rule = {}
    for k, v in keys.items():
        per_rule[v.rule] = per_rule.get(v.rule, 0) + 1
    if a.strict:
        for k in sorted(keys):
            print(keys[k].text())
        for name, _ in CHECKS:
            if not a.only or name in a.only:
                print('check-structure: %-13s %d' % (name, per_rule.get(name, 0)))
        print('check-structure: --strict: %d violation%s' % (len(keys), '' if len(keys) == 1
                                                               else 's'))
        return 1 if keys else 0

    base = set()
    if os.path.exists(baseline_path):
        with open(baseline_path, encoding='utf-8') as f:
            base = {ln.rstrip('\n') for ln in f if ln.strip() and not ln.startswith('#')}
    if a.only:
        base = {k for k in base if k.split(' ', 1)[0] in a.only}
    new = sorted(k for k in keys if k not in base)
    stale = sorted(k for k in base if k not in keys)
    for k in new:
        print(keys[k].text())
    for k in stale:
        print('%s: baseline entry "%s" no longer occurs: run scripts/check-structure.sh '
              '--update-baseline to shrink the baseline' % (os.path.relpath(baseline_path, root), k))
    if new or stale:
        print('check-structure: %d new violation%s, %d stale baseline entr%s'
              % (len(new), '' if len(new) == 1 else 's', len(stale),
                 'y' if len(stale) == 1 else 'ies'))
        return 1
    print('check-structure: ok (%d known violations in the baseline; --strict shows them)'
          % len(keys))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
