"""Framework workers: the ONLY modules that import a deep-learning framework, and only in a child.

``envdoctor.live`` starts ``python -m envdoctor.workers.<name>`` per framework (in parallel,
each under a timeout). A worker imports its framework, collects live facts (devices, the cuDNN
and NCCL in use, the CUDA libraries in its own memory maps) and runs the smoke suite, then
writes ONE JSON object on stdout (anything the framework prints goes to stderr). A crash or a
hang costs that worker only; the envdoctor process never imports a framework.

Importing these modules is cheap and safe: frameworks are imported inside ``main()`` only.
"""

from __future__ import annotations

# framework name (as in Facts.live and --framework) -> worker module
WORKERS: dict[str, str] = {
    "torch": "envdoctor.workers.torch",
    "tensorflow": "envdoctor.workers.tensorflow",
    "jax": "envdoctor.workers.jax",
    "keras": "envdoctor.workers.keras",
    "paddle": "envdoctor.workers.paddle",
    "mindspore": "envdoctor.workers.mindspore",
    "mxnet": "envdoctor.workers.mxnet",
}
PROTOCOL = 1
