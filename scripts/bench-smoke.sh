#!/usr/bin/env bash
# A small run of the benchmark suite for CI, so it cannot rot: debug binaries (the build CI already
# has), the small sandbox library, one iteration, every figure printed, no thresholds. Exits 0
# unless something crashes or fails. The report goes to stdout, never to docs/PERFORMANCE.md.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product timbre-bench
swift build --product timbre
swift build --product timbre-sandbox
bin="$(swift build --show-bin-path)"
exec timeout 600 python3 Benchmarks/run.py --bin-dir "$bin" --library small --iterations 1 --smoke --command scripts/bench-smoke.sh
