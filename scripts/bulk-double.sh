#!/usr/bin/env bash
# CI: the independent double of the bulk playlist commands (scripts/bulk-double.py) against the real
# `timbre` and `timbre-sandbox` binaries — the debug build the tests share. Extra arguments go to
# the Python (`--seed N`, `--steps N`, `--medium-steps N`). Prints how long it took.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product timbre
swift build --product timbre-sandbox
bin="$(swift build --show-bin-path)"
start=$SECONDS
status=0
timeout 300 python3 scripts/bulk-double.py --bin-dir "$bin" "$@" || status=$?
echo "bulk double: $((SECONDS - start)) s (exit $status)"
exit "$status"
