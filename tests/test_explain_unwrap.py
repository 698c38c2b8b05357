"""A terminal's hard wrap is undone when the text as given explains nothing."""

from __future__ import annotations

import io
import json

from envdoctor.explain import diagnose_stream, diagnose_text, primary
from envdoctor.explain.unwrap import unwrap, wrap_width

# a real line (https://github.com/Project-OSRM/node-osrm README) and a real nvidia-smi header
GLIBCXX = ("Error: /usr/lib/x86_64-linux-gnu/libstdc++.so.6: version GLIBCXX_3.4.20 not found "
           "(required by /node_modules/osrm/lib/binding/osrm.node)")
SMI = ("+-----------------------------------------------------------------------------+\n"
       "| NVIDIA-SMI 535.54.03    Driver Version: 535.54.03    CUDA Version: 12.2     |\n"
       "|-------------------------------+----------------------+----------------------+\n")


def _cut(line: str, width: int) -> str:
    return "\n".join(line[i:i + width] for i in range(0, len(line), width)) + "\n"


def test_a_line_cut_at_the_terminal_width_is_read_whole():
    wrapped = "npm test\n" + _cut(GLIBCXX, 60)
    cut = io.BytesIO(wrapped.encode())
    assert not primary(diagnose_stream(cut)[1])  # as given, no line holds the whole message
    assert wrap_width(wrapped) == 60
    assert unwrap(wrapped, 60).splitlines()[1] == GLIBCXX
    assert primary(diagnose_text(wrapped)).code == "ESYS010"


def test_ordinary_texts_and_tables_are_not_wrapped():
    assert wrap_width(GLIBCXX + "\n" + "short line\n") is None
    assert unwrap(SMI, 79) == SMI  # table rows keep their breaks
    plain = "loss 0.1\nloss 0.2\n"
    assert wrap_width(plain) is None and diagnose_text(plain) == []


def test_the_cli_undoes_the_wrap_too(cli, tmp_path):
    log = tmp_path / "err.txt"
    log.write_text("npm test\n" + _cut(GLIBCXX, 60))
    data = json.loads(cli("explain", "--no-facts", "--format", "json", str(log)).stdout)
    assert data["diagnoses"][0]["code"] == "ESYS010"
