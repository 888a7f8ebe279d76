#!/usr/bin/env bash
# Installs Lightnet from this unpacked release archive as a systemd service (run as root).
#
#   sudo ./install.sh                    install, or update to this version, and (re)start
#   sudo ./install.sh --rollback         point /opt/lightnet/current back at the previous version
#   sudo ./install.sh --uninstall        remove program, unit and config link; keep the data
#   sudo ./install.sh --uninstall --purge   … and also the data, settings and the lightnet user
#   options: --root DIR   act on another root (an image being built, tests): nothing is started
#            --no-start   install but do not (re)start the service
#            --no-password  first install only: no web UI password (anyone on the network
#                           can then control the fleet); by default one is generated and printed
#
# Layout: program /opt/lightnet/<version> with a `current` link (and `previous`, for rollback),
# data /var/lib/lightnet (owned by the `lightnet` system user, a member of dialout for the
# gateway's serial port), settings /etc/lightnet/lightnet.env, unit
# /etc/systemd/system/lightnet.service. Users and groups are created with useradd/groupadd
# --prefix DIR, which edit DIR/etc/{passwd,group,shadow,gshadow} without a chroot.
# After an update or rollback, `/opt/lightnet/current/install.sh` is the script of the running version.
set -euo pipefail

here=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
root=/ action=install start=1 purge=0 password=1
usage() { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; }
while [[ $# -gt 0 ]]; do
  case $1 in
    --root) root=${2:?--root needs a directory}; shift 2 ;;
    --rollback) action=rollback; shift ;;
    --uninstall) action=uninstall; shift ;;
    --purge) purge=1; shift ;;
    --no-start) start=0; shift ;;
    --no-password) password=0; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "install.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ $(id -u) == 0 ]] || { echo "install.sh: run as root (sudo $0 $*)" >&2; exit 1; }
[[ -d $root ]] || { echo "install.sh: --root $root is not a directory" >&2; exit 2; }
root=$(cd "$root" && pwd)
live=0; [[ $root == / ]] && live=1
# useradd/groupadd --prefix edit the root's account files; on a bare folder they fail with
# "cannot lock …/etc/group", which does not say what is missing.
if [[ $live == 0 && $action == install && ( ! -f $root/etc/passwd || ! -f $root/etc/group ) ]]; then
  echo "install.sh: --root $root has no etc/passwd and etc/group: give the root file system of an image (the lightnet user is added to it)" >&2; exit 2
fi
r() { printf '%s%s' "${root%/}" "$1"; }   # a path inside the target root
prefix=(); [[ $live == 1 ]] || prefix=(--prefix "$root")
say() { echo "lightnet: $*"; }

OPT=/opt/lightnet DATA=/var/lib/lightnet ETC=/etc/lightnet UNIT=/etc/systemd/system/lightnet.service

systemd_live() { [[ $live == 1 && -d /run/systemd/system ]]; }

restart_service() {
  if systemd_live; then
    systemctl daemon-reload
    if [[ $start == 1 ]]; then systemctl restart lightnet.service && say "service restarted (journalctl -u lightnet -f)"; fi
  else
    say "not started (no running systemd here, or --root): it starts at the next boot"
  fi
}

check_node() {
  local node v
  node=$(command -v node || true)
  if [[ $live == 1 && -z $node ]]; then
    echo "install.sh: Node.js >= 20.19 is needed: sudo apt-get install -y nodejs" >&2; exit 1
  fi
  [[ -n $node ]] || return 0
  v=$("$node" -p 'process.versions.node' 2>/dev/null || echo 0.0)
  IFS=. read -r major minor _ <<<"$v"
  if (( major < 20 || (major == 20 && minor < 19) )); then
    if [[ $live == 1 ]]; then
      echo "install.sh: Node.js $v is too old, Lightnet needs >= 20.19: sudo apt-get install -y nodejs (Debian 13 / Raspberry Pi OS trixie), or Node 22 from nodejs.org" >&2
      exit 1
    fi
    say "warning: this machine's Node.js $v is older than 20.19 (the target root needs its own)"
  fi
}

ensure_user() {
  if ! grep -q '^dialout:' "$(r /etc/group)" 2>/dev/null; then
    groupadd "${prefix[@]}" --system dialout
  fi
  if grep -q '^lightnet:' "$(r /etc/passwd)" 2>/dev/null; then
    usermod "${prefix[@]}" --append --groups dialout lightnet
  else
    # A lightnet group left behind (userdel --prefix keeps it): reuse it rather than fail.
    local group=(--user-group)
    grep -q '^lightnet:' "$(r /etc/group)" 2>/dev/null && group=(--gid lightnet)
    useradd "${prefix[@]}" --system "${group[@]}" --groups dialout --home-dir "$DATA" --no-create-home \
      --shell /usr/sbin/nologin --comment 'Lightnet host' lightnet
    say "created system user lightnet (in dialout)"
  fi
}

# Numeric uid:gid of lightnet in the target root (the host's passwd may differ).
owner() { awk -F: '$1 == "lightnet" { print $3 ":" $4 }' "$(r /etc/passwd)"; }

# Atomically points link at target (a name relative to the link's folder).
relink() { ln -sfn "$2" "$1.new" && mv -T "$1.new" "$1"; }

# The service listens on every address (LIGHTNET_HOST=0.0.0.0): the track WiFi reaches it.
# A first install therefore sets a password (kept only in the settings file, printed once)
# unless --no-password is given; an update keeps the settings file as it is.
write_env() {
  local env tmp pw=''
  env=$(r $ETC/lightnet.env)
  # 24 characters from the kernel's random source, URL-safe base64: no shell or
  # EnvironmentFile quoting needed, nothing typed by a user goes into it.
  [[ $password == 1 ]] && pw=$(head -c 18 /dev/urandom | base64 | tr '+/' '-_')
  tmp=$(mktemp "$env.XXXXXX")   # mode 0600 from the start: the password is never readable by others
  {
    echo "# Lightnet service settings: LIGHTNET_<OPTION>=value for any option of"
    echo "# \`/opt/lightnet/current/bin/lightnet --help\`. Then: sudo systemctl restart lightnet"
    echo "# Reachable from other machines on the network (the operator's laptop or phone):"
    echo "LIGHTNET_HOST=0.0.0.0"
    echo "#LIGHTNET_PORT=5077"
    echo "# The web UI's and the API's password (Authorization: Bearer <password>); change it here."
    if [[ -n $pw ]]; then echo "LIGHTNET_PASSWORD=$pw"; else echo "#LIGHTNET_PASSWORD=choose-one"; fi
    echo "#LIGHTNET_GATEWAY=serial:/dev/ttyUSB0"
  } >"$tmp"
  # Root's, readable by the service's group (the lightnet user) and nobody else.
  chown "0:$(owner | cut -d: -f2)" "$tmp"
  chmod 0640 "$tmp"
  mv "$tmp" "$env"
  if [[ -n $pw ]]; then
    say "the web UI password is: $pw"
    say "  (shown only now; kept as LIGHTNET_PASSWORD in $ETC/lightnet.env: change it there, then sudo systemctl restart lightnet)"
  else
    say "WARNING: no password (--no-password): anyone on this machine's networks can control the fleet;"
    say "  set LIGHTNET_PASSWORD in $ETC/lightnet.env, then sudo systemctl restart lightnet"
  fi
}

# An update keeps the settings; one without a password (an older install, --no-password)
# that listens on the network is said out loud.
check_env_password() {
  local env
  env=$(r $ETC/lightnet.env)
  if ! grep -qE '^[[:space:]]*LIGHTNET_PASSWORD=.+' "$env" &&
    grep -qE '^[[:space:]]*LIGHTNET_HOST=' "$env" && ! grep -qE '^[[:space:]]*LIGHTNET_HOST=(127\.0\.0\.1|localhost|::1)[[:space:]]*$' "$env"; then
    say "WARNING: no password is set and the service listens on the network: anyone there can control the fleet;"
    say "  set LIGHTNET_PASSWORD in $ETC/lightnet.env, then sudo systemctl restart lightnet"
  fi
}

do_install() {
  local version dest cur
  version=$(cat "$here/VERSION")
  [[ -f $here/dist/server/main.js && -x $here/bin/lightnet ]] || { echo "install.sh: run me from an unpacked release archive" >&2; exit 1; }
  check_node
  ensure_user
  mkdir -p "$(r $OPT)"
  dest=$(r "$OPT/$version")
  if [[ $(readlink -f "$here") != $(readlink -f "$dest") ]]; then
    # Copy beside, then swap in: a half-copied version is never what `current` names.
    rm -rf "$dest.new"
    cp -a "$here" "$dest.new"
    chown -R 0:0 "$dest.new"
    rm -rf "$dest"
    mv "$dest.new" "$dest"
  fi
  cur=$(readlink "$(r $OPT/current)" 2>/dev/null || true)
  if [[ -n $cur && $cur != "$version" ]]; then relink "$(r $OPT/previous)" "$cur"; fi
  relink "$(r $OPT/current)" "$version"
  # Older versions than previous are removed: current + previous is what a rollback needs.
  local prev keep
  prev=$(readlink "$(r $OPT/previous)" 2>/dev/null || true)
  for d in "$(r $OPT)"/*/; do
    keep=$(basename "$d")
    [[ $keep == "$version" || $keep == "$prev" || $keep == current || $keep == previous ]] || rm -rf "$d"
  done

  mkdir -p "$(r $DATA)"
  chown "$(owner)" "$(r $DATA)"
  chmod 0750 "$(r $DATA)"
  mkdir -p "$(r $ETC)"
  if [[ ! -f $(r $ETC/lightnet.env) ]]; then write_env; else check_env_password; fi
  mkdir -p "$(r /etc/systemd/system)"
  install -m 0644 "$dest/lightnet.service" "$(r $UNIT)"
  if systemd_live; then
    systemctl daemon-reload
    systemctl enable lightnet.service >/dev/null 2>&1
  elif command -v systemctl >/dev/null; then
    systemctl --root="$root" enable lightnet.service >/dev/null 2>&1
  else
    mkdir -p "$(r /etc/systemd/system/multi-user.target.wants)"
    relink "$(r /etc/systemd/system/multi-user.target.wants/lightnet.service)" "$UNIT"
  fi
  say "installed $version in $OPT/$version (current${prev:+, previous: $prev}); data in $DATA"
  restart_service
}

do_rollback() {
  local cur prev
  cur=$(readlink "$(r $OPT/current)" 2>/dev/null || true)
  prev=$(readlink "$(r $OPT/previous)" 2>/dev/null || true)
  if [[ -z $prev || ! -d $(r "$OPT/$prev") ]]; then
    echo "install.sh: no previous version to roll back to (installed: ${cur:-none})" >&2; exit 1
  fi
  relink "$(r $OPT/current)" "$prev"
  relink "$(r $OPT/previous)" "$cur"
  install -m 0644 "$(r "$OPT/$prev/lightnet.service")" "$(r $UNIT)"
  say "rolled back from $cur to $prev (again: the same command goes forward)"
  restart_service
}

do_uninstall() {
  if [[ ! -e $(r $OPT) && ! -e $(r $UNIT) && ! -e $(r $DATA) && ! -e $(r $ETC) ]] &&
    ! { [[ $purge == 1 ]] && grep -q '^lightnet:' "$(r /etc/passwd)" 2>/dev/null; }; then
    say "Lightnet is not installed here: nothing to remove"
    return 0
  fi
  if systemd_live; then
    systemctl disable --now lightnet.service >/dev/null 2>&1 || true
  elif command -v systemctl >/dev/null && [[ -f $(r $UNIT) ]]; then
    systemctl --root="$root" disable lightnet.service >/dev/null 2>&1 || true
  fi
  rm -f "$(r /etc/systemd/system/multi-user.target.wants/lightnet.service)" "$(r $UNIT)"
  systemd_live && systemctl daemon-reload
  rm -rf "$(r $OPT)"
  if [[ $purge == 1 ]]; then
    rm -rf "$(r $DATA)" "$(r $ETC)"
    if grep -q '^lightnet:' "$(r /etc/passwd)" 2>/dev/null; then userdel "${prefix[@]}" lightnet; fi
    # userdel --prefix leaves the user's own group: a later install would then fail in useradd.
    if grep -q '^lightnet:' "$(r /etc/group)" 2>/dev/null; then groupdel "${prefix[@]}" lightnet; fi
    say "removed Lightnet, its data, settings and user"
  elif [[ -e $(r $DATA) || -e $(r $ETC) ]]; then
    say "removed Lightnet; kept the data in $DATA and settings in $ETC (--purge removes them)"
  else
    say "removed Lightnet"
  fi
}

case $action in
  install) do_install ;;
  rollback) do_rollback ;;
  uninstall) do_uninstall ;;
esac
