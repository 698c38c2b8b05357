"""A hit found only in a traceback's frames is "low" (a paste cut before its last line), unless
the signature keeps it only where the text states a fact (a context with ``absent`` regexes and
``drop``) and that fact is there: the stated fact is evidence of its own, so the hit stays
"medium" and `check --from` keeps it (rank._gate_held)."""

from __future__ import annotations

from envdoctor.explain import diagnose_text, primary
from envdoctor.live.parse import text_causes

FRAMES = '''Traceback (most recent call last):
  File "D:\\proj\\detect.py", line 12, in <module>
    results = model.predict(source, device=0)
  File "D:\\proj\\venv\\lib\\site-packages\\ultralytics\\engine\\model.py", line 430, in predict
    self.predictor.setup_model(model=self.model, verbose=is_cli)
  File "D:\\proj\\venv\\lib\\site-packages\\ultralytics\\engine\\predictor.py", line 300, in setup_model
    device=select_device(self.args.device, verbose=verbose),
  File "D:\\proj\\venv\\lib\\site-packages\\ultralytics\\utils\\torch_utils.py", line 119, in select_device
'''


def test_cut_select_device_frames_under_a_cpu_torch_banner_are_kept_at_medium():
    text = "Ultralytics YOLOv8.1.0 Python-3.10.11 torch-2.1.2+cpu\n" + FRAMES
    first = primary(diagnose_text(text))
    assert first is not None and first.code == "ETORCH006"
    assert first.confidence == "medium"
    assert [c.code for c in text_causes(text)] == ["ETORCH006"]


def test_the_same_frames_under_a_cuda_build_name_nothing():
    text = ("Ultralytics YOLOv8.1.0 Python-3.10.11 torch-2.1.2+cu121 CUDA:0 "
            "(NVIDIA GeForce RTX 3060, 12288MiB)\n" + FRAMES)
    assert all(d.code != "ETORCH006" for d in diagnose_text(text))
    assert not text_causes(text)


def test_frames_only_without_a_gate_stay_low():
    # no stated build: nothing says why the device choice failed
    assert not text_causes(FRAMES)
