#!/usr/bin/env bash
# A scripted "browser" for login tests: follows Spotify's authorize redirect to the loopback
# callback, as a person clicking "Agree" would. BROWSER_MODE=forge swaps the state first;
# BROWSER_MODE=forge-first fires a forged callback (as a hostile page could), then the real one;
# BROWSER_LOG receives what it did. Trusts the sandbox through BROWSER_CA; proves to be its owner
# (the signed-in user of a real browser) with the header file BROWSER_OWNER_HEADER.
set -u
url=$1
log=${BROWSER_LOG:-/dev/null}
location=$(curl -s -o /dev/null -w '%{redirect_url}' --cacert "$BROWSER_CA" -H @"$BROWSER_OWNER_HEADER" "$url")
echo "authorize -> $location" >> "$log"
[ -n "$location" ] || exit 1
if [ "${BROWSER_MODE:-}" = forge-first ]; then
  forged=$(printf '%s' "$location" | sed -E 's/state=[^&]*/state=forged-state/')
  curl -s -o /dev/null -w 'forged %{http_code}\n' "$forged" >> "$log"
fi
if [ "${BROWSER_MODE:-}" = forge ]; then
  location=$(printf '%s' "$location" | sed -E 's/state=[^&]*/state=forged-state/')
fi
# A browser also asks for the favicon; the listener must ignore it and keep waiting.
curl -s -o /dev/null -w 'favicon %{http_code}\n' "$(printf '%s' "$location" | sed -E 's#/callback.*#/favicon.ico#')" >> "$log" || true
curl -s -o /dev/null -w 'callback %{http_code}\n' "$location" >> "$log"
