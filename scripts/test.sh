#!/usr/bin/env bash
# Runs the whole test suite: unit tests, and integration tests against the bundled sandbox over real
# TLS, a real SQLite file and a real keyring (gnome-keyring inside a private D-Bus session).
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --build-tests
# A throwaway HOME keeps the keyring and every XDG folder away from the user's own.
export TIMBRE_TEST_HOME="$(mktemp -d)"
trap 'rm -rf "$TIMBRE_TEST_HOME"' EXIT
exec dbus-run-session -- bash -c '
  export HOME="$TIMBRE_TEST_HOME"
  printf "%s" "timbre-test-keyring" | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1 || true
  swift test --skip-build "$@"
' bash "$@"
