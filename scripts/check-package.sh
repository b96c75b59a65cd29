#!/usr/bin/env bash
# Installs a timbre .deb on this machine with apt-get, checks what a user gets from it — the
# binary and its version, the man pages, bash completion (of commands, and of a cached playlist's
# name), zsh and fish completions, and `timbre demo --no-interface` with the sandbox the package
# ships — then removes it and checks that nothing of it stays. Needs root or sudo, and a machine where timbre is not
# installed already (it will not replace one).
#   scripts/check-package.sh               packages the debug build (`swift build --product
#                                          timbre`, which CI has already made for the tests and the
#                                          benchmark smoke, and timbre-sandbox, which the tests
#                                          need anyway) into .build/package-check/ and checks
#                                          that .deb
#   scripts/check-package.sh --deb FILE    checks a .deb already built (the release workflow checks
#                                          the one it attaches)
# Why the debug build in CI: the release build with the static Swift runtime costs several minutes
# on 2 cores on top of the ~8 CI already takes, and what this check can catch — the package's
# layout, its control file, the generated man pages and completions, install and removal — is the
# same for either build. The debug binary finds the Swift runtime through the toolchain's path, so
# it runs from /usr/bin on a machine with Swift (CI); the release .deb needs no toolchain.
set -euo pipefail
cd "$(dirname "$0")/.."

deb=""
while (($#)); do
  case "$1" in
    --deb) deb="${2:?--deb needs a file}"; shift 2 ;;
    *) echo "check-package.sh: unknown argument '$1' (see the comment at the top)" >&2; exit 2 ;;
  esac
done

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive

fail() { echo "check-package.sh: $*" >&2; exit 1; }

if dpkg-query -W -f='${Status}' timbre 2>/dev/null | grep -q 'installed'; then
  fail "timbre is installed on this machine already; remove it first (apt-get remove timbre)"
fi
# Minimal images (Ubuntu's among them) tell dpkg to skip /usr/share/man: the pages would vanish.
if grep -rqs '^path-exclude=/usr/share/man' /etc/dpkg/dpkg.cfg.d/; then
  fail "dpkg here skips /usr/share/man (/etc/dpkg/dpkg.cfg.d/); man pages cannot be checked on this machine"
fi

version="$(scripts/package.sh --print-version)"
if [[ -z "$deb" ]]; then
  swift build --product timbre
  swift build --product timbre-sandbox
  scripts/package.sh --fast --binary "$(swift build --show-bin-path)/timbre" --output .build/package-check
  deb=".build/package-check/timbre_${version}_amd64.deb"
fi
[[ -f "$deb" ]] || fail "no such .deb: $deb"
deb="$(cd "$(dirname "$deb")" && pwd)/$(basename "$deb")"

echo "--- the control file"
dpkg-deb --field "$deb" Package Version Architecture Depends
[[ "$(dpkg-deb --field "$deb" Version)" == "$version" ]] || fail "the .deb's version is not $version"
[[ "$(dpkg-deb --field "$deb" Depends)" == "libcurl4, libssl3, libsqlite3-0, libsecret-1-0, libncursesw6, libjq1" ]] ||
  fail "the .deb depends on something other than the runtime libraries"

# Whatever happens below, the machine is left without timbre.
trap '$SUDO apt-get remove -y -qq timbre >/dev/null 2>&1 || true' EXIT

echo "--- apt-get install"
$SUDO apt-get install -y -qq "$deb" >/dev/null
files="$(dpkg -L timbre)"

echo "--- timbre --version"
[[ "$(command -v timbre)" == /usr/bin/timbre ]] || fail "timbre on PATH is $(command -v timbre), not /usr/bin/timbre"
printed="$(timbre --version)"
echo "$printed"
[[ "$printed" == "$version" ]] || fail "timbre --version printed '$printed', expected '$version'"

echo "--- man"
for page in timbre timbre.sync timbre.auth.status timbre.playlist.add; do
  path="$(man -w "$page")" || fail "man -w $page found nothing"
  [[ "$path" == "/usr/share/man/man1/$page.1.gz" ]] || fail "man -w $page: $path"
  echo "$path"
done
page="$(MANWIDTH=80 man timbre 2>/dev/null)" || fail "man timbre failed"
head -n 8 <<<"$page"
grep -q 'timbre.sync(1)' <<<"$page" || fail "man timbre does not point to the subcommands' pages"
MANWIDTH=80 man timbre.sync 2>/dev/null | grep -q -- '--playlist' || fail "man timbre.sync does not document --playlist"
MANWIDTH=80 man timbre.tracks 2>/dev/null | grep -q -- '\$ timbre tracks "road trip"' || fail "man timbre.tracks has no examples"

echo "--- completions"
bash -c 'source /usr/share/bash-completion/completions/timbre && complete -p timbre' ||
  fail "the bash completion does not register for timbre"
# Run the bash completion function as bash-completion would on `timbre pl<TAB>`.
words="$(bash -c '
  source /usr/share/bash-completion/bash_completion
  source /usr/share/bash-completion/completions/timbre
  COMP_WORDS=(timbre pl); COMP_CWORD=1; COMP_LINE="timbre pl"; COMP_POINT=${#COMP_LINE}
  _timbre timbre pl timbre
  printf "%s\n" "${COMPREPLY[@]}"')"
echo "timbre pl<TAB>: $(tr '\n' ' ' <<<"$words")"
if ! grep -qx playlists <<<"$words" || ! grep -qx playlist <<<"$words"; then
  fail "bash completes 'timbre pl' to '$words'"
fi
grep -q '^#compdef timbre' /usr/share/zsh/vendor-completions/_timbre || fail "no zsh completion"
grep -q "complete -c 'timbre'" /usr/share/fish/vendor_completions.d/timbre.fish || fail "no fish completion"
echo "zsh: /usr/share/zsh/vendor-completions/_timbre  fish: /usr/share/fish/vendor_completions.d/timbre.fish"
# The shipped scripts are the ones `timbre completion SHELL` prints (bash's reads names as literal words).
cmp -s <(timbre completion bash) /usr/share/bash-completion/completions/timbre || fail "the bash completion is not \`timbre completion bash\`"
cmp -s <(timbre completion zsh) /usr/share/zsh/vendor-completions/_timbre || fail "the zsh completion is not \`timbre completion zsh\`"
cmp -s <(timbre completion fish) /usr/share/fish/vendor_completions.d/timbre.fish || fail "the fish completion is not \`timbre completion fish\`"
grep -q '__timbre_add_literal_completions' /usr/share/bash-completion/completions/timbre || fail "the bash completion gives names to compgen -W"

echo "--- timbre demo --no-interface (the packaged sandbox), as a new user would"
[[ -x /usr/lib/timbre/timbre-sandbox ]] || fail "the package has no /usr/lib/timbre/timbre-sandbox"
demo_home="$(mktemp -d)"
trap 'rm -rf "$demo_home"; $SUDO apt-get remove -y -qq timbre >/dev/null 2>&1 || true' EXIT
as_user() { env -i PATH=/usr/bin:/bin HOME="$demo_home" LANG=C.UTF-8 "$@"; }
as_user timbre demo --no-interface --library small 2>"$demo_home/demo.err" ||
  fail "timbre demo --no-interface failed: $(cat "$demo_home/demo.err")"
tail -n 1 "$demo_home/demo.err"
name="$(as_user timbre --profile demo playlists --json | python3 -c '
import json, re, sys
names = [p["name"] for p in json.load(sys.stdin)[1:]]
print(next((n for n in names if names.count(n) == 1 and re.fullmatch("[A-Za-z0-9 ]+", n)), ""))')"
[[ -n "$name" ]] || fail "timbre --profile demo playlists --json names no playlist after the demo"
echo "the demo's first playlist: $name"
as_user timbre --profile demo tracks "$name" >/dev/null || fail "timbre --profile demo tracks '$name' failed"
# bash completes a REF with the cached names, as on `TIMBRE_PROFILE=demo timbre tracks <TAB>`.
names="$(as_user TIMBRE_PROFILE=demo bash -c '
  source /usr/share/bash-completion/bash_completion
  source /usr/share/bash-completion/completions/timbre
  COMP_WORDS=(timbre tracks ""); COMP_CWORD=2; COMP_LINE="timbre tracks "; COMP_POINT=${#COMP_LINE}
  _timbre timbre "" tracks
  printf "%s\n" "${COMPREPLY[@]}"')"
grep -qxF "$name" <<<"$names" || fail "bash does not complete 'timbre tracks ' with '$name' in the demo profile (got $(grep -c . <<<"$names") words)"
echo "TIMBRE_PROFILE=demo timbre tracks <TAB>: $(grep -c . <<<"$names") words, '$name' among them"
rm -rf "$demo_home"
trap '$SUDO apt-get remove -y -qq timbre >/dev/null 2>&1 || true' EXIT

echo "--- apt-get remove"
$SUDO apt-get remove -y -qq timbre >/dev/null
trap - EXIT
! dpkg-query -W -f='${Status}' timbre 2>/dev/null | grep -q ' installed' || fail "timbre is still installed"
left=""
while IFS= read -r path; do
  [[ -f "$path" || -L "$path" ]] && left+="$path "
done <<<"$files"
[[ -z "$left" ]] || fail "left behind after removal: $left"
echo "removed; none of its $(grep -c . <<<"$files") paths' files remain"
echo "package check passed: $(basename "$deb")"
