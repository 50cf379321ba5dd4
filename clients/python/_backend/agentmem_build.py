# SPDX-License-Identifier: Apache-2.0
"""A PEP 517 / PEP 660 build backend for the agentmem Python package,
standard library only.

The package is the folder agentmem/ (pure Python, no dependency); its
metadata is the [project] table of pyproject.toml.  The backend writes a
py3-none-any wheel (the files, METADATA, WHEEL and RECORD with sha256
digests), an sdist, and an editable wheel whose .pth file points at this
folder.  It exists so that `pip install ./clients/python` works without a
network: pip's isolated build environment needs nothing installed.
"""

import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "agentmem"
# A fixed time for every archive entry: the same sources, the same bytes.
EPOCH = (1980, 1, 1, 0, 0, 0)


def _project():
    """The [project] table of pyproject.toml (tomllib on 3.11+, else the
    flat key = value lines this file uses)."""
    path = os.path.join(ROOT, "pyproject.toml")
    try:
        import tomllib
        with open(path, "rb") as f:
            return tomllib.load(f)["project"]
    except ImportError:
        pass
    table, section = {}, None
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line.startswith("["):
                section = line
                continue
            m = re.match(r'^([A-Za-z-]+)\s*=\s*(.*)$', line)
            if section != "[project]" or not m:
                continue
            key, value = m.group(1), m.group(2)
            inner = re.match(r'^\{\s*text\s*=\s*"(.*)"\s*\}$', value)
            if inner:
                table[key] = {"text": inner.group(1)}
            elif value.startswith('"'):
                table[key] = value.strip('"')
    return table


def _metadata():
    p = _project()
    lines = ["Metadata-Version: 2.1", "Name: " + p["name"], "Version: " + p["version"]]
    if p.get("description"):
        lines.append("Summary: " + p["description"])
    if p.get("license"):
        lines.append("License: " + p["license"]["text"])
    if p.get("requires-python"):
        lines.append("Requires-Python: " + p["requires-python"])
    body = ""
    if p.get("readme"):
        lines.append("Description-Content-Type: text/markdown")
        with open(os.path.join(ROOT, p["readme"]), encoding="utf-8") as f:
            body = "\n" + f.read()
    return p, "\n".join(lines) + "\n" + body


def _package_files():
    """(path inside the wheel, path on disk) of every file of the package,
    caches left out, in a stable order."""
    out = []
    for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, PACKAGE)):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            if name.endswith((".pyc", ".pyo")):
                continue
            disk = os.path.join(dirpath, name)
            out.append((os.path.relpath(disk, ROOT).replace(os.sep, "/"), disk))
    return out


def _dist_info(p):
    return "%s-%s.dist-info" % (p["name"], p["version"])


def _write_wheel(directory, files):
    """files: (name in the wheel, bytes).  Adds the dist-info and RECORD;
    returns the wheel's file name."""
    p, metadata = _metadata()
    info = _dist_info(p)
    files = list(files) + [
        (info + "/METADATA", metadata.encode("utf-8")),
        (info + "/WHEEL", b"Wheel-Version: 1.0\nGenerator: agentmem_build\n"
                          b"Root-Is-Purelib: true\nTag: py3-none-any\n"),
        (info + "/top_level.txt", (PACKAGE + "\n").encode("ascii")),
    ]
    record = []
    name = "%s-%s-py3-none-any.whl" % (p["name"], p["version"])
    with zipfile.ZipFile(os.path.join(directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for arcname, data in files:
            z.writestr(zipfile.ZipInfo(arcname, EPOCH), data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            record.append("%s,sha256=%s,%d" % (arcname, digest.decode("ascii"), len(data)))
        record.append(info + "/RECORD,,")
        z.writestr(zipfile.ZipInfo(info + "/RECORD", EPOCH), "\n".join(record) + "\n")
    return name


def _read(path):
    with open(path, "rb") as f:
        return f.read()


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, [(arc, _read(disk)) for arc, disk in _package_files()])


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    # a .pth line puts this folder on sys.path: edits show without a reinstall
    return _write_wheel(wheel_directory, [("_agentmem_editable.pth", (ROOT + "\n").encode("utf-8"))])


def build_sdist(sdist_directory, config_settings=None):
    p, metadata = _metadata()
    base = "%s-%s" % (p["name"], p["version"])
    name = base + ".tar.gz"
    extra = ["pyproject.toml", "_backend/agentmem_build.py"]
    if p.get("readme"):
        extra.append(p["readme"])
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz", format=tarfile.PAX_FORMAT) as t:
        def add(arcname, data):
            ti = tarfile.TarInfo(base + "/" + arcname)
            ti.size, ti.mode, ti.mtime = len(data), 0o644, 315532800
            t.addfile(ti, io.BytesIO(data))
        add("PKG-INFO", metadata.encode("utf-8"))
        for rel in extra:
            add(rel, _read(os.path.join(ROOT, rel)))
        for arc, disk in _package_files():
            add(arc, _read(disk))
    return name
