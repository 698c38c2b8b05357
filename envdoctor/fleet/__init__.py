"""Fleet mode: check a cluster as its training job will see it, through torch.distributed.

``envdoctor fleet`` runs as every rank under the job's own launcher (torchrun, srun, mpirun …):

    layout      which launcher, which rank, which node (from the launcher's environment)
    rank_probe  the rank's own view: GPU binding, NCCL/gloo variables, torch smoke
    node_probe  per node (local rank 0): IB ports, NCCL net plugin, NVML extras, XIDs
    collective  gloo rendezvous, monitored barrier and JSON gather, bounded in time
    bench       opt-in: exact all-reduce, bus bandwidth sweep, matmul TFLOP/s, NCCL transport
    model       the fleet as rank 0 sees it; also built from saved snapshots (``fleet compare``)
    aspects     named values per node / rank that the rules in rules/fleet/ judge
    rules       drift, duplicates, outliers and predicates, loaded from rules/fleet/*.toml
    report      findings per node and rank -> one Report (JSON, JUnit, SARIF via renderers)

torch is imported only in a rank (collective, rank_probe, bench): it is the job's dependency,
never envdoctor's. ``fleet compare`` needs no torch at all.
"""
