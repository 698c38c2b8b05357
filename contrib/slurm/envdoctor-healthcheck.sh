#!/bin/bash
# Slurm HealthCheckProgram (slurm.conf: HealthCheckProgram=/etc/slurm/envdoctor-healthcheck.sh,
# HealthCheckInterval=300). slurmd runs it as root on every node and takes no action itself, so
# the program drains the node: with envdoctor's one-line reason when a finding fails (exit 1),
# and resumes a node that it drained once the check passes again (as NHC does with its "NHC:"
# notes). A check that cannot run (exit 2, bad input; 3, internal error) leaves the node as it
# is and says why on stderr: a broken policy file must not drain the whole cluster.
# Arguments go to `envdoctor check` [default: --static]; ENVDOCTOR names the executable.
set -u
[ "$#" -gt 0 ] || set -- --static
node="${SLURMD_NODENAME:-$(hostname -s)}"
rc=0
reason="$("${ENVDOCTOR:-envdoctor}" check "$@" --format nhc)" || rc=$?
case "$rc" in
    0)  # healthy: undo only a drain this program set (its reason starts with "envdoctor:")
        current="$(scontrol show node "$node" 2>/dev/null | sed -n 's/^ *Reason=//p')"
        case "$current" in
            envdoctor:*) scontrol update nodename="$node" state=resume ;;
        esac ;;
    1)  scontrol update nodename="$node" state=drain reason="$reason" ;;
    *)  echo "envdoctor-healthcheck: envdoctor check exited $rc; $node left as it is" >&2 ;;
esac
exit 0
