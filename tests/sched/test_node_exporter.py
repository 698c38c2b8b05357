"""``check --format prometheus -o DIR/envdoctor.prom`` read by a real node exporter (Debian
``prometheus-node-exporter``, started here on 127.0.0.1 with only the textfile collector): our
series appear in /metrics and the collector reports no scrape error; a file it cannot parse
does raise that error, so the assertion can fail."""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import time
import urllib.request

import pytest

from tests.conftest import run_cli
from tests.sched.conftest import BROKEN

EXPORTER = shutil.which("prometheus-node-exporter") or shutil.which("node_exporter")
pytestmark = [pytest.mark.node_exporter, pytest.mark.skipif(
    EXPORTER is None, reason="prometheus-node-exporter not installed "
                             "(apt-get install -y prometheus-node-exporter; .ci/run does)")]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def exporter(tmp_path):
    textfiles = tmp_path / "textfile"
    textfiles.mkdir()
    port = _free_port()
    assert EXPORTER is not None
    proc = subprocess.Popen([EXPORTER, "--collector.disable-defaults", "--collector.textfile",
                             f"--collector.textfile.directory={textfiles}",
                             f"--web.listen-address=127.0.0.1:{port}"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}/metrics"
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                urllib.request.urlopen(url, timeout=2).read()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"node exporter did not start: "
                                         f"{proc.stderr.read().decode() if proc.stderr else ''}"
                                         ) from None
                time.sleep(0.2)
        yield textfiles, url
    finally:
        proc.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=10)
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _scrape(url: str) -> dict[str, list]:
    from prometheus_client.parser import text_string_to_metric_families
    body = urllib.request.urlopen(url, timeout=10).read().decode()
    return {f.name: f.samples for f in text_string_to_metric_families(body)}


def _only(samples, **labels) -> float:
    found = [s.value for s in samples if all(s.labels.get(k) == v for k, v in labels.items())]
    assert len(found) == 1, (labels, samples)
    return found[0]


def test_node_exporter_serves_envdoctor_metrics(exporter):
    textfiles, url = exporter
    prom = textfiles / "envdoctor.prom"
    r = run_cli("check", "--facts", str(BROKEN), "--format", "prometheus", "-o", str(prom))
    assert r.returncode == 1, r.stderr
    fam = _scrape(url)
    assert _only(fam["node_textfile_scrape_error"]) == 0
    assert _only(fam["envdoctor_check_ok"]) == 0
    assert _only(fam["envdoctor_finding"], code="DRV001", severity="error") == 1
    assert _only(fam["envdoctor_gpu_count"]) == 4
    assert _only(fam["node_textfile_mtime_seconds"], file=str(prom)) > 0
    # this machine, live, replacing the file in place (a temp file beside it, then rename)
    r = run_cli("check", "--static", "--format", "prometheus", "-o", str(prom))
    assert r.returncode in (0, 1), r.stderr
    assert sorted(p.name for p in textfiles.iterdir()) == ["envdoctor.prom"]
    fam = _scrape(url)
    assert _only(fam["node_textfile_scrape_error"]) == 0
    assert _only(fam["envdoctor_check_ok"]) == (1 if r.returncode == 0 else 0)


def test_a_file_the_collector_cannot_parse_is_a_scrape_error(exporter):
    textfiles, url = exporter
    run_cli("check", "--facts", str(BROKEN), "--format", "prometheus",
            "-o", str(textfiles / "envdoctor.prom"))
    (textfiles / "bad.prom").write_text('envdoctor_bad{v="\\x1b"} 1\n')  # a bad escape
    assert _only(_scrape(url)["node_textfile_scrape_error"]) == 1
