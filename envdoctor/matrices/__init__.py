"""The compatibility matrices of ``rules/matrices`` and their typed look-ups.

Knowledge is data: which driver a CUDA release needs, which GPUs a build runs on, which
distributions a framework ships as. This package is the one place that reads those tables;
``engine`` (checks), ``suggest`` (install planning), ``parsers`` and ``probes`` import it, and
it imports none of them. ``check`` validates the tables themselves (`rules test`).
"""
