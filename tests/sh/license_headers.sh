#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The licence: LICENSE and NOTICE at the root, and every source file with
# its SPDX line (scripts/spdx.py); a file without one is found.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
fail=0
grep -q "Apache License" "$ROOT/LICENSE" && grep -q "Version 2.0, January 2004" "$ROOT/LICENSE" \
    || { echo "LICENSE is not the Apache License 2.0"; fail=1; }
grep -qi "apache" "$ROOT/NOTICE" || { echo "NOTICE does not name the licence"; fail=1; }
python3 "$ROOT/scripts/spdx.py" || { echo "source files without the SPDX line (above)"; fail=1; }
# the checker itself finds a file without the line, and --add fixes it
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src" "$tmp/scripts"
printf '/* SPDX-License-Identifier: Apache-2.0 */\nint a;\n' > "$tmp/src/ok.c"
printf 'int b;\n' > "$tmp/src/bad.c"
printf '#!/bin/sh\necho hi\n' > "$tmp/scripts/bad.sh"
out=$(python3 "$ROOT/scripts/spdx.py" --root "$tmp" || true)
case "$out" in *"src/bad.c"*"scripts/bad.sh"*|*"scripts/bad.sh"*"src/bad.c"*) ;; *) echo "planted files not found: $out"; fail=1;; esac
case "$out" in *"ok.c"*) echo "ok.c reported: $out"; fail=1;; esac
python3 "$ROOT/scripts/spdx.py" --root "$tmp" --add >/dev/null
python3 "$ROOT/scripts/spdx.py" --root "$tmp" >/dev/null || { echo "--add left files without the line"; fail=1; }
[ "$(head -1 "$tmp/scripts/bad.sh")" = "#!/bin/sh" ] || { echo "--add moved the #! line"; fail=1; }
[ $fail = 0 ] && echo "license_headers: ok"
exit $fail
