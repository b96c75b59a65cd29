#!/usr/bin/env bash
# Requests per big command (issue #42): paste and its undo, dedupe, import, `playlist restore` of a
# deleted playlist, backup, restore — counted by the sandbox's request log, beside what timbre said
# before its first write and what `--dry-run --json` said. Not part of CI (the large library is
# 200,000 items); docs/PERFORMANCE.md "Requests per command" quotes its last run.
#   scripts/request-costs.sh [--library large|medium] [--bin-dir DIR] [--out FILE]
#   (--bin-dir: binaries already built, e.g. .build/debug; default: a debug build of both)
set -euo pipefail
cd "$(dirname "$0")/.."
library=large
bin=""
out=()
while [ $# -gt 0 ]; do
  case "$1" in
    --library) library="$2"; shift 2 ;;
    --bin-dir) bin="$2"; shift 2 ;;
    --out) out=(--out "$2"); shift 2 ;;
    *) echo "usage: scripts/request-costs.sh [--library large|medium] [--bin-dir DIR] [--out FILE]" >&2; exit 2 ;;
  esac
done
if [ -z "$bin" ]; then
  swift build --product timbre
  swift build --product timbre-sandbox
  bin="$(swift build --show-bin-path)"
fi
exec python3 Benchmarks/request_costs.py --bin-dir "$bin" --library "$library" "${out[@]}"
