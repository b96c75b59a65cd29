#!/usr/bin/env bash
# CI: the conformance check. Runs every timbre command that talks to Spotify against the sandbox in
# its 2026 (development-mode) behaviour with TIMBRE_RECORD, and checks every recorded request against
# the table derived from Spotify's OpenAPI description (scripts/conformance/spotify-web-api.json) and
# Spotify's 2026 rules: method and path, query parameters and their limits, JSON body fields and
# types, Content-Type, list maxima, removed endpoints, Content-Length of bodiless writes, and any 4xx.
# Prints "conformance: N requests checked, M mismatches"; exits 1 on any mismatch or failed command.
# Extra arguments go to the battery (`--keep` keeps the recording). The debug build the tests share.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product timbre
swift build --product timbre-sandbox
bin="$(swift build --show-bin-path)"
# The checker first proves on made-up requests that each of its rules can fail.
python3 scripts/conformance/check.py --self-test
start=$SECONDS
status=0
timeout 600 python3 scripts/conformance/battery.py --bin-dir "$bin" "$@" || status=$?
echo "conformance: $((SECONDS - start)) s (exit $status)"
exit "$status"
