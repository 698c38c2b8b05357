"""Facts people paste without a tool: ``print(torch.__version__)`` and its answer, ``torch:
2.5.1+cu124`` lines, ``pip install torch==…`` commands, and the warnings frameworks print
about the GPU ("NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the
current PyTorch installation. The current PyTorch install supports CUDA capabilities sm_50 …",
"Found GPU0 … which is of cuda capability 6.1", "A module that was compiled using NumPy 1.x
cannot be run in NumPy 2.0.0"). Lowest rank: any tool output beats these.
"""

from __future__ import annotations

import re
from dataclasses import replace

from envdoctor.facts import Gpu
from envdoctor.parsers._partial import Partial
from envdoctor.parsers._text import mib, missing, plain, to_bool, ver
from envdoctor.parsers.gpus import cc_of, clean_name

NAME = "informal"
RANK = 10

_V = r"(\d+\.\d+(?:\.\d+)?(?:[.\w]*?)(?:\+[\w.]+)?)"
_PRINTS = (  # (expression, fact key or observation)
    (r"torch\.__version__", "frameworks.torch.version"),
    (r"torch\.version\.cuda", "frameworks.torch.cuda"),
    (r"tf\.__version__|tensorflow\.__version__", "frameworks.tensorflow.version"),
    (r"jax\.__version__", "frameworks.jax.version"),
    (r"jaxlib\.__version__|jaxlib\.version\.__version__", "frameworks.jax.jaxlib"),
    (r"np\.__version__|numpy\.__version__", "pkg:numpy"),
    (r"keras\.__version__", "pkg:keras"),
    # "cuda.is_available() returns false": torch's call with or without its module, never
    # another package's (numba.cuda, cupy.cuda)
    (r"(?<![\w.])(?:torch\.)?cuda\.is_available\(\)", "obs:torch.cuda_available"),
    (r"tf\.test\.is_built_with_cuda\(\)", "frameworks.tensorflow.is_cuda_build"),
)
# print(a, b, c) whose arguments are plain expressions (no strings, no nested calls with commas)
_PRINT_ARGS = re.compile(r"\bprint\(([\w.() ,]{3,300})\)")


def _print_row(part: Partial, line: str, following: list[str]) -> bool:
    """``print(torch.__version__, torch.version.cuda, torch.cuda.is_available())`` answered on
    the next line (``2.1.0+cu121 12.1 False``), or ``print(a); print(b)`` answered one line
    each: each value to its own expression, by position, when the counts agree; False
    (nothing read) otherwise."""
    calls = [c.group(1) for c in _PRINT_ARGS.finditer(line)]
    answers = [plain(ln.strip()) for ln in following if ln.strip()]
    if not calls or not answers:
        return False
    if len(calls) == 1:  # print(a, b, c): one line, values in argument order
        args = [a.strip() for a in calls[0].split(",")]
        values = answers[0].split()
    else:  # print(a); print(b): one line each
        args = [c.strip() for c in calls]
        values = answers[:len(calls)]
        if any("," in a for a in args) or any(len(v.split()) != 1 for v in values):
            return False
    if len(args) < 2 or len(values) != len(args):
        return False
    keys = []
    for arg in args:
        key = next((k for expr, k in _PRINTS if re.fullmatch(expr, arg)), None)
        keys.append(key)
    if not any(keys):
        return False
    for key, value in zip(keys, values, strict=True):
        if key is None:
            continue
        if key.startswith("obs:") or key.endswith("is_cuda_build"):
            b = to_bool(value) if re.fullmatch(r"(?:true|false)", value, re.IGNORECASE) else None
            if b is not None and key.startswith("obs:"):
                part.observe("torch", "cuda_available", b)
            elif b is not None:
                part.set(key, b)
        elif key.endswith("torch.cuda") and value.lower() == "none":
            part.set("frameworks.torch.cpu_only", True)
        elif re.fullmatch(_V, value):
            _put(part, key, value)
    return True


_KEYED = re.compile(r"^\s*(?:[-*]\s+)?(torch|pytorch|torch\.cuda|cuda_available|gpu|tensorflow|"
                    r"jax|jaxlib|numpy|torchvision|torchaudio|video ?card|graphics card|显卡|"
                    # the GPU packages env blocks list as "name: version" (sglang's check_env,
                    # vLLM's and diffusers' env reports): what GPU floors and pairs are read from
                    r"flash[_-]attn|vllm|flashinfer(?:-python)?|xformers|bitsandbytes|triton|"
                    r"deepspeed|sglang)"
                    r"\s*[:=：]\s*(\S.*)$", re.IGNORECASE)
_INSTALL = re.compile(r"\b(?:pip3?|uv pip|python -m pip)\s+install\b(.*)$", re.IGNORECASE)
# starts only at the start of a token (lookbehind): from inside a long token the name would
# be rescanned from every character
_PIN = re.compile(r"(?<![\w.-])[\"']?([A-Za-z0-9][\w.-]*)(?:\[[^\]]*\])?==([^\s\"',;]+)")
# a line that is nothing but pins ("jax==0.3.17 and jaxlib==0.3.14", "`torch==2.1.0`, `torchvision
# ==0.16.0`"): an issue form's version answer. A sentence around pins ("I downgraded to
# jax==0.3.14 and it worked") is not read: its versions need not be the installed ones.
_PIN_LIST_REST = re.compile(r"[\s,;&/+`'\"*>-]*(?:(?:and|with|plus)\b[\s,;&/+`'\"]*)*", re.IGNORECASE)
_SM_WARN = re.compile(r"(?:^|\s)([A-Z][\w .()-]*?) with CUDA capability sm_(\d+) is not "
                      r"compatible with the current PyTorch installation", re.MULTILINE)
_SUPPORTS = re.compile(r"current PyTorch install(?:ation)? supports CUDA capabilities ((?:(?:sm|compute)_"
                       r"\d+\w?\s*)+)")
_FOUND_GPU = re.compile(r"Found GPU(\d+)\s+(.+?)\s+which is of (?:cuda|compute) capability(?: \(CC\))? "
                        r"(\d+)\.(\d+)")
# torch's _warn_unsupported_code (torch/cuda/__init__.py, the wording after "no longer supports
# this GPU"): the CCs the build carries, one a line ("- 7.5 which supports hardware CC >=7.5,<8.0"),
# and the torch it is ("Your installed torch==2.13.0+cu129 does not include kernels for this GPU")
_BUILT_CC = re.compile(r"^[ \t>]{0,8}- (\d{1,2})\.(\d) which supports hardware CC\b", re.MULTILINE)
_NO_KERNELS_TORCH = re.compile(r"Your installed torch==(\d[\w.+]{0,40}?) does not include kernels "
                               r"for this GPU")
_MINMAX = re.compile(r"Minimum and Maximum cuda capability supported by this version of PyTorch "
                     r"is\s*\((\d+\.\d+)\)\s*-\s*\((\d+\.\d+)\)")
# torch/cuda/__init__.py's old_gpu_warn (pytorch/pytorch#56552 quotes it): "Found GPU0 X which is
# of cuda capability 3.5. PyTorch no longer supports this GPU because it is too old. The minimum
# cuda capability supported by this library is 3.7." (1.x said "that we support is 3.5")
_MIN_CC = re.compile(r"minimum cuda capability (?:that we support|supported by this library) "
                     r"is (\d+\.\d+)", re.IGNORECASE)
# the same warning before it named a minimum (0.3-1.x): "Found GPU0 GeForce GTX 960M which is
# of cuda capability 5.0.\n PyTorch no longer supports this GPU because it is too old."
_OLD_GPU = re.compile(r"Found GPU\d+\s+(.{1,60}?)\s+which is of cuda capability (\d+\.\d+)\.?\s+"
                      r"PyTorch no longer supports this GPU because it is too old")
# torch's _check_driver / c10 CUDAFunctions: "The NVIDIA driver on your system is too old (found
# version 11040)": cudaDriverGetVersion's answer, 1000*major + 10*minor (CUDA 11.4 here)
_DRIVER_OLD = re.compile(r"The NVIDIA driver on your system is too old \(found version (\d{4,6})\)")
# jax._src.xla_bridge when no CUDA backend could be made but the kernel driver lists GPUs
_JAX_CPU = re.compile(r"An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib "
                      r"is not installed\. Falling back to cpu", re.IGNORECASE)
# the CUDA that builds extensions (CUDA_HOME's nvcc) against torch.version.cuda, as
# torch.utils.cpp_extension and DeepSpeed's op builder word it when they refuse to build
_BUILD_MISMATCH = (
    re.compile(r"\b[Dd]etected CUDA version \((\d+\.\d+)[\d.]*\) mismatches the version that was "
               r"used to compile\s+PyTorch \((\d+\.\d+)[\d.]*\)"),
    re.compile(r"Installed CUDA version (\d+\.\d+)[\d.]* does not match the version torch was "
               r"compiled with (\d+\.\d+)"),
)
# the cuDNN a framework loaded against the one it was compiled with, in its own words: XLA's and
# TensorFlow's cuda_dnn.cc, and JAX's version check (8600 = 8.6.0)
_CUDNN_LOADED = re.compile(r"Loaded runtime CuDNN library: (\d+\.\d+\.\d+) (?:\(compatibility "
                           r"version \d+\) )?but source was compiled with:? (\d+\.\d+\.\d+)")
_JAX_CUDNN = re.compile(r"Found cuDNN version (\d{4,5}), but JAX was built against version "
                        r"(\d{4,5})")
# jax's own version checks, each naming both versions: jax._src.xla_bridge's plugin check
# ("JAX plugin jax_cuda12_plugin version 0.9.2 is installed, but it is not compatible with the
# installed jaxlib version 0.9.0.1") and jax/_src/lib's check_jaxlib_version
_JAX_PLUGIN_OFF = re.compile(r"JAX plugin (jax_(?:cuda|rocm)\d{1,2}_(?:plugin|pjrt)) version "
                             r"(\d+(?:\.\d+){1,3}) is installed,?\s+but it is not compatible "
                             r"with the installed jaxlib version (\d+(?:\.\d+){1,3})")
_JAXLIB_PAIR = re.compile(r"jaxlib version (\d+(?:\.\d+){1,3}) is newer than and incompatible "
                          r"with jax version (\d+(?:\.\d+){1,3})|jaxlib is version "
                          r"(\d+(?:\.\d+){1,3}), but this version of jax requires version")
# TensorFlow's own verdict when its CUDA libraries do not load (gpu_device.cc): "Cannot dlopen
# some GPU libraries ... Skipping registering GPU devices...", after one "Could not load dynamic
# library 'libcudnn.so.8'" line per missing library
_TF_SKIPPED = re.compile(r"Skipping registering GPU devices")
_TF_DLOPEN = re.compile(r"Could not load dynamic library '([\w.+-]{1,60})'")
# torch.cuda's _lazy_init on a build without CUDA
_TORCH_NO_CUDA = re.compile(r"Torch not compiled with CUDA enabled")
# the CUDA runtime a framework loaded is newer than the driver (cudaErrorInsufficientDriver)
_INSUFFICIENT = re.compile(r"CUDA driver version is insufficient for CUDA runtime version")
# torch's _cuda_init when it can see no device (CUDA_VISIBLE_DEVICES, a container without --gpus)
_TORCH_NO_GPUS = re.compile(r"RuntimeError: No CUDA GPUs are available")
_NO_DRIVER = re.compile(r"Found no NVIDIA driver on your system")
_NUMPY_ABI = re.compile(r"_ARRAY_API not found|compiled using NumPy 1\.x cannot be run")
# the NumPy ABI warning belongs to torch when torch's import is what printed it: a traceback
# through torch/__init__.py, or the line `import torch`, around the warning
_TORCH_IMPORT = re.compile(r"torch[\\/]__init__\.py|^\s*import torch\s*$|while importing torch",
                           re.MULTILINE)
_NUMPY2 = re.compile(r"cannot be run in\s+NumPy (\d+\.\d+\.\d+)")
_NO_NUMPY = re.compile(r"Failed to initialize NumPy: No module named 'numpy'")
# TensorFlow's own answer to "is there a GPU": the count the install guide prints, the device
# list (``[]`` = none), ``tf.test.is_gpu_available()``, and templates' "GPU: False".
_TF_COUNT = re.compile(r"Num GPUs Available\W{0,3}\s*(\d+)", re.IGNORECASE)
_TF_LIST = re.compile(r"list_physical_devices\(\s*(?:device_type\s*=\s*)?[\"'‘’]GPU[\"'‘’]\s*\)"
                      r"\)?\s*\)?(.*)$")
_TF_DEVICES = re.compile(r"^\W*(\[\s*\]|\[\s*PhysicalDevice\(name=.{0,20}GPU)")
_TF_LABELLED = re.compile(r"^\s*[\w ]{0,30}\bGPUs?\b[\w ]{0,20}:\s*(\[\s*\]|\[\s*PhysicalDevice\("
                          r"name=.{0,20}GPU)", re.IGNORECASE | re.MULTILINE)
# TensorFlow's failed dlopen of its CUDA libraries, told in words: "tensorflow was looking for CUDA 11
# libraries, instead of 12", "tensorflow 2.3 looking cuda 10.1" (tensorflow/tensorflow#39132), "TF
# is looking for libcudart.so.11.0": the GPU was wanted and TF did not register it
_TF_LOOKS_FOR = re.compile(r"(?i)\b(?:tensorflow|tf)(?:[ -]?(?:gpu|v?\d{1,2}(?:\.\d{1,2}){0,2}))?\s"
                           r"(?:(?:is|was|keeps|kept|still|always)\s){0,2}(?:looking|searching)\s"
                           r"(?:for\s)?(?:the\s)?(?:cuda ?\d{1,2}(?:\.\d)?\b|"
                           r"lib(?:cudart|cublas|cudnn)\w{0,8}\.so\.\d|cudart64_\d)")
# TensorFlow not seeing the GPU, said in words: "TensorFlow is not detecting the GPU"
# (tensorflow/tensorflow#70845), "tensorflow cannot detect GPU with cuda 12.8" (#88122), "I can't
# get TensorFlow to use my GPU". A GPU named after "the"/"my" may carry one word ("my nvidia GPU").
_TF_NO_GPU_SAID = re.compile(
    r"(?i)\b(?:tensorflow|tf)(?:[ -]?(?:gpu|v?\d{1,2}(?:\.\d{1,2}){0,2}))?\s(?:still\s)?"
    r"(?:does ?n[o'’]t|did ?n[o'’]t|can ?not|can[’']t|could ?n[o'’]t|is ?n[o'’]t|won[’']t|"
    r"fails? to|failed to|is unable to|unable to)\s(?:detect|see|recogni[sz]e|find|use)(?:s|ing)?\s"
    r"(?:(?:my|the|any|a)\s)?(?:\w+\s)?gpus?\b"
    r"|(?i:\b(?:can ?not|can[’']t|could ?n[o'’]t|unable to) (?:get|make) (?:tensorflow|tf) (?:to )?"
    r"(?:detect|see|recogni[sz]e|find|use) (?:my|the|any|a) (?:\w+ )?gpus?\b)")
_TF_IS_GPU = re.compile(r"(?:tf\.test\.is_gpu_available\(\)|^\s*(?:[-*]\s+)?(?:Is )?GPU(?: is)?"
                        r"(?: available)?\s*[:?=]\s*)\W*(True|False)\b", re.IGNORECASE | re.MULTILINE)


# A hardware line of a hand-written "System:" block, or one item of a short comma list
# ("CUDA 12.1, torch 2.3, RTX 4090"): an NVIDIA model name alone, memory and "laptop" allowed.
_GPU_ALONE = re.compile(r"^(?:nvidia\s+)?(?:geforce\s+)?(?:rtx|gtx|tesla|quadro|titan|[ahlvt]\d{1,3}g?s?\b)"
                        r"[\w -]{0,30}?(?:\s+\d{1,3}\s*(?:gb|gib|g)\b)?(?:\s+(?:laptop\s+)?gpu)?$",
                        re.IGNORECASE)
_FRAMEWORK_ALONE = re.compile(r"^(torch|pytorch|tensorflow|jax|jaxlib)\s+v?(\d+\.\d+(?:\.\d+)?"
                              r"(?:\+\w+)?)(?:\s+\(?(cpu|cpu only|cpu-only)\)?)?$", re.IGNORECASE)
_FRAMEWORK_KEY = {"torch": "frameworks.torch.version", "pytorch": "frameworks.torch.version",
                  "tensorflow": "frameworks.tensorflow.version",
                  "jax": "frameworks.jax.version", "jaxlib": "frameworks.jax.jaxlib"}


# Sentences that state one fact in words: "My tensorflow version is 2.12.0", "My system is
# Windows 11", "TensorFlow 2.16 on native Windows", "driver 470", "Python 3.13", "GTX 1080 Ti"
# (in a title too). Each kind counts only when the text states one value for it: "works on
# 3.10 but not on 3.12" says nothing about this machine.
_MY_VERSION = re.compile(r"\bmy\s+(?:nvidia\s+)?(tensorflow|tf|python|cuda|cudnn|nvidia driver|"
                         r"driver|gpu driver)\s+version\s+is\s+v?(\d+(?:\.\d+){1,2})\b",
                         re.IGNORECASE)
_MY_SYSTEM = re.compile(r"\bmy\s+(?:system|os|operating system|machine|computer|platform)\s+"
                        r"is\s+((?:windows|win|ubuntu|macos|mac os|debian|fedora|centos|linux)"
                        r"[\w .]{0,20}?)(?=[.,;)]|\s+(?:and|with)\b|$)", re.IGNORECASE | re.MULTILINE)
# "Pytorch's gpu is available", "PyTorch can use the GPU", "torch detects my GPU"
_TORCH_SEES_GPU = re.compile(r"\b(?:py)?torch(?:'s)?\s+(?:gpu|cuda)\s+(?:is\s+)?(?:available|"
                             r"works)\b|\b(?:py)?torch\s+(?:can\s+(?:use|see)|detects|sees)\s+"
                             r"(?:the\s+|my\s+)?gpu\b", re.IGNORECASE)
# "my nvcc --version is 10.0", "nvcc -V says 11.8", "nvcc version: 12.1": the toolkit that builds
# extensions, in words (the tool's own output is the nvcc parser's)
_PROSE_NVCC = re.compile(r"(?i)\bnvcc(?: ?(?:--version|-V|-v))?(?: version)?(?: (?:is|says|shows|"
                         r"gives|reports|prints))?\s?[:=：]?\s?v?(\d{1,2}\.\d(?:\.\d{1,3}){0,2})"
                         r"(?![\w.])")
_NATIVE_WINDOWS = re.compile(r"\bnative[- ]windows\b", re.IGNORECASE)
# "I have Windows 11", "on Windows 10": the release named (a WSL, Linux or container word
# anywhere in the text makes it the host of something else, and nothing is read)
_WINDOWS_SAID = re.compile(r"(?i)\bwin(?:dows)? ?(1[01])\b")
_NOT_NATIVE = re.compile(r"(?i)\bwsl|linux|ubuntu|docker|container|colab|\bvm\b|virtual machine")
# the CUDA toolkit a person says is installed: "I have CUDA 12.1 installed", "CUDA 11.8 is
# installed", "installed CUDA 12.4" (a version a document requires is not read)
_CUDA_SAID = re.compile(r"(?i)\bcuda(?: toolkit)? ?v?(\d{1,2}\.\d)(?:\.\d{1,3})? (?:is |was )?installed\b|"
                        r"\b(?:I have|I've|I installed|I've installed|installed) (?:the )?cuda"
                        r"(?: toolkit)? ?v?(\d{1,2}\.\d)(?![\d.])")
# the user saying torch is a CPU build: "torch is the cpu version", "pytorch版本还是cpu"
_TORCH_SAID_CPU = re.compile(r"(?<![A-Za-z0-9_-])(?:py)?torch(?: version)?\s?(?:is|was|版本)[^\n,.，。]{0,8}?"
                             r"(?:是|为|the |a )?\s?cpu(?![a-z])", re.IGNORECASE)
# the user saying a CUDA torch was replaced by a CPU one (a solver's fallback, another package's
# pin): "A GPU version of Pytorch shouldn't be replaced with a CPU version"
# (ContinuumIO/anaconda-issues#12302), "this command replaced the CUDA-enabled pytorch with a
# CPU-only one". Never the other way round (CPU replaced by CUDA).
_TORCH_REPLACED_CPU = re.compile(
    r"(?i)\b(?:cuda|gpu)(?:[- ]enabled|[- ]version of|[- ]build of)?\s(?:py)?torch\b[^.\n]{0,40}?"
    r"\b(?:replaced|downgraded|switched|overwritten|swapped)\s(?:with|to|by|for)\s(?:a\s|the\s)?cpu\b"
    r"|\b(?:replac|downgrad|switch|overwrit|swapp)\w{0,3}\s(?:my\s|the\s|a\s)?(?:cuda|gpu)"
    r"(?:[- ]enabled|[- ]version of|[- ]build of)?\s(?:py)?torch\w{0,3}\s(?:with|to|by|for)\s"
    r"(?:a\s|the\s)?cpu\b")
# the same happening told the other way: an install or an update that left a CPU torch behind.
# "Forcing Downgrade to Non-CUDA Torch", "installed the non-CUDA version of torch"
# (zhongpei/Comfyui_image2prompt#79, erew123/alltalk_tts#104), "Torch changed to the cpu"
# (vladmandic/sdnext#1424), "go back to using pytorch CPU instead of GPU" (Brekel/VisionCaptioner#19),
# "torch cpu installed", "switched torch to no cuda". A CPU torch someone chose is not read:
# "I use the cpu torch on my laptop" names no change.
_TORCH_WENT_CPU = re.compile(
    r"(?i)\bnon-?cuda\s(?:version|build|wheel)\s(?:of\s)?(?:py)?torch\b|\bto\snon-?cuda\s(?:py)?torch\b"
    r"|\bnon-?cuda\s(?:py)?torch\s(?:was\s|is\s|got\s)?installed\b"
    r"|(?<![\w.-])(?:py)?torch\s(?:has\s|was\s|got\s|is\s)?(?:changed|switched|went|reverted|"
    r"downgraded|dumbed\sdown|fell\sback)\s(?:back\s)?to\s(?:the\s|a\s)?(?:cpu|no[- ]cuda|non-?cuda)\b"
    r"|\b(?:downgrad|dumb|switch|chang|revert)\w{0,4}(?:\sdown)?\s(?:my\s|the\s)?(?:py)?torch\s"
    r"(?:back\s)?to\s(?:the\s|a\s)?(?:cpu|no[- ]cuda|non-?cuda)\b"
    r"|(?<![\w.-])(?:py)?torch[ -]cpu(?:[- ]only)?(?:\s(?:version|build|wheel))?\s(?:was\s|is\s|got\s|gets\s|"
    r"been\s)?installed\b"
    r"|\b(?:back\sto\susing|uninstall)\s(?:the\s)?(?:py)?torch[ -]cpu\b")
_PINNED_FRAMEWORK = re.compile(r"(?<![\w.-])(tensorflow|tensorflow-gpu|jax|jaxlib)==(\d+\.\d+"
                               r"(?:\.\d+)?)(?![\w.])", re.IGNORECASE)
_PROSE_PYTHON = re.compile(r"\bpython\s?v?(3\.\d{1,2}(?:\.\d{1,2})?)(?![\w.])", re.IGNORECASE)
# "PyTorch 2.5.1 cannot find MPS", "with torch 2.3": a torch release named in words
# "installed pytorch1.3.0" (pyg-team/pytorch_geometric#738, no space), "The Pytorch version
# 1.8.0+cu111" (jiepengwang/NeuRIS#12: the build's local tag is read with it)
_PROSE_TORCH = re.compile(r"(?<![\w.-])(?:py)?torch(?: version(?: is)?:?)?(?:\s{0,3}|==)v?"
                          r"(\d\.\d{1,2}(?:\.\d{1,2})?(?:\+(?:cu\d{2,3}|cpu|rocm\d{1,2}(?:\.\d{1,2}){0,2}))?)"
                          r"(?![\w+]|\.\w)",
                          re.IGNORECASE)
# "tensorflow-gpu 2.0.0 and cuda 10.1", "TF 2.3 looking cuda 10.1", "TensorFlow version is 2.4":
# a TensorFlow release named in words (tensorflow/tensorflow#41909's title "Tensor Flow 2.2/CUDA
# 10.1" too); "tf" only as a word of its own, never tf.keras or a file name. A pin (==) is
# _PINNED_FRAMEWORK's, which drops the pins pip found no distribution for
_PROSE_TF = re.compile(r"(?<![\w.-])(?:tensor ?flow(?:-gpu)?|tf)(?: version(?: is)?:?)?(?:\s{1,3}|/)"
                       r"v?(\d\.\d{1,2}(?:\.\d{1,2})?)(?![\w.+])", re.IGNORECASE)
# the CUDA a torch build was made for, named in words: "torch is cu101", "pytorch 1.7.1+cu110",
# "torch 2.1.0 (cu118)", "Torch 2.0.1 + cu117" (mit-han-lab/llm-awq#81): the local-version tag cuXYZ, or cuXY (cu92) before CUDA 10
_PROSE_TORCH_CU = re.compile(r"(?<![\w.-])(?:py)?torch(?:[ =]=?v?\d\.\d{1,2}(?:\.\d{1,2})?)?"
                             r"(?:\s?\+\s?|\s\(|\s(?:is|was|built for|for)\s)cu(\d{2,3})\b",
                             re.IGNORECASE)
# "driver 470", and the word in the languages reports come in (驱动/驅動 zh, ドライバ ja,
# 드라이버 ko, Treiber de, pilote fr, controlador es/pt, драйвер ru), with "version" likewise
_PROSE_DRIVER = re.compile(r"(?:\b(?:nvidia\s+)?(?:driver|treiber|pilote|controlador|драйвер)|"
                           r"驱动|驅動|ドライバー?|드라이버)(?:\s*(?:version|版本|バージョン|버전))?"
                           r"\s*(?:is\s+|[:：=]\s*|为|是)?(\d{3}(?:\.\d{1,3}){0,2})(?![\w.])",
                           re.IGNORECASE)
_PROSE_GPU = re.compile(r"(?<![\w-])((?:nvidia\s+)?(?:geforce\s+)?(?:rtx|gtx)\s?\d{3,4}"
                        r"(?:\s?ti\b)?(?:\s+super\b)?|(?:nvidia\s+)?(?:tesla\s+)?"
                        r"[vah]100\b|(?:nvidia\s+)?[lh]40s?\b|"
                        # the Tesla boards by their series letter: "Tesla K40m", "Tesla P100"
                        r"(?:nvidia\s+)?tesla\s+[kmpt]\d{1,3}[mcx]?\b)", re.IGNORECASE)
# A reply that is only a driver-shaped number ("410.48,,", "> 535.183.01") just after someone
# asked for nvidia-smi or the driver: the answer to that question. A bare number anywhere else
# is not read (it could be any version).
_ASKED_DRIVER = re.compile(r"nvidia-smi|\bdriver\b", re.IGNORECASE)
_BARE_DRIVER = re.compile(r"^[\s>`*@\w]{0,30}?(?<![\w.])([2-9]\d\d\.\d{2,3}(?:\.\d{2})?)"
                          r"(?![\w.])[\s,.;:!?`*]*$")
_SENTENCE_KEYS = {"tensorflow": "TensorFlow version", "tf": "TensorFlow version",
                  "python": "Python version", "cuda": "CUDA version", "cudnn": "cuDNN version",
                  "nvidia driver": "Nvidia driver version", "driver": "Nvidia driver version",
                  "gpu driver": "Nvidia driver version"}


def _one(values: list[str]) -> str | None:
    """The value when the text states exactly one (case and spacing aside), else None."""
    seen = {re.sub(r"\s+", " ", v.strip().lower()): v.strip() for v in values}
    return next(iter(seen.values())) if len(seen) == 1 else None


def _sentences(part: Partial, text: str) -> None:
    """Facts a person states in prose or a title, each only when stated once."""
    from envdoctor.parsers import _fields
    from envdoctor.parsers._common import os_fields
    said: dict[str, list[str]] = {}
    for m in _MY_VERSION.finditer(text):
        said.setdefault(_SENTENCE_KEYS[m.group(1).lower()], []).append(m.group(2))
    unavailable = {m.group(1).lower() for m in _NO_DIST.finditer(text)}
    for m in _PINNED_FRAMEWORK.finditer(text):
        if m.group(1).lower() in unavailable:  # a pin pip found nothing for is not installed
            continue
        said.setdefault(m.group(1).lower().replace("-gpu", "") + " version", []).append(m.group(2))
    for key, values in said.items():
        value = _one(values)
        if value is not None:
            _fields.apply(part, key, value)
    _platform(part, text)
    _amd(part, text)
    system = _one([m.group(1) for m in _MY_SYSTEM.finditer(text)])
    if system is not None:
        os_fields(part, system)
    elif _NATIVE_WINDOWS.search(text):
        part.set("host.os", "Windows")
    elif _one(_WINDOWS_SAID.findall(text)) and not _NOT_NATIVE.search(text):
        part.set("host.os", "Windows")
    cuda_said = _one([a or b for a, b in _CUDA_SAID.findall(text)])
    if cuda_said is not None:
        part.set("cuda.toolkit_version", ver(cuda_said))
    if _TORCH_SEES_GPU.search(text):
        part.observe("torch", "cuda_available", True)
    if _TORCH_SAID_CPU.search(text):
        part.set("frameworks.torch.cpu_only", True)
    elif _TORCH_REPLACED_CPU.search(text) or _TORCH_WENT_CPU.search(text):
        # what happened to the environment, in words: a build the report states elsewhere
        # (a collect_env after a reinstall) still wins over it
        part.set("frameworks.torch.said_no_cuda", True)
    torch = _one(_PROSE_TORCH.findall(text))
    if torch is not None:
        part.set("frameworks.torch.version", ver(torch))
    tf = _one(_PROSE_TF.findall(text))
    if tf is not None and not unavailable & {"tensorflow", "tensorflow-gpu"}:
        part.set("frameworks.tensorflow.version", ver(tf))
        # "tensorflow-gpu 2.0.0": the package that exists only to run on the GPU
        if all(m.group(0).lower().replace(" ", "").startswith("tensorflow-gpu")
               for m in _PROSE_TF.finditer(text)):
            part.set("frameworks.tensorflow.distribution", "tensorflow-gpu")
    cu = _one(_PROSE_TORCH_CU.findall(text))
    if cu is not None:
        part.set("frameworks.torch.cuda", ver(f"{cu[:-1]}.{cu[-1]}"))
    nvcc = _one(_PROSE_NVCC.findall(text))
    if nvcc is not None:
        part.set("cuda.nvcc_version", ver(nvcc))
    py = _one(_PROSE_PYTHON.findall(text))
    if py is not None:
        part.set("host.python_version", ver(py))
    driver = _one(_PROSE_DRIVER.findall(text) or _answered_driver(text))
    if driver is not None and 300 <= int(driver.split(".")[0]) < 1000:
        part.set("nvidia.driver_version", ver(driver))
    names = [clean_name(g) for g in _PROSE_GPU.findall(text)]
    gpu = _one([n for n in names if cc_of(n) is not None])
    if gpu is not None and not part.gpus:
        part.gpus.append(Gpu(index=0, name=gpu, cc=cc_of(gpu)))


# The platform a person names in prose ("Jetson Orin, JetPack 6", "M2 Mac, macOS 13",
# "I'm using wsl 1 on windows 10"): each fact only when the text states one value.
_JETSON_MODEL = re.compile(r"(?i)\b(jetson(?:[ -](?:agx|orin|xavier|nano|nx|tx[12]|thor|"
                           r"super|developer kit))*|jetbot)\b")
_JETPACK = re.compile(r"(?i)(?<![a-z])jet ?pack[ -]?v?(\d{1,2}(?:\.\d{1,2}){0,2})\b")
_L4T = re.compile(r"(?i)\bL4T[ -]?R?(\d{2}\.\d{1,2}(?:\.\d{1,2})?)\b")
# L4T as its own files print it: `cat /etc/nv_tegra_release` ("# R35 (release), REVISION: 4.1,
# GCID: …, BOARD: t186ref, EABI: aarch64") and `dpkg -l | grep nvidia-l4t` ("ii  nvidia-l4t-core
# 35.4.1-20230801124926  arm64 …"): pasted in most Jetson threads, with no "L4T" word beside them
_L4T_RELEASE_FILE = re.compile(r"(?m)^[ \t>$]{0,8}#[ \t]?R(\d{2})[ \t]?\(release\),[ \t]?REVISION:[ \t]?"
                               r"(\d{1,2}(?:\.\d{1,2})?)\b")
_L4T_CORE_DEB = re.compile(r"\bnvidia-l4t-core(?::arm64)?[ \t]{1,40}(\d{2}\.\d{1,2}\.\d{1,2})-\d")
_MAC_WORD = re.compile(r"\b(?:Mac ?[Bb]ook(?: Pro| Air)?|Mac(?: mini| Studio| Pro)?|iMac|"
                       r"Apple [Ss]ilicon|[Mm]ac ?OS)\b")
_APPLE_CHIP = re.compile(r"\b(?:Apple )?M([1-5])(?: (Pro|Max|Ultra))?(?= |,|\.|$| [Cc]hip)|"
                         r"(?i:\bmac(?:book(?: pro| air)?|os(?: \d{2}(?:\.\d{1,2})?)?| ?mini| studio)? "
                         r"m([1-5])\b)", re.MULTILINE)  # the chip, or typed lower-case after
# the Mac ("MacOS 13 m1 (arm64)", "mac m2")
# Apple silicon named as such, or a chip only Apple makes ("M1 Pro", "M3 Max": no Mac word needed)
_APPLE_SILICON = re.compile(r"(?i)\bapple[ -]silicon\b|\bapple M[1-5]\b|(?-i:\bM[1-5] (?:Pro|Max|Ultra)\b)")
# The machine the interpreter runs as, in its own words: platform.machine()'s answer, "uname -m
# gives me x86_64" (a shell under Rosetta), "Python 3.8.7 (x86_64 through Rosetta)", "reports
# platform i386" (platform.processor() of an x86_64 Python on a Mac)
_PY_MACHINE = re.compile(r"(?i)platform\.(?:machine|processor)\(\)\W{0,12}(?:\n[#>\s]{0,6})?['\"]?"
                         r"(x86_64|i386|arm64)\b|\buname -m\W{0,3}[\w ]{0,20}?\b(x86_64|arm64)\b|"
                         r"\bpython[\w .:]{0,20}\((x86_64|arm64)\b|\breports platform (i386|arm)\b")
_MACOS = re.compile(r"(?i)\bmac ?OS(?: X)? ?(\d{2}(?:\.\d{1,2}){0,2})\b")
_MACOS_NAMES = {"big sur": "11", "monterey": "12", "ventura": "13", "sonoma": "14",
                "sequoia": "15", "tahoe": "26"}
_MACOS_NAME = re.compile(r"(?i)\bmacOS (Big Sur|Monterey|Ventura|Sonoma|Sequoia|Tahoe)\b")
_WSL_SAID = re.compile(r"(?i)\bwsl ?([12])\b")


# An AMD GPU and the ROCm release a person names ("RX 7900 XTX on ROCm 6.1", collect_env's
# "AMD Radeon RX 7900 XTX (gfx1100)"); upper-case RX/MI so host names (dell-gpu-mi300) do not
_AMD_GPU = re.compile(r"\b(?:AMD )?(?:Radeon )?(?:(RX) ?(\d{4}|[45][5-9]0(?=X?\b))(?: ?(XTX|XT|GRE))?|(PRO) (W\d{4})|"
                      r"(?:Instinct )?(MI\d{3}[AXH]?))\b(?: ?\((gfx\d{3,4}[a-z]?))?")
_ROCM_SAID = re.compile(r"(?i)(?<![+\w/-])ROCm ?v?(\d\.\d{1,2}(?:\.\d{1,3})?)\b")  # not +rocm6.0


# ZLUDA runs a CUDA torch on an AMD GPU (Windows, over the HIP SDK): the device then prints as
# "cuda:0 AMD Radeon RX 9070 XT [ZLUDA]", and ZLUDA's launchers print "Using ZLUDA with device"
# or "ZLUDA detected"
_ZLUDA = re.compile(r"AMD Radeon[^\n]{0,60}\[ZLUDA\]|Using ZLUDA with device|\bZLUDA detected\b|"
                    r"Detected ZLUDA\b")


def _amd(part: Partial, text: str) -> None:
    if _ZLUDA.search(text):
        part.set("rocm.zluda", True)
    names, gfx = [], []
    for m in _AMD_GPU.finditer(text):
        if m.group(1):
            names.append(f"AMD Radeon RX {m.group(2)}" + (f" {m.group(3)}" if m.group(3) else ""))
        elif m.group(4):
            names.append(f"AMD Radeon PRO {m.group(5)}")
        else:
            names.append(f"AMD Instinct {m.group(6)}")
        if m.group(7):
            gfx.append(m.group(7))
    name = _one(names)
    if name:
        part.set("rocm.gpu_name", name)
        target = _one(gfx)
        if target:
            part.set("rocm.gpu_gfx", target)
    rocm = _one(_ROCM_SAID.findall(text))
    if rocm:
        part.set("rocm.version", ver(rocm))


def _platform(part: Partial, text: str) -> None:
    """A Jetson, a Mac or a WSL version stated in words (lowest rank: any tool beats it)."""
    models = [m.group(1) for m in _JETSON_MODEL.finditer(text)]
    jetpack = _one(_JETPACK.findall(text))
    l4t = _one(_L4T.findall(text) + _L4T_CORE_DEB.findall(text) +
               [f"{r}.{rev}" for r, rev in _L4T_RELEASE_FILE.findall(text)])
    if models or jetpack or l4t:
        model = max(models, key=len) if models else ""
        part.set("jetson.model", model)
        if jetpack:
            part.set("jetson.jetpack", ver(jetpack))
        if l4t:
            part.set("jetson.l4t", ver(l4t))
        part.set("host.os", "Linux")
        part.set("host.arch", "aarch64")  # every Jetson; no PyPI x86 default applies
        return
    if _APPLE_SILICON.search(text):  # read only where something else says the host is macOS
        part.set("apple.apple_silicon", True)
        machine = _one([m.group(1) or m.group(2) or m.group(3) or m.group(4)
                        for m in _PY_MACHINE.finditer(text)])
        if machine:  # the interpreter's own machine, as the text prints or names it
            part.set("apple.python_machine", "x86_64" if machine in ("x86_64", "i386")
                     else machine)
    if _MAC_WORD.search(text):
        chip = _one([f"Apple M{m.group(1) or m.group(3)}" + (f" {m.group(2)}" if m.group(2)
                                                             else "")
                     for m in _APPLE_CHIP.finditer(text)])
        named = [_MACOS_NAMES[m.group(1).lower()] for m in _MACOS_NAME.finditer(text)]
        macos = _one(_MACOS.findall(text) + named)
        if chip or macos:
            part.set("host.os", "Darwin")
        if chip:
            part.set("host.cpu_model", chip)
        if macos:
            part.set("host.distro", f"macOS {macos}")
        return
    wsl = _one(_WSL_SAID.findall(text))
    if wsl:
        part.set("host.os", "Linux")
        part.set("host.wsl", int(wsl))


def _answered_driver(text: str) -> list[str]:
    """Driver versions given as the bare reply to a question about nvidia-smi or the driver
    (within the three lines after it)."""
    lines = text.split("\n")
    out = []
    for i, line in enumerate(lines):
        if len(line) > 60:
            continue
        m = _BARE_DRIVER.match(line)
        if m and any(_ASKED_DRIVER.search(prev) for prev in lines[max(0, i - 3):i]):
            out.append(m.group(1))
    return out


def _prose_items(part: Partial, line: str) -> None:
    """A short line naming the hardware and versions in words: each item that is an NVIDIA
    GPU model (known to the GPU table) or "torch 2.3" states that, nothing else does."""
    line = line.strip().strip("`*-•> ").strip()
    if not line or len(line) > 120 or ":" in line or "=" in line:
        return
    for item in re.split(r"\s*[,;]\s*|\s+\+\s+", line):
        item = item.strip(" .()")
        m = _FRAMEWORK_ALONE.match(item)
        if m:
            key = _FRAMEWORK_KEY[m.group(1).lower()]
            part.set(key, ver(m.group(2)))
            if m.group(3) and key == "frameworks.torch.version":  # "torch 1.7.1 CPU"
                part.set("frameworks.torch.cpu_only", True)
            continue
        if len(item) <= 60 and _GPU_ALONE.match(item):
            name = clean_name(re.sub(r"\s+\d{1,3}\s*(?:gb|gib|g)\b.*$", "", item,
                                     flags=re.IGNORECASE))
            if cc_of(name) is not None and not any(g.name == name for g in part.gpus):
                part.gpus.append(Gpu(index=len(part.gpus), name=name, cc=cc_of(name),
                                     memory_total_mb=mib(item)))


_NO_DIST = re.compile(r"No matching distribution found for ([A-Za-z0-9][\w.-]{0,60})")


# Every line-level reading below needs one of these words on its line: a print of a version
# (_PRINTS), a keyed line (_KEYED), an install command (_INSTALL) or a prose item naming a
# framework or a GPU model (_FRAMEWORK_ALONE, _GPU_ALONE). One compiled search per line lets a
# long log of other lines through at regex speed instead of a dozen searches each.
_LINE_HINT = re.compile(r"torch|tensorflow|\btf\.|jax|numpy|\bnp\.|keras|cuda_available|gpu|"
                        r"flash|vllm|xformers|bitsandbytes|triton|deepspeed|sglang|"
                        r"video|graphics|显卡|pip|rtx|gtx|tesla|quadro|titan|"
                        r"(?<![a-z0-9_])[ahlvt]\d", re.IGNORECASE)


def parse(text: str) -> Partial:
    part = Partial(NAME, RANK, stated=True)
    lines = text.split("\n")
    unavailable = {m.group(1).lower() for m in _NO_DIST.finditer(text)}
    hint = _LINE_HINT.search
    for i, line in enumerate(lines):
        if not hint(line):
            continue
        several = sum(1 for expr, _ in _PRINTS if re.search(expr, line)) > 1
        if several and _print_row(part, line, lines[i + 1:i + 9]):
            continue
        for expr, key in _PRINTS:
            if not re.search(expr, line):
                continue
            after = re.split(expr, line, maxsplit=1)[1]
            after = re.sub(r"^[)\s`\"']*", "", after)  # the call's closing quote or backtick
            # one print of several expressions answers on one line, in the order of its
            # arguments: when that order was not read (_print_row), the next line is no one
            # expression's answer
            candidates = [after] + ([] if several else
                                    [ln for ln in lines[i + 1:i + 3] if ln.strip()][:1])
            for cand in candidates:
                c = plain(re.sub(r"^(?:>>>|\.\.\.|\$|#|->|=>|returns?|:|(?:(?:i|we) )?(?:still )?"
                                 r"(?:get|got|gives?|prints?|shows?)|(?:it )?(?:is|was))\s*", "",
                                 cand.strip(), flags=re.IGNORECASE))
                if key.startswith("obs:") or key.endswith("is_cuda_build"):
                    b = to_bool(c)
                    if b is not None and re.match(r"(?:true|false)\b", c, re.IGNORECASE):
                        if key.startswith("obs:"):
                            part.observe("torch", "cuda_available", b)
                        else:
                            part.set(key, b)
                        break
                    continue
                if key.endswith("torch.cuda") and c.lower().startswith("none"):
                    part.set("frameworks.torch.cpu_only", True)
                    break
                m = re.match(_V, c)
                if m:
                    _put(part, key, m.group(1))
                    break
        k = _KEYED.match(line)
        if k:
            _keyed(part, k.group(1).lower(), plain(k.group(2)))
        elif len(line) <= 120:
            _prose_items(part, line)
        m = _INSTALL.search(line)
        if m:
            for pin in _PIN.finditer(m.group(1)):
                if pin.group(1).lower() not in unavailable:  # pip said it found none
                    part.package(pin.group(1), ver(pin.group(2)))
        elif "==" in line and len(line) <= 200 and _PIN_LIST_REST.fullmatch(_PIN.sub(" ", line)):
            for pin in _PIN.finditer(line):
                part.package(pin.group(1), ver(pin.group(2)))
    for m in _SM_WARN.finditer(text):
        name = clean_name(m.group(1).strip())
        digits = m.group(2)
        _gpu(part, name, f"{digits[:-1]}.{digits[-1]}")
    for m in _FOUND_GPU.finditer(text):
        _gpu(part, clean_name(m.group(2)), f"{m.group(3)}.{m.group(4)}")
    built = [f"sm_{a}{b}" for a, b in _BUILT_CC.findall(text)] if "supports hardware CC" in text \
        else []
    if built:  # SASS the build carries, as torch itself lists it
        part.observe("torch", "arch_list", sorted(set(built)))
    m = _NO_KERNELS_TORCH.search(text)
    if m and ver(m.group(1)) is not None:
        part.set("frameworks.torch.version", ver(m.group(1)))
    m = _SUPPORTS.search(text)
    if m:
        archs = m.group(1).split()
        if _SM_WARN.search(text):
            # torch's own verdict ("sm_120 is not compatible") counts SASS only: a compute_37
            # PTX fallback from a CUDA 11 build does not make a Blackwell GPU usable.
            archs = [a for a in archs if a.startswith("sm_")] or archs
        part.observe("torch", "arch_list", archs)
    if "PyTorch built with:" in text:  # torch.__config__.show()
        m = re.search(r"^\s*-\s*CUDA Runtime\s+(\d+\.\d+)", text, re.MULTILINE)
        if m:
            part.set("frameworks.torch.cuda", ver(m.group(1)))
        m = re.search(r"^\s*-\s*Cu[dD][nN][nN]\s+(\d+(?:\.\d+)*)", text, re.MULTILINE)
        if m:
            part.observe("torch", "built_cudnn", m.group(1))
        m = re.search(r"NVCC architecture flags:\s*(.+)$", text, re.MULTILINE)
        if m:
            part.observe("torch", "arch_list", sorted(set(re.findall(r"sm_\d+", m.group(1)))))
    m = _MINMAX.search(text)
    if m:
        part.observe("torch", "cc_range", [m.group(1), m.group(2)])
    m = _MIN_CC.search(text)
    if m:  # only the minimum: the range is open above it
        part.observe("torch", "cc_range", [m.group(1), ""])
    old_gpu = _OLD_GPU.search(text)
    if old_gpu and not m:  # torch's verdict with no minimum: recorded in its own words
        name = clean_name(old_gpu.group(1))
        part.set("frameworks.torch.ran", True)
        part.observe("torch", "gpu_error", f"{name} which is of cuda capability "
                     f"{old_gpu.group(2)}: PyTorch no longer supports this GPU because it is "
                     "too old")
    _tensorflow_gpu(part, text, lines)
    _framework_gpu_messages(part, text)
    _oom_numbers(part, text)
    _sentences(part, text)
    if _NO_DRIVER.search(text):
        part.absent["nvidia"] = "torch: Found no NVIDIA driver on your system"
        part.observe("torch", "cuda_available", False)
    m = _NUMPY_ABI.search(text)
    if m and _TORCH_IMPORT.search(text, max(0, m.start() - 300), m.end() + 2500):
        # NumPy's ABI warning, printed while torch was being imported: torch's own C extension
        part.set("frameworks.torch.ran", True)
        start = text.rfind("\n", 0, m.start()) + 1  # the whole message, from its line start
        part.observe("torch", "numpy_abi", text[start:start + 300].split("\n\n")[0])
    m = _NUMPY2.search(text)
    if m:
        part.package("numpy", ver(m.group(1)))
    if _NO_NUMPY.search(text):
        part.observe("numpy", "import", "failed")
    return part


def _framework_gpu_messages(part: Partial, text: str) -> None:
    """What a framework printed about its GPU, recorded as that framework's own observation
    (the reason it gives, what ``explain`` recognises in it) and the facts the line states.

    Only lines whose wording names the framework and the fact: torch's "driver too old (found
    version N)" is the driver's CUDA level (N = 1000*major + 10*minor) and torch's own verdict;
    jax's "... CUDA-enabled jaxlib is not installed. Falling back to cpu" is JAX running on the
    CPU with no CUDA backend.
    """
    m = _DRIVER_OLD.search(text)
    if m:
        n = int(m.group(1))
        part.set("nvidia.cuda_driver_version", ver(f"{n // 1000}.{n % 1000 // 10}"))
        part.set("frameworks.torch.ran", True)
        part.observe("torch", "cuda_available", False)
        part.observe("torch", "gpu_error", m.group(0))
    for pattern in _BUILD_MISMATCH:
        m = pattern.search(text)
        if m:
            part.set("cuda.nvcc_version", ver(m.group(1)))
            part.set("frameworks.torch.cuda", ver(m.group(2)))
            break
    m = _INSUFFICIENT.search(text)
    owner = "tensorflow" if re.search(r"tensorflow", text, re.IGNORECASE) else \
        "torch" if re.search(r"\btorch\b|pytorch", text, re.IGNORECASE) else None
    if m and owner and not _DRIVER_OLD.search(text):  # whose runtime: the framework the text runs
        part.set(f"frameworks.{owner}.ran", True)
        part.observe(owner, "cuda_available", False)
        part.observe(owner, "gpu_error", m.group(0))
    m = _TORCH_NO_GPUS.search(text)
    if m:
        part.set("frameworks.torch.ran", True)
        part.observe("torch", "import", "ok")  # torch imported, then found no device
        part.observe("torch", "cuda_available", False)
        part.observe("torch", "gpu_error", "No CUDA GPUs are available")
    if _TORCH_NO_CUDA.search(text):
        # the torch that ran has no CUDA; a build the report states elsewhere (+cu121, a
        # collect_env) still wins over it: two environments pasted side by side
        part.set("frameworks.torch.said_no_cuda", True)
    if _TF_SKIPPED.search(text):
        missing_libs = sorted(set(_TF_DLOPEN.findall(text)))[:8]
        part.set("frameworks.tensorflow.ran", True)
        part.observe("tensorflow", "import", "ok")
        part.observe("tensorflow", "gpu_available", False)
        part.observe("tensorflow", "gpu_error", "TensorFlow could not load its GPU libraries"
                     + (f" ({', '.join(missing_libs)})" if missing_libs else "")
                     + " and skipped registering GPU devices")
    m = _CUDNN_LOADED.search(text)
    owner = "tensorflow" if re.search(r"tensorflow", text, re.IGNORECASE) else \
        "jax" if re.search(r"\bjax", text, re.IGNORECASE) else None
    if m and owner:  # which framework printed it: the one the text runs
        _cudnn_pair(part, owner, m.group(1), m.group(2))
    m = _JAX_CUDNN.search(text)
    if m:
        _cudnn_pair(part, "jax", *(_cudnn_number(g) for g in m.groups()))
    m = _JAX_PLUGIN_OFF.search(text)  # the installed versions, as jax itself reads them
    if m:
        part.package(m.group(1).replace("_", "-"), ver(m.group(2)))
        _jax_version(part, "jaxlib", m.group(3))
    m = _JAXLIB_PAIR.search(text)
    if m and m.group(1):
        _jax_version(part, "jaxlib", m.group(1))
        _jax_version(part, "jax", m.group(2))
    elif m:
        _jax_version(part, "jaxlib", m.group(3))
    m = _JAX_CPU.search(text)
    if m:
        part.set("frameworks.jax.ran", True)
        part.observe("jax", "backend", "cpu")
        part.observe("jax", "gpu_error", m.group(0))


def _jax_version(part: Partial, name: str, value: str) -> None:
    """jax or jaxlib as jax's own check printed it: the framework and the installed package."""
    part.set("frameworks.jax.version" if name == "jax" else "frameworks.jax.jaxlib", ver(value))
    part.package(name, ver(value))


def _cudnn_number(n: str) -> str:
    """cuDNN's integer version: 8600 -> 8.6.0, 90100 -> 9.1.0 (major*1000 + minor*100 + patch
    before 9; major*10000 + minor*100 + patch from 9)."""
    v = int(n)
    major = v // 10000 if v >= 9000 and len(n) == 5 else v // 1000
    rest = v - major * (10000 if len(n) == 5 else 1000)
    return f"{major}.{rest // 100}.{rest % 100}"


def _cudnn_pair(part: Partial, framework: str, loaded: str, built: str) -> None:
    part.set(f"frameworks.{framework}.ran", True)
    part.observe(framework, "import", "ok")  # it ran far enough to load cuDNN
    part.observe(framework, "cudnn", loaded)
    part.observe(framework, "built_cudnn", built)


def _put(part: Partial, key: str, value: str) -> None:
    if key.startswith("pkg:"):
        part.package(key[4:], ver(value))
    else:
        part.set(key, ver(value))


def _keyed(part: Partial, key: str, value: str) -> None:
    if missing(value):
        return
    if key in ("torch", "pytorch"):
        m = re.match(_V + r"(?![\w+]|\.\w)", value)
        if m:
            part.set("frameworks.torch.version", ver(m.group(1)))
    elif key == "torch.cuda":
        part.set("frameworks.torch.cuda", ver(value))
    elif key == "cuda_available":
        part.observe("torch", "cuda_available", to_bool(value))
    elif key in ("video card", "videocard", "graphics card", "显卡"):
        # "Video card: 3060ti": the key says it is the GPU, so a bare GeForce number is one
        from envdoctor.parsers import _fields
        _fields.apply(part, "graphics card", value)
    elif key == "gpu":
        if re.search(r"nvidia|geforce|tesla|quadro|rtx|gtx|titan", value, re.IGNORECASE):
            part.gpus.append(Gpu(index=len(part.gpus), name=clean_name(value)))
    elif key == "tensorflow":
        part.set("frameworks.tensorflow.version", ver(value))
    elif key == "jax":
        part.set("frameworks.jax.version", ver(value))
    elif key == "jaxlib":
        part.set("frameworks.jax.jaxlib", ver(value))
    else:
        v = ver(value)
        if v is not None and re.match(r"\d", value):
            part.package(key, v)


# an AMD GPU as a ROCm build of torch names it in its CUDA-capability warnings (HIP answers
# with the GCN/RDNA architecture: "Ellesmere [Radeon RX 470/480/570/570X/580/580X] which is of
# cuda capability 3.0"): not an NVIDIA GPU, and the number is no compute capability
_AMD_NAME = re.compile(r"(?i)\b(?:radeon|ellesmere|polaris|baffin|fiji|vega|navi|instinct|firepro"
                       r"|gfx\d{3,4})\b")


def _gpu(part: Partial, name: str, cc: str) -> None:
    if any(g.name == name for g in part.gpus) or _AMD_NAME.search(name):
        return
    part.gpus.append(Gpu(index=len(part.gpus), name=name, cc=ver(cc)))


def _tensorflow_gpu(part: Partial, text: str, lines: list[str]) -> None:
    """TensorFlow said whether it sees a GPU: an import that worked and its answer (LIVE004).

    Only in a text that is about TensorFlow, so a bare "GPU: False" elsewhere means nothing.
    """
    if not re.search(r"tensorflow|\btf\.", text, re.IGNORECASE):
        return
    seen: bool | None = None
    m = _TF_COUNT.search(text)
    if m:
        seen = int(m.group(1)) > 0
    for i, line in enumerate(lines):
        if seen is not None:
            break
        m = _TF_LIST.search(line)
        if not m:
            continue
        after = [m.group(1)] + [ln for ln in lines[i + 1:i + 3] if ln.strip()][:1]
        for cand in after:
            cand = re.sub(r"^[^\[]*?(?:returns?|result|->|=>|:)\s*", "", cand.strip(" *`#"))
            d = _TF_DEVICES.match(cand.strip(" *`"))
            if d:
                seen = d.group(1).startswith("[P")
                break
    if seen is None:
        m = _TF_LABELLED.search(text)  # print("Is GPU Available:", ...) -> "Is GPU Available: []"
        if m:
            seen = m.group(1).startswith("[P")
    if seen is None and "torch" not in text.lower():
        m = _TF_IS_GPU.search(text)
        if m:
            seen = m.group(1).lower() == "true"
    if seen is None and _TF_NO_GPU_SAID.search(text):
        seen = False
        part.observe("tensorflow", "gpu_error", "TensorFlow does not see the GPU (as the text "
                     "says)")
    if seen is None and _TF_LOOKS_FOR.search(text):
        seen = False
        part.observe("tensorflow", "gpu_error", "TensorFlow looked for CUDA libraries it did not "
                     "find (as the text says)")
    if seen is not None:
        part.observe("tensorflow", "import", "ok")
        part.observe("tensorflow", "gpu_available", seen)


# PyTorch's CUDA out-of-memory message gives the device's total and free memory and what this
# process holds: "(GPU 0; 7.93 GiB total capacity; 2.81 GiB already allocated; 25.38 MiB free;
# 3.06 GiB reserved in total by PyTorch)" (torch < 2.1; before 1.4 "cached", the
# part held but not allocated), and "GPU 0 has a
# total capacity of 23.65 GiB of which 17.06 MiB is free. [...] Including non-PyTorch memory,
# this process has 3.10 GiB memory in use" (torch >= 2.1). total - free - this process is what
# other processes held. HIP and XPU messages are other devices' and are not read.
_SIZE = r"(\d{1,6}(?:\.\d{1,3})?) ?(GiB|MiB|KiB|bytes|B)\b"
_OOM_OLD = re.compile(r"\(GPU (\d{1,2}); " + _SIZE + r" total capacity; " + _SIZE
                      + r" already allocated; " + _SIZE + r" free; " + _SIZE
                      + r" (reserved in total by PyTorch|cached)\b")
_OOM_NEW = re.compile(r"\bGPU (\d{1,2}) has a total capacity of " + _SIZE + r" of which " + _SIZE
                      + r" is free\.[^\n]{0,600}?\bthis process has " + _SIZE + r" memory in use\b")
_OOM_OTHER_DEVICE = re.compile(r"\b(?:HIP|XPU) out of memory\b|PYTORCH_HIP_ALLOC_CONF")
_UNIT_MB = {"GiB": 1024.0, "MiB": 1.0, "KiB": 1 / 1024, "bytes": 1 / 1048576, "B": 1 / 1048576}


def _mb(number: str, unit: str) -> float:
    return float(number) * _UNIT_MB[unit]


def _oom_numbers(part: Partial, text: str) -> None:
    """The GPU's total, used and held-by-others memory from one CUDA out-of-memory message
    (the first; several messages of different devices or moments are not summed)."""
    if _OOM_OTHER_DEVICE.search(text):
        return
    m = _OOM_OLD.search(text)
    if m:
        index = int(m.group(1))
        total, free = _mb(m.group(2), m.group(3)), _mb(m.group(6), m.group(7))
        mine = _mb(m.group(8), m.group(9))
        if m.group(10) == "cached":  # torch < 1.4: held = allocated + cached
            mine += _mb(m.group(4), m.group(5))
    else:
        m = _OOM_NEW.search(text)
        if not m:
            return
        index = int(m.group(1))
        total, free = _mb(m.group(2), m.group(3)), _mb(m.group(4), m.group(5))
        mine = _mb(m.group(6), m.group(7))
    if total <= 0 or free + mine > total * 1.05:  # not one device's consistent numbers
        return
    total_mb, used_mb = int(round(total)), int(round(total - free))
    outside_mb = max(0, int(round(total - free - mine)))
    if len(part.gpus) == 1 and part.gpus[0].memory_total_mb is None:
        part.gpus[0] = replace(part.gpus[0], index=index, memory_total_mb=total_mb,
                               memory_used_mb=used_mb, memory_outside_mb=outside_mb)
    elif not part.gpus:
        part.gpus.append(Gpu(index=index, memory_total_mb=total_mb, memory_used_mb=used_mb,
                             memory_outside_mb=outside_mb))

