#!/usr/bin/env bash
# The benchmark suite in one command: builds release binaries, starts the bundled sandbox with the
# large library (500 playlists, 200,000 items, 5,000 liked songs), measures timbre and its peers
# (spotipy, tekore, a curl wire floor) against it in the same run, and writes docs/PERFORMANCE.md.
#   scripts/bench.sh [--iterations N] [--library small|medium|large] [--out FILE] [--only dedupe|history|keys]
#   (--only dedupe: measures the dedupe of a 10,000-entry playlist alone and replaces that section of FILE;
#    --only history: the playlist history's size after a simulated year and its share of a sync, likewise;
#    --only keys: key → frame drawn in the real binary in tmux, p50/p95 of 20 each, likewise)
# Needs: swift, python3, curl, tmux; `pip install spotipy tekore` for the peers
# (a peer whose package is missing is reported as not run). Takes 9–15 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
iterations=5
library=large
out=docs/PERFORMANCE.md
only=()
while [ $# -gt 0 ]; do
  case "$1" in
    --iterations) iterations="$2"; shift 2 ;;
    --library) library="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --only) only=(--only "$2"); shift 2 ;;
    *) echo "usage: scripts/bench.sh [--iterations N] [--library small|medium|large] [--out FILE] [--only dedupe|history|keys]" >&2; exit 2 ;;
  esac
done
command="scripts/bench.sh"
[ "$iterations" != 5 ] && command+=" --iterations $iterations"
[ "$library" != large ] && command+=" --library $library"
[ "$out" != docs/PERFORMANCE.md ] && command+=" --out $out"
[ ${#only[@]} -gt 0 ] && command+=" ${only[*]}"

# The same build as README's "Install": release, Swift runtime linked in (--static-swift-stdlib).
build=(swift build --scratch-path .build-bench -c release --static-swift-stdlib)
for product in timbre timbre-sandbox timbre-bench; do
  "${build[@]}" --product "$product"
done
bin="$("${build[@]}" --show-bin-path)"
for tool in python3 curl tmux; do
  command -v "$tool" >/dev/null || { echo "bench: $tool is required" >&2; exit 1; }
done
for module in spotipy tekore; do
  python3 -c "import $module" 2>/dev/null || echo "bench: python module $module missing (pip install spotipy tekore); its peer will be reported as not run" >&2
done
exec python3 Benchmarks/run.py --bin-dir "$bin" --library "$library" --iterations "$iterations" --out "$out" --command "$command" ${only[@]+"${only[@]}"}
