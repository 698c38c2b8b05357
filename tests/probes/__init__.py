"""Probe tests: recorded real outputs, failure modes, fake site-packages trees."""
