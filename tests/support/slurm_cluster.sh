#!/usr/bin/env bash
# A one-node Slurm cluster for a test, in a folder of its own: munged, slurmctld and slurmd
# (Debian's slurm-wlm and munge) with proctrack/linuxproc, task/none and select/linear, so no
# cgroups are needed. `start DIR` prints SLURM_CONF=DIR/slurm.conf once the node is idle (exit 0),
# or why the daemons cannot run here (exit 3: the test skips, printing it); `stop DIR` ends them.
set -u
cmd=${1:-}; dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }

stop() {
  for f in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munge/pid"; do
    [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null
  done
  sleep 0.5
  for f in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munge/pid"; do
    [ -f "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null
  done
  return 0
}

skip() { echo "cannot start a Slurm cluster here: $*"; stop; exit 3; }

if [ "$cmd" = stop ]; then stop; exit 0; fi
[ "$cmd" = start ] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }

for b in munged slurmctld slurmd srun sinfo; do
  command -v "$b" >/dev/null || skip "$b is not installed (scripts/deps.sh installs slurmd, slurmctld, slurm-client and munge)"
done
[ "$(id -u)" = 0 ] || skip "slurmd must run as root to start job steps"

mkdir -p "$dir/munge" "$dir/state" "$dir/spool" || skip "cannot create $dir"
chmod 700 "$dir/munge"
head -c 1024 /dev/urandom > "$dir/munge/munge.key" && chmod 600 "$dir/munge/munge.key"
# --force: as root, and with the socket in a private folder.
munged -f --socket="$dir/munge/sock" --key-file="$dir/munge/munge.key" --log-file="$dir/munge/log" \
  --pid-file="$dir/munge/pid" --seed-file="$dir/munge/seed" >"$dir/munge/out" 2>&1 ||
  skip "munged did not start: $(tail -n 2 "$dir/munge/out" "$dir/munge/log" 2>/dev/null | tr '\n' ' ')"

# Free ports for the controller and the node daemon.
free_port() {
  local p
  for _ in $(seq 50); do
    p=$((20000 + RANDOM % 20000))
    ss -Htln "sport = :$p" 2>/dev/null | grep -q . || { echo "$p"; return; }
  done
  echo 0
}
host=$(hostname -s)
cat >"$dir/slurm.conf" <<CONF
ClusterName=seatmarktest
SlurmctldHost=$host
AuthType=auth/munge
AuthInfo=socket=$dir/munge/sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/linear
MpiDefault=none
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SlurmdParameters=config_overrides
InactiveLimit=0
KillWait=5
NodeName=$host NodeAddr=127.0.0.1 CPUs=4 State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
export SLURM_CONF="$dir/slurm.conf"
slurmctld -f "$SLURM_CONF" >"$dir/slurmctld.out" 2>&1 || skip "slurmctld did not start: $(tail -n 3 "$dir/slurmctld.out" "$dir/slurmctld.log" 2>/dev/null | tr '\n' ' ')"
slurmd -f "$SLURM_CONF" >"$dir/slurmd.out" 2>&1 || skip "slurmd did not start: $(tail -n 3 "$dir/slurmd.out" "$dir/slurmd.log" 2>/dev/null | tr '\n' ' ')"
for _ in $(seq 60); do
  state=$(sinfo -h -o %t 2>/dev/null)
  if [ "$state" = idle ]; then echo "SLURM_CONF=$SLURM_CONF"; exit 0; fi
  sleep 0.5
done
skip "the node did not become idle within 30 s (state '${state:-none}'): $(tail -n 3 "$dir/slurmd.log" "$dir/slurmctld.log" 2>/dev/null | tr '\n' ' ')"
