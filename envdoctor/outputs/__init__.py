"""What leaves envdoctor: the frozen report, redaction, summary lines and renderers."""
