"""One vocabulary for the ``Key: value`` lines of issue templates and ``transformers env``.

TensorFlow's template ("TensorFlow version (use command below): 2.1.0", "### CUDA/cuDNN
version"), Hugging Face's ``transformers env`` / ``accelerate env`` ("PyTorch version (GPU?):
2.1.0+cu121 (True)") and hand-written "System info" blocks all name the same things in
slightly different words. ``apply`` maps one key and its value onto partial facts; keys it
does not know are ignored. Values such as "<fill in>" or "N/A" mean nothing was said.
"""

from __future__ import annotations

import re

from envdoctor.facts import Gpu
from envdoctor.parsers._common import add_cudnn, os_fields, python_fields
from envdoctor.parsers._partial import Partial
from envdoctor.parsers._text import mib, missing, plain, ver
from envdoctor.parsers.gpus import cc_of, clean_name

_TRAILING_BOOL = re.compile(r"\(\s*(True|False|Yes|No|CUDA|cuda|cpu|gpu|tpu|MPS|mps|XPU|"
                            r"NPU|ROCm|HIP)\s*\)\s*$")
_GPUISH = re.compile(r"nvidia|geforce|tesla|quadro|titan|rtx|gtx|\b[ahlvbt]\d{1,3}\b|"
                     r"a100|h100|h200|l40|jetson", re.IGNORECASE)
_VERSIONED = {  # key pattern -> distribution name
    r"`?transformers`? version": "transformers", r"`?accelerate`? version": "accelerate",
    r"huggingface_hub version": "huggingface-hub", r"safetensors version": "safetensors",
    r"deepspeed version": "deepspeed", r"numpy version": "numpy", r"flax version": "flax",
    r"`?diffusers`? version": "diffusers", r"`?peft`? version": "peft",
    r"`?datasets`? version": "datasets", r"`?trl`? version": "trl",
    r"bitsandbytes version": "bitsandbytes", r"xformers version": "xformers",
    r"triton version": "triton", r"torchvision version": "torchvision",
    r"torchaudio version": "torchaudio", r"scipy version": "scipy",
    r"`?vllm`? version": "vllm", r"onnxruntime version": "onnxruntime",
}


def apply(part: Partial, key: str, value: str) -> bool:
    """Map one ``key: value``; True when the key was understood."""
    k = plain(key).lower().strip(" -*:")
    k = re.sub(r"\s+", " ", k)
    raw = value.strip()
    v = plain(raw)
    if not k:
        return False
    if re.fullmatch(r"(?:os platform(?: and distribution)?|platform|os|operating system|"
                    r"os version|system|os/platform)(?: \(.*\))?", k):
        os_fields(part, v)
        return True
    # `python -m xformers.info`: "pytorch.version: 2.0.1+cu118", "pytorch.cuda: available",
    # "gpu.name: Tesla P100-PCIE"
    if k in ("pytorch.version", "build.torch_version"):
        _framework(part, "torch", v, k)
        return True
    if k == "pytorch.cuda":
        if v.lower() in ("available", "not available"):
            part.observe("torch", "cuda_available", v.lower() == "available")
        return True
    if k == "gpu.name":
        _gpu(part, v)
        return True
    if re.fullmatch(r"wsl ?2?(?: version)?", k):  # "WSL2: Ubuntu 22.04.2 LTS"
        if not missing(v):
            part.set("host.wsl", 1 if k.strip().endswith("1") else 2)
        return True
    if re.fullmatch(r"python(?: version)?(?: \(.*\))?", k):
        python_fields(part, v)
        return True
    if re.match(r"(?:py)?torch version|pytorch(?: \(.*\))?$", k):
        _framework(part, "torch", v, k)
        return True
    if re.match(r"tensorflow(?: version)?|tf version", k):
        _framework(part, "tensorflow", v, k)
        return True
    if re.fullmatch(r"jax(?: version)?", k):
        if v.lower().startswith("not installed"):
            part.set("frameworks.jax", False)  # stated: not installed
        part.set("frameworks.jax.version", None if missing(v) else ver(v))
        return True
    if re.fullmatch(r"jaxlib(?: version)?", k):
        part.set("frameworks.jax.jaxlib", None if missing(v) else ver(v))
        return True
    if re.fullmatch(r"keras(?: version)?", k):
        if not missing(v):
            part.package("keras", ver(v))
        return True
    for pattern, dist in _VERSIONED.items():
        if re.fullmatch(pattern + r"(?: \(.*\))?", k):
            if not missing(v) and ver(v) is not None:
                part.package(dist, ver(v))
            return True
    if re.fullmatch(r"cuda/cudnn versions?|cuda ?/ ?cudnn versions?", k):
        _cuda_cudnn(part, v)
        return True
    if re.fullmatch(r"(?:installed )?cuda(?: toolkit)?(?: runtime)? version|cuda", k):
        if not missing(v):
            part.set("cuda.toolkit_version", _cuda_ver(v))
        return True
    if re.fullmatch(r"cudnn(?: version)?", k):
        if not missing(v):
            add_cudnn(part, v)
        return True
    if re.fullmatch(r"(?:nvidia |cuda )?driver(?: version)?|nvidia driver", k):
        if not missing(v) and (driver := ver(v)) is not None and driver.major >= 100:
            part.set("nvidia.driver_version", driver)
        return True
    m = re.fullmatch(r"gpu ((?:\d+,)+\d+)", k)  # sglang's check_env: "GPU 0,1,2,3: NVIDIA H20"
    if m:
        for _ in m.group(1).split(",")[:64]:
            _gpu(part, v)
        return True
    if re.fullmatch(r"gpu(?: model)?(?: and memory)?|gpu type|gpu models?|gpu name|gpus?|gpu \d+|"
                    r"graphics card|video ?card|grafikkarte|显卡|accelerator|"
                    r"hardware(?: accelerator)?", k):
        _gpu(part, v)
        return True
    if re.fullmatch(r"rocm(?: version)?", k):  # "ROCm version: 6.1.2", "| ROCm | 4.1.1 |",
        # an issue form's "### ROCm Version" / "ROCm 6.1.0"; one release only ("ROCm 6.0.0,
        # ROCm 5.7.1" names several, "NOT APPLICABLE" none)
        m = re.fullmatch(r"(?i)(?:rocm ?)?v?(\d\.\d{1,2}(?:\.\d{1,3})?)(?:-\d{1,6})?", v.strip())
        if m:
            part.set("rocm.version", ver(m.group(1)))
        return True
    if re.fullmatch(r"tensorflow installed from|installed from|source", k):
        return True
    return False


def _framework(part: Partial, name: str, v: str, key: str) -> None:
    flag = _TRAILING_BOOL.search(v)
    value = _TRAILING_BOOL.sub("", v).strip() if flag else v
    if value.lower().startswith("not installed"):
        part.observe(name, "import", "not installed")
        part.set(f"frameworks.{name}", False)  # stated: not installed
        return
    if missing(value):
        return
    m = re.search(r"(tensorflow(?:[_-](?:intel|cpu|gpu|macos|rocm|aarch64))?|tf[_-]nightly"
                  r"(?:[_-](?:cpu|gpu))?)-(\d[\w.+]*?)-(cp\d+)-", value, re.IGNORECASE)
    if name == "tensorflow" and m:  # a wheel file name: tensorflow_intel-2.18.0-cp312-...
        part.set("frameworks.tensorflow.distribution", m.group(1).lower().replace("_", "-"))
        part.set("frameworks.tensorflow.version", ver(m.group(2)))
        _wheel_python(part, m.group(3), value)
    else:
        value = re.sub(r"^(?:tf|v|torch|tensorflow)\s*-?", "", value, flags=re.IGNORECASE)
        version = ver(value)
        if version is None or version.major > 50:
            return
        part.set(f"frameworks.{name}.version", version)
        if name == "tensorflow" and ("gpu" in v.lower().split(version.base_version)[0] or
                                     re.search(r"\d\s+gpu\b", value, re.IGNORECASE)):
            # "tensorflow-gpu 1.15", or the template's "TensorFlow version: 2.0 GPU"
            part.set("frameworks.tensorflow.distribution", "tensorflow-gpu")
    if flag:
        word = flag.group(1).lower()
        gpu = {"true": True, "yes": True, "false": False, "no": False, "cuda": True,
               "gpu": True, "cpu": False, "rocm": True, "hip": True}.get(word)
        if gpu is not None:
            part.observe(name, "gpu_available" if name != "torch" else "cuda_available", gpu)


def _wheel_python(part: Partial, tag: str, text: str) -> None:
    m = re.match(r"cp(\d)(\d+)", tag)
    if m:
        part.set("host.python_version", ver(f"{m.group(1)}.{m.group(2)}"))
    low = text.lower()
    if "win_amd64" in low or "win32" in low:
        part.set("host.os", "Windows")
    elif "manylinux" in low or "linux_" in low:
        part.set("host.os", "Linux")
    elif "macosx" in low:
        part.set("host.os", "Darwin")


def _cuda_ver(v: str):
    m = re.search(r"(?:cuda\s*v?|v)?(\d{1,2}\.\d)(?:\.\d+)*", v, re.IGNORECASE)
    return ver(m.group(0).lower().lstrip("cudav ")) if m else None


def _cuda_cudnn(part: Partial, v: str) -> None:
    """ "CUDA v11.2, cudnn-11.2-windows-x64-v8.1.0.77", "11.2/8.1", "10.2.89", "cuda 12.1, cudnn 8.9"."""
    if missing(v):
        return
    m = re.search(r"cudnn[^\d]*(?:\d+\.\d+-[\w-]*?-v)?(\d+(?:\.\d+){0,3})", v, re.IGNORECASE)
    if m:
        add_cudnn(part, m.group(1))
    head = re.split(r"cudnn", v, flags=re.IGNORECASE)[0]
    parts = re.split(r"\s*[/,]\s*|\s+and\s+", head)
    cuda = _cuda_ver(parts[0]) if parts and parts[0] else None
    if cuda is not None and cuda.major >= 7:
        part.set("cuda.toolkit_version", cuda)
    if not m and len(parts) > 1 and re.fullmatch(r"v?\d+(?:\.\d+){0,3}", parts[1].strip()):
        add_cudnn(part, parts[1].strip().lstrip("v"))


# an AMD GPU as a form's GPU field names it: "AMD Instinct MI210", "AMD Radeon RX 6600"
_AMD_NAMED = re.compile(r"^(?:AMD )?(?:Radeon(?: Pro| PRO)? |Instinct )?(?:RX ?\d{3,4}(?: ?XTX| ?XT| ?GRE)?|"
                        r"MI\d{2,3}[AXH]?|W\d{4}|VII)$", re.IGNORECASE)


def _amd_gpus(part: Partial, v: str) -> None:
    """The AMD GPUs a GPU field lists ("AMD Instinct MI210, AMD Radeon RX 6600"), each with the
    gfx target AMD's tables give its name ("" when they give none), as rocminfo's agents."""
    names = [n.strip() for n in re.split(r"\s*[,;/]\s*|\s+and\s+|\n", v) if n.strip()]
    if not names or not all(_AMD_NAMED.match(n) for n in names):
        return
    from envdoctor.matrices.rocm import gfx_rows, target_of_name
    listed = []
    for name in names[:16]:
        full = name if name.lower().startswith("amd") else f"AMD {name}"
        gfx = next((str(r.get("target", "")) for r in gfx_rows()
                    if full.lower() in (g.lower() for g in r.get("gpus", []))), "")
        listed.append((full, gfx or target_of_name(full) or ""))
    part.set("rocm.gpus", tuple(listed))


def _gpu(part: Partial, v: str) -> None:
    if missing(v) or v.lower() in ("none", "no gpu", "cpu", "cpu only"):
        return
    _amd_gpus(part, v)
    for chunk in re.split(r"\s*;\s*|\s+and\s+|\n", v):
        name = re.split(r",|\s+-\s+|\s\(", chunk)[0].strip()
        name = re.sub(r"\s*\d+\s*x\s*$|^\d+\s*x\s*", "", name, flags=re.IGNORECASE)
        # a memory size after a space or "(" ("RTX 3080 12GB", "T4 (16 GB)"), never the one inside
        # a model name ("A100-SXM4-80GB")
        name = re.sub(r"(?:\s+|\s*\()\(?\d+(?:\.\d+)?\s*(?:GB|GiB|G|MB|MiB)\b.*$", "", name,
                      flags=re.IGNORECASE)
        bare = re.match(r"^(?:(1[06][5-8]0)|([2-5]0[5-9]0))(\s*ti)?\b", name, re.IGNORECASE)
        if bare:  # "4060 Laptop", "1080 Ti": a GeForce model number without its prefix
            name = ("GeForce GTX " if bare.group(1) else "GeForce RTX ") + name
        if not name or not (_GPUISH.search(name) or cc_of(name) is not None):
            continue
        if re.search(r"amd|radeon|intel|apple|m1|m2|m3|mps|tpu", name, re.IGNORECASE):
            continue
        part.gpus.append(Gpu(index=len(part.gpus), name=clean_name(name),
                             memory_total_mb=mib(chunk)))
