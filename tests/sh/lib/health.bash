# SPDX-License-Identifier: Apache-2.0
# /healthz helpers for the shell tests of a running server (sourced):
#   health URL              the document (no token)
#   field EXPR              a Python expression over the JSON on stdin as d
#   wait_health URL EXPR S  0 once EXPR is True of /healthz, within S seconds
health() { curl -s --max-time 5 "$1/healthz"; }
field() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1], {}, {"d": d}))' "$1"; }
wait_health() { # URL python-condition-on-d seconds
  local until=$(( SECONDS + $3 ))
  while [ "$SECONDS" -le "$until" ]; do
    [ "$(health "$1" | field "$2" 2>/dev/null)" = True ] && return 0
    sleep 0.1
  done
  return 1
}
