# SPDX-License-Identifier: Apache-2.0
# Shared by tests/sh/server*.sh (sourced after lib/expect.bash): start_server /
# stop_server on a free loopback port, req METHOD PATH TOKEN [BODY] and checks
# on its status and body.  Needs $CLI and $db.
here=$(cd "$(dirname "$0")" && pwd)
db="$dir/s.db"
srv_pid=
srv_global=()  # flags before "serve" (--role-allow ...)

start_server() { # extra serve flags...
  # emptied here, not by the background job's redirection: that may come
  # after the first read below, which would find the last server's port
  : >"$dir/srv.out"
  "$CLI" --db "$db" "${srv_global[@]}" serve --listen 127.0.0.1:0 --threads 3 "$@" >"$dir/srv.out" 2>"$dir/srv.err" &
  srv_pid=$!
  for _ in $(seq 100); do
    port=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$dir/srv.out")
    [ -n "$port" ] && break
    sleep 0.05
  done
  if [ -z "$port" ]; then echo "FAIL: the server did not start"; cat "$dir/srv.err"; exit 1; fi
  url="http://127.0.0.1:$port"
}
stop_server() {
  kill -TERM "$srv_pid" 2>/dev/null; wait "$srv_pid"; srv_rc=$?; srv_pid=
}
trap '[ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null; rm -rf "$dir"' EXIT

# req METHOD PATH TOKEN [BODY]: status in $code, body in $dir/body
req() {
  local m=$1 p=$2 t=$3; shift 3
  local args=(-s -o "$dir/body" -w '%{http_code}' -X "$m" --max-time 20)
  [ -n "$t" ] && args+=(-H "Authorization: Bearer $t")
  [ $# -gt 0 ] && args+=(-H 'Content-Type: application/json' --data-binary "$1")
  code=$(curl "${args[@]}" "$url$p")
}
expect_code() { # want description  (after req)
  if [ "$code" = "$1" ]; then passed=$((passed+1)); else
    echo "FAIL: $2: HTTP $code, wanted $1"; cat "$dir/body"; echo; failed=$((failed+1)); fi
}
expect_body() { # needle description
  if grep -qF -- "$1" "$dir/body"; then passed=$((passed+1)); else
    echo "FAIL: $2: '$1' not in the body"; cat "$dir/body"; echo; failed=$((failed+1)); fi
}
expect_no_body() { # needle description
  if grep -qF -- "$1" "$dir/body"; then
    echo "FAIL: $2: '$1' is in the body"; cat "$dir/body"; echo; failed=$((failed+1))
  else passed=$((passed+1)); fi
}
err_is() { # code field description: the error object's code and field
  if python3 - "$dir/body" "$1" "$2" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))["error"]
want_field = None if sys.argv[3] == "-" else sys.argv[3]
sys.exit(0 if e["code"] == sys.argv[2] and e.get("field") == want_field and e["message"] else 1)
PY
  then passed=$((passed+1)); else
    echo "FAIL: $3: wanted error $1 field $2"; cat "$dir/body"; echo; failed=$((failed+1)); fi
}
audit_count() { # user op
  sqlite3 "$db" "SELECT count(*) FROM audit_log WHERE user_id='$1' AND op='$2'"
}
