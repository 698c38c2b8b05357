"""Knowledge functions: what rule expressions may call, in one explicit registry.

``REGISTRY`` maps each name a rule may call to the module of this package that defines a
function of that name (or to a ``FirstOf`` of other names). Modules are imported on first
use; importing one registers nothing. Each function declares the facts it reads with
``@reads`` (``envdoctor.engine.knowledge._reads``); the engine resolves them, and answers
UNKNOWN itself when one is not known, so no function ever sees or guards an unknown.

Adding a function: write it in the module of its family with ``@reads(...)``, add one line
here, and use it in a rule (``when = "len(my_fn()) > 0"``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from envdoctor.engine.knowledge._reads import FirstOf

REGISTRY: dict[str, str | FirstOf] = {
    # gpu: compute capabilities, health
    "nvidia_gpus_seen": "gpu",
    "any_gpu_cc": "gpu", "gpu_throttling": "gpu", "gpu_processes": "gpu",
    "arch_floor_gaps": "gpu", "arch_floor_fixes": "gpu", "arch_floor_confirmed": "gpu",
    # cuda and the driver
    "min_driver": "cuda", "min_driver_compat": "cuda", "max_cuda": "cuda",
    "system_toolkit": "cuda",
    "driver_below_floor": "driver", "driver_below_floor_confirmed": "driver",
    "driver_below_bundled": "driver", "driver_fix": "driver",
    "driver_reported_too_old": "driver", "driver_label": "driver",
    # cudnn
    "gpus_below_cudnn": "cudnn", "gpus_below_cudnn_confirmed": "cudnn",
    # torch
    "torch_has_arch": "torch", "torch_release": "torch", "pytorch_build": "torch",
    "torch_missing_archs": "torch", "torch_companion_mismatch": "torch",
    "torch_archs_live": "torch", "torch_archs_matrix": "torch", "torch_archs_floor": "torch",
    "torch_archs_confirmed": "torch", "torch_arch_fix": "torch", "torch_gpu_install": "torch",
    "torch_reinstall_same_build": "torch", "xformers_torch_mismatch": "torch",
    "torch_archs": FirstOf(("torch_archs_live", "torch_archs_matrix", "torch_archs_floor"),
                           "the arch list torch printed about itself, else its matrix row, "
                           "else its release's binary floor"),
    # tensorflow
    "tf_release": "tensorflow", "tf_last_windows_gpu": "tensorflow",
    "tf_cuda_mismatch": "tensorflow", "tf_cpu_only_package": "tensorflow",
    "tf_cuda_libs_fix": "tensorflow", "tf_gpu_install": "tensorflow",
    "tf_cudnn_wheel_gap": "tensorflow", "tf_windows_cuda_beyond_native": "tensorflow",
    # jax
    "jax_release": "jax", "jax_mismatch": "jax", "gpus_below_jax": "jax",
    "jax_gpu_build": "jax", "jax_cudnn_gap": "jax",
    # installed packages
    "nvidia_wheel_majors": "packages", "nvidia_wheels_of": "packages",
    "numpy1_builds": "packages", "keras_row": "packages",
    "cpu_only_frameworks": "packages", "cpu_only_areas": "packages",
    "cuda_asked_beside": "packages", "cpu_build_against": "packages",
    "gpu_install_lines": "packages",
    "conflict_fix": "packages",
    # environment and visibility
    "on_ld_path": "env", "hides_all_gpus": "env", "visible_devices_missing": "env",
    "alloc_conf_problem": "env", "no_gpu_reason": "env", "newest_python": "env",
    # AMD ROCm
    "amd_machine": "rocm", "rocm_override_verdict": "rocm",
    "rocm_unsupported_gfx": "rocm",
    "rocm_hidden_all": "rocm", "rocm_access_problem": "rocm", "rocm_user": "rocm",
    "rocm_access_fix": "rocm",
    "torch_wrong_gpu_build": "rocm", "rocm_torch_gap": "rocm",
    "rocm_no_driver": "rocm", "rocm_torch_blind": "rocm", "no_gpu_fix": "env",
    # Apple silicon (MPS, Metal)
    "apple_machine": "apple", "apple_x86_python": "apple", "mps_macos_gap": "apple",
    "torch_mps_fix": "apple", "torch_without_mps": "apple", "jax_metal_mismatch": "apple",
    "tf_metal_mismatch": "apple", "apple_gpu_blind": "apple", "apple_gpu_blind_asked": "apple",
    "mps_unavailable": "apple",
    "mps_watermark_problem": "apple",
    # Cloud TPU
    "tpu_machine": "tpu", "tpu_host_evidence": "tpu", "tpu_jax_without_libtpu": "tpu",
    "jax_platform_off_tpu": "tpu",
    # Intel GPUs (XPU)
    "intel_machine": "intel", "intel_gpu_list": "intel", "torch_not_xpu_on_intel": "intel",
    "xpu_install_line": "intel", "intel_access_problem": "intel",
    "intel_render_group": "intel",
    # NVIDIA Jetson
    "jetson_machine": "jetson", "jetson_board": "jetson", "jetson_torch_problem": "jetson",
    "jetson_cpu_torch": "jetson",
    "jetpack_libraries_missing": "jetson", "jetson_access_problem": "jetson",
    "jetson_user": "jetson", "jetson_python_gap": "jetson",
    # live workers and smoke
    "live_failed": "live", "smoke_failed": "live", "smoke_failed_unexplained": "live",
    "smoke_known_causes": "live", "smoke_known_fixes": "live",
    "live_cudnn_mismatch": "live", "live_shadowed": "live", "live_cudnn_majors": "live",
    "live_gpu_blind": "live", "framework_found_no_gpu": "live", "speed_shortfall": "live",
    "framework_saw_gpu": "live", "forward_compat_on_consumer_gpu": "driver",
    "live_stderr": "live",
    "live_diagnoses": "live", "live_warned_with": "live", "live_warned": "live",
    "live_import_failed_except": "live", "live_module_shadowed": "live",
    # PaddlePaddle, MindSpore, MXNet
    "driver_runs_cuda": "frameworks", "paddle_variant": "frameworks",
    "paddle_install": "frameworks",
    "numpy_dependents": "frameworks",
    # install commands, planned by envdoctor.suggest
    "install_line": "install", "kept_install_line": "install",
    # probes that broke
    "probe_failure": "probe", "probe_failures": "probe", "probe_diagnoses": "probe",
    "probe_diagnosis_title": "probe", "probe_diagnosis_fix": "probe",
    "probe_diagnosed": "probe", "probe_said": "probe",
    # the loader's view of shared libraries
    "shadowing_verdicts": "loader",
}


def function(name: str) -> Callable[..., Any] | FirstOf:
    """The function (or ``FirstOf``) registered as ``name``; KeyError when there is none."""
    entry = REGISTRY[name]
    if isinstance(entry, FirstOf):
        return entry
    module = importlib.import_module(f"envdoctor.engine.knowledge.{entry}")
    return getattr(module, name)
