"""What a credential looks like, in one place for the env probe and for output redaction.

Kept free of other envdoctor imports: `explain` redacts its output and must not pay for the
probes package (and `envdoctor.facts`) just to learn these patterns.
"""

from __future__ import annotations

import re

SECRET_NAME = re.compile(r"TOKEN|SECRET|PASSW|CREDENTIAL|API_?KEY|ACCESS_?KEY|PRIVATE|AUTH",
                         re.IGNORECASE)
SECRET_VALUE = re.compile(
    r"\b(hf_[A-Za-z0-9]{20,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,}|AKIA[0-9A-Z]{16}"
    r"|sk-[A-Za-z0-9_-]{20,}|xox[abpr]-[A-Za-z0-9-]{10,}|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]+)"
    r"|://[^/\s:@]+:[^/\s@]+@")
REDACTED = "<redacted>"
