#!/usr/bin/env bash
# Runs the whole test suite: unit tests, and integration tests against the bundled sandbox over real
# TLS, a real SQLite file and a real keyring (gnome-keyring inside a private D-Bus session).
#   scripts/test.sh            everything (CI)
#   scripts/test.sh --unit     the fast tier alone: tests tagged `.integration` (they start a
#                              process or server) are skipped
# Other arguments pass to `swift test --skip-build` (e.g. --filter SyncTests).
set -euo pipefail
cd "$(dirname "$0")/.."
tier=all
args=()
for arg in "$@"; do
  if [[ "$arg" == "--unit" ]]; then tier=unit; else args+=("$arg"); fi
done
swift build --build-tests
# A throwaway HOME keeps the keyring and every XDG folder away from the user's own.
export TIMBRE_TEST_HOME="$(mktemp -d)"
trap 'rm -rf "$TIMBRE_TEST_HOME"' EXIT
if [[ "$tier" == unit ]]; then
  # No keyring and no session bus: a unit test that reaches for either is in the wrong tier.
  export TIMBRE_TEST_TIER=unit HOME="$TIMBRE_TEST_HOME" DBUS_SESSION_BUS_ADDRESS="unix:path=/nonexistent/timbre-unit-tier"
  swift test --skip-build ${args[@]+"${args[@]}"}
  exit
fi
dbus-run-session -- bash -c '
  export HOME="$TIMBRE_TEST_HOME"
  printf "%s" "timbre-test-keyring" | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1 || true
  swift test --skip-build "$@"
' bash ${args[@]+"${args[@]}"}
