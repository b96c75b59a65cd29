#!/usr/bin/env bash
# Fails when a source file imports a module its layer may not see. The layers (docs/ARCHITECTURE.md):
#
#   C shims → TimbreCore → TimbreNet → TimbreAuth, TimbreLibrary → TimbreTUI → TimbreApp → timbre
#
# TimbreAuth and TimbreLibrary are side by side: neither imports the other (the composition root
# in TimbreApp joins them behind TimbreLibrary's SpotifyAPI). The executable imports TimbreApp,
# TimbreCore and the parser.
#
# TimbreMPRIS (the MPRIS bridge: GIO's GDBus, through CGio) stands beside the layers above
# TimbreCore: it sees TimbreCore alone, and drives the player through its own MPRISPlayer protocol.
#
# A target may import only targets below it, and each C library, GRDB, the server stack and the
# command-line parser only in the targets that own them. The sandbox and the test support never
# reach the client's targets, and the client never imports them.
#
# Also checked: docs/ARCHITECTURE.md's table of targets against Package.swift and the imports,
# that no library target reads the process's environment (it comes down in the Invocation), and
# that every `Sources/…` path the docs and README name exists.
#
# Usage: scripts/check-layers.sh [REPO_ROOT]   (default: this repository)
#        scripts/check-layers.sh --self-test    (proves the check fails on a wrong import and a stale table)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"

if [ "${1:-}" = "--self-test" ]; then
  copy="$(mktemp -d)"
  trap 'rm -rf "$copy"' EXIT
  cp -r "$here/Sources" "$copy/"
  "$0" "$copy" >/dev/null || { echo "check-layers self-test: the clean tree must pass" >&2; exit 1; }
  # An arrow pointing the wrong way (TimbreCore reaching up into the interface), and a sideways
  # one (the library reaching into sign-in instead of going through SpotifyAPI): each must fail.
  for wrong in "TimbreCore/Files/Paths.swift:TimbreTUI" "TimbreLibrary/Sync/SyncEngine.swift:TimbreAuth"; do
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
  # docs/ARCHITECTURE.md's table of targets: a target left out must fail the check.
  mkdir -p "$copy/docs"
  cp "$here/Package.swift" "$copy/"
  grep -v '^| TimbreBench |' "$here/docs/ARCHITECTURE.md" >"$copy/docs/ARCHITECTURE.md"
  if output="$("$0" "$copy" 2>&1)"; then
    echo "check-layers self-test: a target missing from docs/ARCHITECTURE.md was not caught" >&2
    exit 1
  fi
  echo "check-layers self-test: a stale architecture table fails the check: $(grep -m1 'TimbreBench' <<<"$output" | sed 's/^check-layers: //')"
  # A path in the documentation that does not exist must fail the check.
  cp "$here/docs/ARCHITECTURE.md" "$copy/docs/ARCHITECTURE.md"
  echo 'See `Sources/TimbreNet/NoSuchFile.swift`.' >>"$copy/docs/ARCHITECTURE.md"
  if output="$("$0" "$copy" 2>&1)"; then
    echo "check-layers self-test: a stale path in docs/ARCHITECTURE.md was not caught" >&2
    exit 1
  fi
  echo "check-layers self-test: a stale path fails the check: $(grep -m1 'NoSuchFile' <<<"$output" | sed 's/^check-layers: //')"
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
    TimbreJQ)          echo "CJQ" ;;
    TimbreMPRIS)       echo "TimbreCore CGio" ;;
    TimbreApp)         echo "TimbreCore TimbreNet TimbreAuth TimbreLibrary TimbreTUI TimbreJQ TimbreMPRIS Logging" ;;
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

# The process's environment is read by the executable (`Root.main`, the shell-completion callbacks)
# and handed down in the `Invocation`: no library target reads it (test support and the sandbox may).
while IFS= read -r hit; do
  echo "check-layers: ${hit#"$root"/}: the environment comes from the Invocation, not ProcessInfo" >&2
  status=1
done < <(grep -rn --include='*.swift' 'ProcessInfo\.processInfo\.environment' \
  "$root"/Sources/Timbre{Core,Net,Auth,Library,TUI,App} 2>/dev/null || true)

# docs/ARCHITECTURE.md's table of targets (between its `<!-- targets` and `<!-- end of targets -->`
# lines) against Package.swift (`swift package dump-package`) and the imports of each target's
# files: every non-test target listed, with its dependencies and imports as they are. Only for
# the repository itself (the self-test's copy has no manifest).
if [ -f "$root/Package.swift" ] && [ -f "$root/docs/ARCHITECTURE.md" ]; then
  scratch="$(mktemp -d)"
  manifest="$scratch/package.json"
  # A scratch path of its own: the check never waits for (or disturbs) a build in .build.
  if ! (cd "$root" && swift package --scratch-path "$scratch/build" dump-package >"$manifest" 2>"$scratch/err"); then
    echo "check-layers: swift package dump-package failed: $(cat "$scratch/err")" >&2
    rm -rf "$scratch"
    exit 1
  fi
  if ! python3 - "$root" "$manifest" "$system" <<'PY'
import json, os, re, sys
root, manifest, system = sys.argv[1], sys.argv[2], set(sys.argv[3].split())
package = {}
for target in json.load(open(manifest))["targets"]:
    if target["type"] == "test":
        continue
    dependencies = [next(iter(d.values()))[0] for d in target["dependencies"]]
    package[target["name"]] = (target["type"], set(dependencies))
doc = open(os.path.join(root, "docs/ARCHITECTURE.md"), encoding="utf-8").read()
section = re.search(r"<!-- targets.*?-->(.*?)<!-- end of targets -->", doc, re.S)
if not section:
    sys.exit("check-layers: docs/ARCHITECTURE.md has no table of targets (<!-- targets … --> … <!-- end of targets -->)")
def names(cell):
    cell = cell.strip()
    return set() if cell in ("—", "(system library)") else {n.strip() for n in cell.split(",")}
listed = {}
for line in section.group(1).splitlines():
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) != 3 or cells[0] in ("Target", "") or set(cells[0]) <= set("-"):
        continue
    listed[cells[0]] = (cells[1] == "(system library)", names(cells[1]), names(cells[2]))
imported = re.compile(r"^\s*(?:@\w+\s+)*import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?(\w+)", re.M)
problems = []
for name in sorted(set(package) | set(listed)):
    if name not in listed:
        problems.append(f"{name} is a target of Package.swift but not in docs/ARCHITECTURE.md's table of targets")
        continue
    if name not in package:
        problems.append(f"{name} is in docs/ARCHITECTURE.md's table of targets but not a target of Package.swift")
        continue
    kind, dependencies = package[name]
    system_library, doc_dependencies, doc_imports = listed[name]
    if (kind == "system") != system_library or dependencies != doc_dependencies:
        problems.append(f"{name}: Package.swift says {'(system library)' if kind == 'system' else ', '.join(sorted(dependencies)) or '—'}, "
                        f"docs/ARCHITECTURE.md says {', '.join(sorted(doc_dependencies)) or '—'}")
    imports = set()
    for folder, _, files in os.walk(os.path.join(root, "Sources", name)):
        for file in files:
            if file.endswith(".swift"):
                imports |= set(imported.findall(open(os.path.join(folder, file), encoding="utf-8").read()))
    imports -= system
    if imports != doc_imports:
        problems.append(f"{name}: its files import {', '.join(sorted(imports)) or '—'}, docs/ARCHITECTURE.md says {', '.join(sorted(doc_imports)) or '—'}")
for problem in problems:
    print(f"check-layers: {problem}", file=sys.stderr)
if problems:
    sys.exit(1)
print(f"check-layers: docs/ARCHITECTURE.md lists the {len(package)} targets of Package.swift, their dependencies and imports")
PY
  then
    status=1
  fi
  rm -rf "$scratch"
fi
# Every source path docs/*.md and README.md name (`Sources/…`) exists: a file moved or renamed
# leaves no stale path in the documentation.
if [ -d "$root/docs" ]; then
  while IFS= read -r hit; do
    path="${hit#*:*:}"; path="${path%.}"
    if [ ! -e "$root/$path" ]; then
      echo "check-layers: ${hit%%:*}:$(cut -d: -f2 <<<"$hit") names $path, which does not exist — correct the path" >&2
      status=1
    fi
  done < <(cd "$root" && grep -onE 'Sources/[A-Za-z0-9_/+.-]*[A-Za-z0-9_+-]' docs/*.md README.md 2>/dev/null || true)
fi
exit "$status"
