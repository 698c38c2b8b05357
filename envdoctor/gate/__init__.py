"""The pre-training gate: requirements and policy."""
