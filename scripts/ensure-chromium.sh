#!/bin/sh
# The browser tests drive Debian's chromium through playwright-core; no test tool
# ever downloads a browser. Installs the distribution package when it is missing
# (CI and developers run as root here; otherwise say what to run).
set -eu
CHROMIUM="${LIGHTNET_CHROMIUM:-/usr/bin/chromium}"
if [ -x "$CHROMIUM" ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "ensure-chromium: $CHROMIUM is missing; run: sudo apt-get install -y chromium" >&2
  exit 1
fi
echo "ensure-chromium: installing Debian's chromium package" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq chromium >/dev/null
[ -x "$CHROMIUM" ]
