#!/usr/bin/env bash
# npm test, RUNS times in a row (default 3), with HOGS busy loops beside it (default 4, as
# `stress -c 4`); prints each run's time, exit code and the load average range it saw. Stops at
# the first failing run. docs/quality.md §Suite time records its results.
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-3}
hogs=()
for _ in $(seq "${HOGS:-4}"); do (while :; do :; done) & hogs+=($!); done
trap 'kill "${hogs[@]}" 2>/dev/null' EXIT
for n in $(seq "$runs"); do
  samples=$(mktemp)
  (while :; do cut -d' ' -f1 /proc/loadavg >> "$samples"; sleep 30; done) & sampler=$!
  start=$(date +%s)
  npm test > "suite-under-load-$n.log" 2>&1
  rc=$?
  kill "$sampler"
  range=$(sort -n "$samples" | sed -n '1p;$p' | paste -sd- -)
  rm -f "$samples"
  echo "run $n: exit $rc, $(( $(date +%s) - start )) s, load average $range (log: suite-under-load-$n.log)"
  [ "$rc" -ne 0 ] && exit "$rc"
done
