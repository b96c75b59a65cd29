#!/usr/bin/env bash
# Fresh-machine demo: installs the system packages, builds timbre and its sandbox, and runs
# `timbre demo` — a local Spotify-compatible server over TLS, a real PKCE sign-in through the
# pinned transport, a sync of 60 playlists, then the interface (q quits).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build --product timbre-sandbox 2>&1 | tail -1
swift build --product timbre 2>&1 | tail -1
exec .build/debug/timbre demo "$@"
