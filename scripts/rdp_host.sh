#!/usr/bin/env bash
# A throw-away RDP host on 127.0.0.1 for tests and benches: Debian's xrdp + xorgxrdp, started by
# hand (no systemd), with its own certificate and its own test users.
#
#   scripts/rdp_host.sh start STATE_DIR [--users N] [--port PORT] [--xsession FILE]
#   scripts/rdp_host.sh stop  STATE_DIR
#
# start writes STATE_DIR/users (one "user:password" per line, the format of `seatmark launch
# --users`), STATE_DIR/port, and logs; every user's ~/.xsession is FILE (default: a shell that
# sleeps, i.e. an empty desktop). stop ends every process the host started (xrdp, sesman, each
# session's Xorg, chansrv and desktop), removes the users and their homes, and is safe to run
# twice or after a failed start. Needs root (user accounts, sesman).
#
# Why by hand: xrdp as user xrdp cannot read the snakeoil key /etc/xrdp/key.pem points to, so it
# gets a certificate of its own; sessions survive disconnects (KillDisconnected=false), so stop
# must end them itself. xrdp reads sesman's port from /etc/xrdp/sesman.ini (3350) whatever -c
# says, so one host at a time on a machine (CTest: RESOURCE_LOCK xrdp).
set -euo pipefail

die() { echo "rdp_host.sh: $*" >&2; exit 1; }
[ $# -ge 2 ] || die "usage: $0 start|stop STATE_DIR [--users N] [--port PORT] [--xsession FILE]"
cmd=$1; state=$2; shift 2
[ "$(id -u)" -eq 0 ] || die "needs root (creates users, starts xrdp-sesman)"

# Every process whose real uid is $1, by pid.
pids_of_uid() { ps -e -o pid=,ruid= | awk -v u="$1" '$2 == u { print $1 }'; }
# Every process in session $1 (setsid gave xrdp and sesman sessions of their own).
pids_of_sid() { ps -e -o pid=,sid= | awk -v s="$1" '$2 == s { print $1 }'; }

# sesman, built with IPv6, binds its 127.0.0.1 as [::1]: ask the kernel, not a connect.
listening() { ss -Htln "sport = :$1" | grep -q .; }

kill_pids() {  # TERM, up to 3 s, then KILL
  local pids=("$@") left i
  [ ${#pids[@]} -gt 0 ] || return 0
  kill -TERM "${pids[@]}" 2>/dev/null || true
  for i in $(seq 30); do
    left=()
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && left+=("$p"); done
    [ ${#left[@]} -eq 0 ] && return 0
    sleep 0.1
  done
  kill -KILL "${left[@]}" 2>/dev/null || true
}

stop_host() {
  [ -d "$state" ] || return 0
  local sid uid u
  # The daemons first, so nothing starts new sessions while the users' processes go.
  for f in xrdp.sid sesman.sid; do
    if [ -s "$state/$f" ]; then
      sid=$(cat "$state/$f")
      mapfile -t ps_ < <(pids_of_sid "$sid")
      kill_pids "${ps_[@]}"
      rm -f "$state/$f"
    fi
  done
  # Daemons of this host whose session file was lost (a start killed half-way): they run with
  # "-c $state/...", so they are found by their own command line, and ended by pid.
  mapfile -t ps_ < <(ps -e -o pid=,args= | awk -v c="-c $state/" 'index($0, c) { print $1 }')
  kill_pids "${ps_[@]}"
  if [ -s "$state/users" ]; then
    while IFS=: read -r u _; do
      [ -n "$u" ] || continue
      uid=$(id -u "$u" 2>/dev/null) || continue
      mapfile -t ps_ < <(pids_of_uid "$uid")
      kill_pids "${ps_[@]}"
      # An Xorg ended by KILL leaves its lock and socket; only those this user owned go.
      for lock in /tmp/.X*-lock; do
        [ -e "$lock" ] || continue
        if [ "$(stat -c %u "$lock")" = "$uid" ]; then
          d=${lock#/tmp/.X}; d=${d%-lock}
          rm -f "$lock" "/tmp/.X11-unix/X$d" "/run/xrdp/sockdir/xrdp_display_$d" \
            "/run/xrdp/sockdir/xrdp_chansrv_socket_$d" "/run/xrdp/sockdir/xrdpapi_$d"
        fi
      done
      find /run/xrdp/sockdir -maxdepth 1 -user "$uid" -exec rm -rf {} + 2>/dev/null || true
      userdel -r -f "$u" >/dev/null 2>&1 || userdel -f "$u" >/dev/null 2>&1 || true
    done < "$state/users"
  fi
}

case "$cmd" in
stop)
  stop_host
  echo "rdp_host.sh: stopped ($state)"
  ;;
start)
  users=2; port=33890; xsession=""
  while [ $# -gt 0 ]; do
    case "$1" in
      --users) users=$2; shift 2 ;;
      --port) port=$2; shift 2 ;;
      --xsession) xsession=$2; shift 2 ;;
      *) die "unknown option '$1' (expected --users N, --port PORT, --xsession FILE)" ;;
    esac
  done
  for b in xrdp xrdp-sesman openssl useradd chpasswd; do
    command -v "$b" >/dev/null || die "'$b' not found: run scripts/deps.sh (installs xrdp, xorgxrdp)"
  done
  [ -e /usr/lib/xorg/modules/libxorgxrdp.so ] || die "xorgxrdp missing: run scripts/deps.sh"
  if listening 3350; then
    die "something already listens on 127.0.0.1:3350 (another xrdp-sesman); stop it first"
  fi
  mkdir -p "$state"; chmod 0755 "$state"
  state=$(cd "$state" && pwd)
  : > "$state/users"
  trap 'echo "rdp_host.sh: start failed, tearing down" >&2; stop_host' ERR

  # What /usr/share/xrdp/socksetup does for the systemd units.
  mkdir -p /run/xrdp/sockdir
  chown root:xrdp /run/xrdp /run/xrdp/sockdir; chmod 2775 /run/xrdp; chmod 3777 /run/xrdp/sockdir

  # Its own certificate, readable by user xrdp.
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=seatmark-rdp-test \
    -keyout "$state/key.pem" -out "$state/cert.pem" >/dev/null 2>&1
  chown xrdp:xrdp "$state/key.pem" "$state/cert.pem"; chmod 0400 "$state/key.pem"

  sed -e "s|^port=3389|port=tcp://127.0.0.1:$port|" \
      -e "s|^certificate=.*|certificate=$state/cert.pem|" \
      -e "s|^key_file=.*|key_file=$state/key.pem|" \
      -e "s|^LogFile=.*|LogFile=$state/xrdp.log|" \
      -e "s|^EnableSyslog=.*|EnableSyslog=false|" \
      -e "s|^fork=.*|fork=true|" /etc/xrdp/xrdp.ini > "$state/xrdp.ini"
  sed -e "s|^LogFile=.*|LogFile=$state/sesman.log|" \
      -e "s|^EnableSyslog=.*|EnableSyslog=false|" \
      -e "s|^ListenAddress=.*|ListenAddress=127.0.0.1|" /etc/xrdp/sesman.ini > "$state/sesman.ini"
  : > "$state/xrdp.log"; chown xrdp:xrdp "$state/xrdp.log"
  echo "$port" > "$state/port"

  if [ -z "$xsession" ]; then
    xsession="$state/xsession.default"
    printf '#!/bin/sh\n# An empty desktop: the session lives until it is ended.\nexec sleep infinity\n' > "$xsession"
  fi
  [ -r "$xsession" ] || die "--xsession $xsession: cannot read it"

  tag=$(printf '%04x' $((RANDOM % 65536)))
  for i in $(seq "$users"); do
    u="smrdp${tag}u$i"
    pw="pw-$(openssl rand -hex 8)"
    echo "$u:$pw" >> "$state/users"
    useradd -m -s /bin/sh "$u"
    echo "$u:$pw" | chpasswd
    install -m 0755 -o "$u" -g "$u" "$xsession" "/home/$u/.xsession"
  done
  chmod 0644 "$state/users"

  setsid xrdp-sesman --nodaemon -c "$state/sesman.ini" > "$state/sesman.out" 2>&1 < /dev/null &
  echo $! > "$state/sesman.sid"
  setsid runuser -u xrdp -- xrdp --nodaemon -c "$state/xrdp.ini" > "$state/xrdp.out" 2>&1 < /dev/null &
  echo $! > "$state/xrdp.sid"
  for i in $(seq 100); do
    if listening "$port" && listening 3350; then
      trap - ERR
      echo "rdp_host.sh: xrdp on 127.0.0.1:$port, $users users in $state/users"
      exit 0
    fi
    sleep 0.1
  done
  echo "rdp_host.sh: xrdp did not listen on 127.0.0.1:$port within 10 s; its log:" >&2
  tail -n 20 "$state/xrdp.out" "$state/xrdp.log" "$state/sesman.out" >&2 || true
  stop_host
  exit 1
  ;;
*) die "unknown command '$cmd' (expected start or stop)" ;;
esac
