#!/usr/bin/env bash
# Builds what a release ships, into dist/:
#   timbre-VERSION-linux-x86_64.tar.gz   bin/timbre, lib/timbre/timbre-sandbox (what `timbre demo`
#                                        runs), share/man/man1/*.1.gz, bash/zsh/fish completions
#                                        under share/, README.md, LICENSE
#   timbre_VERSION_amd64.deb             /usr/bin/timbre, /usr/lib/timbre/timbre-sandbox, the same
#                                        man pages and completions in Debian's directories; Depends
#                                        on the runtime libraries only
#   each with a NAME.sha256 beside it (`sha256sum -c NAME.sha256`)
#
#   scripts/package.sh                   release build, statically linked Swift runtime (what a
#                                        release ships; several minutes on 2 cores)
#   scripts/package.sh --binary PATH     package a timbre already built (CI packages the debug
#                                        build the tests use: see scripts/check-package.sh); the
#                                        sandbox is the timbre-sandbox beside it, unless --sandbox
#   scripts/package.sh --sandbox PATH    the timbre-sandbox to ship (`timbre demo` finds it at
#                                        ../lib/timbre/ from its own bin/)
#   scripts/package.sh --output DIR      write somewhere other than dist/
#   scripts/package.sh --fast            only the .deb, barely compressed: for checks that install
#                                        it and throw it away (xz on the binary takes minutes)
#   scripts/package.sh --print-version   print the version and stop
#
# VERSION has one source, TimbreVersion.current in Sources/TimbreCore/Version.swift, which is what
# `timbre --version` prints; the script refuses a binary that prints anything else.
# Nothing here is written by hand that swift-argument-parser generates from the command
# definitions: the completions come from `timbre completion SHELL` (argument-parser's scripts, bash's
# made to read playlist names as literal words — the script a user gets from the same command), and the man pages
# (one per command: timbre.1, timbre.sync.1, timbre.auth.status.1, …) from argument-parser's own
# `generate-manual` tool — the tool its GenerateManual plugin runs — at the version Package.resolved
# pins. The plugin itself (`swift package plugin generate-manual`) works offline here and writes
# the same pages, but it first builds every product of the package in its configuration — the
# sandbox with its SwiftNIO/BoringSSL stack, the benchmarks — and, in release, relinks
# .build/release/timbre without the static runtime; running its tool on the binary being shipped
# costs one small debug build of argument-parser (about 45 s on 2 cores) and documents exactly it.
# Dates and owners inside the archives come from the last commit (SOURCE_DATE_EPOCH), so the same
# commit packages to the same bytes apart from the binary itself.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }

binary=""
sandbox=""
output="dist"
print_version=false
fast=false
while (($#)); do
  case "$1" in
    --binary) binary="${2:?--binary needs a path}"; shift 2 ;;
    --sandbox) sandbox="${2:?--sandbox needs a path}"; shift 2 ;;
    --output) output="${2:?--output needs a directory}"; shift 2 ;;
    --fast) fast=true; shift ;;
    --print-version) print_version=true; shift ;;
    -h|--help) usage ;;
    *) echo "package.sh: unknown argument '$1'" >&2; usage ;;
  esac
done

version="$(sed -n 's/^ *public static let current = "\([^"]*\)".*/\1/p' Sources/TimbreCore/Version.swift)"
if [[ ! "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+([~+.][0-9A-Za-z.~+]+)?$ ]]; then
  echo "package.sh: no usable version in Sources/TimbreCore/Version.swift (read '$version')" >&2
  exit 1
fi
if $print_version; then echo "$version"; exit 0; fi

export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}"
export TZ=UTC LC_ALL=C.UTF-8

if [[ -z "$binary" ]]; then
  swift build -c release --static-swift-stdlib --product timbre
  swift build -c release --static-swift-stdlib --product timbre-sandbox
  binary="$(swift build -c release --show-bin-path)/timbre"
fi
[[ -x "$binary" ]] || { echo "package.sh: $binary is not an executable (build it, or drop --binary)" >&2; exit 1; }
sandbox="${sandbox:-$(dirname "$binary")/timbre-sandbox}"
[[ -x "$sandbox" ]] || { echo "package.sh: no timbre-sandbox at $sandbox (\`swift build --product timbre-sandbox\`, or --sandbox PATH): \`timbre demo\` needs it" >&2; exit 1; }
printed="$("$binary" --version)"
if [[ "$printed" != "$version" ]]; then
  echo "package.sh: $binary prints version '$printed', the source says '$version': rebuild it" >&2
  exit 1
fi

# argument-parser's manual generator, built from the checkout SwiftPM resolved for this package.
swift package resolve >/dev/null
dependencies="$(swift package show-dependencies --format json)"
parser="$(sed -n 's|^ *"path" *: *"\(.*/swift-argument-parser\)",\{0,1\}$|\1|p' <<<"$dependencies" | sed -n 1p)"
[[ -d "$parser/Tools/generate-manual" ]] || { echo "package.sh: no generate-manual tool in '$parser'" >&2; exit 1; }
tools="$PWD/.build/package-tools"
swift build --package-path "$parser" --scratch-path "$tools" --product generate-manual >&2
generate_manual="$tools/debug/generate-manual"

staging="$(mktemp -d)"
trap 'rm -rf "$staging"' EXIT
generated="$staging/generated"
mkdir -p "$generated/man" "$generated/completions"
"$generate_manual" "$binary" --multi-page --output-directory "$generated/man" \
  --date "$(date -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d)" --authors "the timbre authors"
[[ -f "$generated/man/timbre.1" ]] || { echo "package.sh: generate-manual wrote no timbre.1" >&2; exit 1; }
gzip -9n "$generated/man/"*.1
for shell in bash zsh fish; do
  "$binary" completion "$shell" >"$generated/completions/$shell"
  [[ -s "$generated/completions/$shell" ]] || { echo "package.sh: empty $shell completion script" >&2; exit 1; }
done

# install FILE MODE DEST: a file in a tree whose modes do not depend on the umask.
place() { install -D -m "$2" "$1" "$3"; }
normalize() { find "$1" -type d -exec chmod 0755 {} +; find "$1" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +; }

mkdir -p "$output"
output="$(cd "$output" && pwd)"

# The tarball: a prefix tree (unpack it into /usr/local, or anywhere and add its bin/ to PATH).
name="timbre-$version-linux-x86_64"
artifacts=()
if ! $fast; then
  tree="$staging/$name"
  place "$binary" 0755 "$tree/bin/timbre"
  place "$sandbox" 0755 "$tree/lib/timbre/timbre-sandbox"
  for page in "$generated/man/"*.gz; do place "$page" 0644 "$tree/share/man/man1/${page##*/}"; done
  place "$generated/completions/bash" 0644 "$tree/share/bash-completion/completions/timbre"
  place "$generated/completions/zsh" 0644 "$tree/share/zsh/site-functions/_timbre"
  place "$generated/completions/fish" 0644 "$tree/share/fish/vendor_completions.d/timbre.fish"
  place README.md 0644 "$tree/README.md"
  place LICENSE 0644 "$tree/LICENSE"
  normalize "$tree"
  tar -C "$staging" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" \
    -cf - "$name" | gzip -9n >"$output/$name.tar.gz"
  artifacts+=("$name.tar.gz")
fi

# The .deb.
deb="timbre_${version}_amd64.deb"
root="$staging/deb"
place "$binary" 0755 "$root/usr/bin/timbre"
place "$sandbox" 0755 "$root/usr/lib/timbre/timbre-sandbox"
for page in "$generated/man/"*.gz; do place "$page" 0644 "$root/usr/share/man/man1/${page##*/}"; done
place "$generated/completions/bash" 0644 "$root/usr/share/bash-completion/completions/timbre"
place "$generated/completions/zsh" 0644 "$root/usr/share/zsh/vendor-completions/_timbre"
place "$generated/completions/fish" 0644 "$root/usr/share/fish/vendor_completions.d/timbre.fish"
{
  echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
  echo "Upstream-Name: timbre"
  echo
  echo "Files: *"
  echo "Copyright: the timbre authors"
  echo "License: MIT"
  sed 's/^$/./; s/^/ /' LICENSE
} >"$staging/copyright"
place "$staging/copyright" 0644 "$root/usr/share/doc/timbre/copyright"
mkdir -p "$root/DEBIAN"
# Debian wants an address here; the project has none yet, so a release sets DEB_MAINTAINER.
# Depends names the libraries timbre links itself; what they pull in covers glib and tinfo, and
# libc6, libgcc-s1 and libstdc++6 (the last also a dependency of apt, so present wherever
# `apt install` runs).
maintainer="${DEB_MAINTAINER:-the timbre authors <timbre@invalid>}"
cat >"$root/DEBIAN/control" <<EOF
Package: timbre
Version: $version
Architecture: amd64
Maintainer: $maintainer
Installed-Size: $(du -sk --apparent-size "$root/usr" | cut -f1)
Depends: libcurl4, libssl3, libsqlite3-0, libsecret-1-0, libncursesw6, libjq1
Section: sound
Priority: optional
Description: Spotify library client for the terminal
 Browse your Spotify playlists and their tracks from a local cache, sync
 headlessly from cron, edit playlists with undo, and keep secrets in the
 desktop keyring. Every API call goes through a libcurl transport that pins
 certificates inside the TLS handshake. "timbre demo" tries it all against
 a bundled Spotify-compatible sandbox (/usr/lib/timbre/timbre-sandbox).
EOF
chmod 0644 "$root/DEBIAN/control"
normalize "$root"
compression=()
if $fast; then compression=(-Zgzip -z1); fi
dpkg-deb --root-owner-group ${compression[@]+"${compression[@]}"} --build "$root" "$output/$deb" >/dev/null
artifacts+=("$deb")

(cd "$output" && for file in "${artifacts[@]}"; do sha256sum "$file" >"$file.sha256"; done)
for file in "${artifacts[@]}"; do
  echo "$output/$file  $(du -h "$output/$file" | cut -f1)  sha256 $(cut -d' ' -f1 "$output/$file.sha256")"
done
