#!/bin/bash
# envdoctor for Slurm, as HealthCheckProgram or Prolog (slurm.conf, on every node):
#   HealthCheckProgram=/etc/slurm/envdoctor-slurm-check.sh   HealthCheckInterval=300
#   Prolog=/etc/slurm/envdoctor-slurm-check.sh
# slurmd runs it as root. A HealthCheckProgram must act itself (slurmd ignores its status), so
# when a finding fails (envdoctor exit 1) this drains the node with envdoctor's one-line reason,
# and once the check passes again it resumes a node that it drained (its reason starts with
# "envdoctor:"; other reasons, NHC's "NHC: ..." or an operator's, are left alone). As a Prolog
# (SLURM_JOB_ID is set) it also exits 1 after draining: Slurm then does not start the job there
# (a batch job is requeued) and keeps the reason. A check that cannot run (exit 2, bad input;
# 3, internal error) drains nothing and says why on stderr: a broken policy file must not
# drain the whole cluster. Arguments go to `envdoctor check` [default: --static]; ENVDOCTOR
# names the executable. Slurm runs prologs with no search path of its own, hence PATH.
set -u
export PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin${PATH:+:$PATH}"
[ "$#" -gt 0 ] || set -- --static
node="${SLURMD_NODENAME:-$(hostname -s)}"
rc=0
reason="$("${ENVDOCTOR:-envdoctor}" check "$@" --format nhc)" || rc=$?
case "$rc" in
    0)  current="$(scontrol show node "$node" 2>/dev/null | sed -n 's/^ *Reason=//p')"
        case "$current" in
            envdoctor:*) scontrol update nodename="$node" state=resume ;;
        esac ;;
    1)  scontrol update nodename="$node" state=drain reason="$reason"
        [ -z "${SLURM_JOB_ID:-}" ] || exit 1 ;;
    *)  echo "envdoctor-slurm-check: envdoctor check exited $rc; $node left as it is" >&2 ;;
esac
exit 0
