"""The *reduced* form of text that the scanner searches its anchors in.

ASCII lower-cased, with digits and the separators that fill training logs (``DROP``) deleted:
timestamps, losses, paths and progress bars are most of a log's bytes and say little about an
error. The scanner reduces every block once (one C-level ``bytes.translate``) and searches
anchors in it; the signature loader scores prefilter literals by their reduced length, since a
literal whose reduced form is short ('--gpu' -> 'gpu') is an anchor almost every line holds.
"""

from __future__ import annotations

_BYTES_LOWER = bytes.maketrans(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ", b"abcdefghijklmnopqrstuvwxyz")
# Deleted before searching. Never "\n" (lines stay lines).
DROP = b"0123456789#:.-/=[]|_,%<> "


def reduce_bytes(data: bytes) -> bytes:
    """ASCII lower-case and delete ``DROP``: the text the anchors are searched in."""
    return data.translate(_BYTES_LOWER, DROP)


def reduce_text(text: str) -> str:
    """``reduce_bytes`` of a literal or line, as a str of bytes (latin-1) for ``choose_anchors``."""
    return reduce_bytes(text.encode("utf-8", "surrogatepass")).decode("latin-1")


def reduced_len(text: str) -> int:
    """Bytes of ``text`` left once reduced: how selective it is as an anchor."""
    return len(reduce_bytes(text.encode("utf-8", "surrogatepass")))


# Lines that fill healthy training logs (shapes of real TensorFlow, PyTorch/Lightning,
# Hugging Face, tqdm, pip, NCCL INFO and nvidia-smi output). They dominate a big log, so an
# anchor that occurs in them costs the most; they count HEALTHY_WEIGHT times.
HEALTHY_LINES = (
    "2024-05-01 12:00:00.123456: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1928] "
    "Created device /job:localhost/replica:0/task:0/device:GPU:0 with 22292 MB memory:  -> "
    "device: 0, name: NVIDIA A10G, pci bus id: 0000:00:1e.0, compute capability: 8.6",
    "I0501 12:00:00.123456 140 cuda_executor.cc:1015] successful cuda device initialisation",
    "Epoch 3/10: 100%|##########| 1563/1563 [02:11<00:00, 11.9it/s, loss=0.231, v_num=0]",
    "{'loss': 0.4312, 'grad_norm': 1.234, 'learning_rate': 4.9e-05, 'epoch': 0.12}",
    "[2024-05-01 12:00:00,123] [INFO] [trainer.py:1234] Loading model from checkpoint; "
    "step 1200/50000 train_loss=2.318 eval_loss=2.402 tokens/s=18234",
    "Using device: cuda:0. Loading weights from /data/model.safetensors (to device)",
    "GPU available: True (cuda), used: True. TPU available: False, using: 0 TPU cores",
    "LOCAL_RANK: 0 - CUDA_VISIBLE_DEVICES: [0,1,2,3,4,5,6,7]",
    "node0:123:456 [0] NCCL INFO Channel 00/02 :    0   1   2   3   4   5   6   7",
    "node0:123:456 [0] NCCL INFO Connected all rings, comm 0x55d0 rank 0 nranks 8 cudaDev 0",
    "Downloading torch-2.3.0-cp311-cp311-manylinux1_x86_64.whl (779.1 MB) - Successfully "
    "installed nvidia-cudnn-cu12-8.9.2.26 nvidia-cublas-cu12-12.1.3.1 torch-2.3.0",
    "Requirement already satisfied: numpy>=1.17 in ./venv/lib/python3.11/site-packages",
    "|   0  NVIDIA A100-SXM4-80GB          On  | 00000000:07:00.0 Off |                    0 |",
    "Validation: the model is being evaluated on the test set; saving to the output dir",
    "***** Running training *****  Num examples = 50000  Num Epochs = 3  Instantaneous batch "
    "size per device = 8  Total train batch size (w. parallel, distributed & accumulation) = "
    "64  Gradient Accumulation steps = 1  Total optimization steps = 18750",
)
HEALTHY_WEIGHT = 20


_ORDINARY: tuple[str, ...] = ()


def ordinary(text: str) -> bool:
    """Does ``text``, reduced, occur in a line of a healthy training log (``HEALTHY_LINES``)?
    Such a literal ('site-packages', 'cuda_visible_devices') would send ordinary lines to the
    regexes, so the loader prefers any other required literal of the pattern."""
    global _ORDINARY
    if not _ORDINARY:
        _ORDINARY = tuple(reduce_text(line) for line in HEALTHY_LINES)
    red = reduce_text(text)
    return any(red in line for line in _ORDINARY)
