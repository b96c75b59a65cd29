#!/usr/bin/env bash
# Installs the Debian packages timbre builds and tests with. Safe to run again.
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# man-db and bash-completion: scripts/check-package.sh installs the .deb and reads its man pages
# and completion the way a user would. sqlite3: the many-processes soak checks both databases
# with SQLite's own shell once every timbre process has ended. zsh and fish: the completion tests
# drive each shell in tmux. playerctl and systemd (busctl): the MPRIS bridge's tests drive it as a
# desktop does (gdbus comes with libglib2.0-dev, through libsecret-1-dev). gdb: a test's guard
# against a hung timbre prints the stuck process's threads before it ends it.
$SUDO apt-get install -y -qq --no-install-recommends \
  libcurl4-openssl-dev libssl-dev libsqlite3-dev libsecret-1-dev libncursesw5-dev libjq-dev \
  pkg-config gnome-keyring libsecret-tools dbus dbus-x11 tmux openssl curl ca-certificates \
  man-db bash-completion sqlite3 zsh fish playerctl systemd gdb >/dev/null
echo "system packages installed"
