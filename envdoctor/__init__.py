"""envdoctor: tells a deep-learning engineer whether a machine can train, and why not.

Data flows one way: probes -> facts -> rules -> findings -> renderers.
"""

__version__ = "0.1.0"
