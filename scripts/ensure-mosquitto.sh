#!/bin/sh
# The MQTT tests and bench:mqtt run Debian's mosquitto broker (each starts its own on a free
# port and stops it). Installs the distribution package when it is missing (CI and
# developers run as root here; otherwise say what to run).
set -eu
MOSQUITTO="${LIGHTNET_MOSQUITTO:-/usr/sbin/mosquitto}"
if [ -x "$MOSQUITTO" ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "ensure-mosquitto: $MOSQUITTO is missing; run: sudo apt-get install -y mosquitto" >&2
  exit 1
fi
echo "ensure-mosquitto: installing Debian's mosquitto package" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq mosquitto >/dev/null
[ -x "$MOSQUITTO" ]
