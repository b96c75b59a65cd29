#!/usr/bin/env bash
# Fails when a source file imports a module its layer may not see. The layers (docs/ARCHITECTURE.md):
#
#   C shims → TimbreCore → TimbreNet → TimbreAuth, TimbreLibrary → TimbreTUI → TimbreApp → timbre
#
# TimbreAuth and TimbreLibrary are side by side: neither imports the other (the composition root
# in TimbreApp joins them behind TimbreLibrary's SpotifyAPI). The executable imports TimbreApp and
# the parser only.
#
# A target may import only targets below it, and each C library, GRDB, the server stack and the
# command-line parser only in the targets that own them. The sandbox and the test support never
# reach the client's targets, and the client never imports them.
#
# Usage: scripts/check-layers.sh [REPO_ROOT]   (default: this repository)
#        scripts/check-layers.sh --self-test    (proves the check fails on a wrong import)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"

if [ "${1:-}" = "--self-test" ]; then
  copy="$(mktemp -d)"
  trap 'rm -rf "$copy"' EXIT
  cp -r "$here/Sources" "$copy/"
  "$0" "$copy" >/dev/null || { echo "check-layers self-test: the clean tree must pass" >&2; exit 1; }
  # An arrow pointing the wrong way (TimbreCore reaching up into the interface), and a sideways
  # one (the library reaching into sign-in instead of going through SpotifyAPI): each must fail.
  for wrong in "TimbreCore/Paths.swift:TimbreTUI" "TimbreLibrary/SyncEngine.swift:TimbreAuth"; do
    file="${wrong%%:*}"; module="${wrong##*:}"
    cp "$here/Sources/$file" "$copy/Sources/$file"
    echo "import $module" >> "$copy/Sources/$file"
    if output="$("$0" "$copy" 2>&1)"; then
      echo "check-layers self-test: a wrong import ($module in $file) was not caught" >&2
      exit 1
    fi
    cp "$here/Sources/$file" "$copy/Sources/$file"
    echo "check-layers self-test: a wrong import fails the check: ${output#check-layers: }"
  done
  exit 0
fi

root="${1:-$here}"

# Modules that come with the platform: any target may import them.
system="Foundation Glibc Darwin Dispatch Synchronization"

# target: the modules (other than the platform's) it may import.
allowed() {
  case "$1" in
    TimbreCore)        echo "Logging TOMLKit" ;;
    TimbreNet)         echo "TimbreCore Logging CCurl COpenSSL" ;;
    TimbreAuth)        echo "TimbreCore TimbreNet Logging CLibSecret" ;;
    TimbreLibrary)     echo "TimbreCore TimbreNet Logging GRDB GRDBSQLite" ;;
    TimbreTUI)         echo "TimbreCore TimbreNet TimbreLibrary Logging CNcursesw" ;;
    TimbreApp)         echo "TimbreCore TimbreNet TimbreAuth TimbreLibrary TimbreTUI Logging" ;;
    timbre)            echo "TimbreApp TimbreCore ArgumentParser" ;;
    TimbreBench)       echo "TimbreCore TimbreNet TimbreAuth TimbreLibrary TimbreTUI Logging ArgumentParser" ;;
    SandboxCore)       echo "COpenSSL" ;;
    TimbreSandbox)     echo "SandboxCore Logging ArgumentParser Hummingbird HummingbirdTLS NIOCore NIOSSL HTTPTypes" ;;
    TimbreTestSupport) echo "SandboxCore TimbreCore Testing" ;;
    C*)                echo "" ;;  # C shim targets hold no Swift
    *)                 echo "UNKNOWN" ;;
  esac
}

status=0
checked=0
for dir in "$root"/Sources/*/; do
  target="$(basename "$dir")"
  permitted="$(allowed "$target")"
  if [ "$permitted" = "UNKNOWN" ]; then
    echo "check-layers: Sources/$target is not in the layer table of scripts/check-layers.sh — add it" >&2
    status=1
    continue
  fi
  while IFS= read -r file; do
    checked=$((checked + 1))
    # `import X`, `@testable import X`, `import struct X.Y`, `@_implementationOnly import X`…
    while IFS=: read -r line module; do
      [ -z "$module" ] && continue
      case " $system $permitted " in
        *" $module "*) ;;
        *)
          echo "check-layers: ${file#"$root"/}:$line: $target may not import $module (allowed: ${permitted:-none})" >&2
          status=1
          ;;
      esac
    done < <(awk '
      /^[[:space:]]*(@[A-Za-z_]+[[:space:]]+)*import[[:space:]]/ {
        for (i = 1; i <= NF; i++) if ($i == "import") break
        name = $(i + 1)
        if (name ~ /^(struct|class|enum|protocol|func|var|let|typealias)$/) name = $(i + 2)
        sub(/\..*/, "", name)
        print FNR ":" name
      }' "$file")
  done < <(find "$dir" -name '*.swift' | sort)
done

if [ "$status" -eq 0 ]; then
  echo "check-layers: $checked files, every import points down"
fi
exit "$status"
