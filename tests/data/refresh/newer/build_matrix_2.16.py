# A CONSTRUCTED newer snapshot for the refresh tests, in the shape of pytorch/test-infra
# tools/scripts/generate_binary_build_matrix.py after a "Release 2.16 go live": not upstream
# data (no torch 2.16 exists as of 2026-12-02).
PYTHON_ARCHES_DICT = {
    "nightly": ["3.11", "3.12", "3.13", "3.14", "3.14t", "3.15", "3.15t"],
    "test": ["3.11", "3.12", "3.13", "3.14", "3.14t", "3.15", "3.15t"],
    "release": ["3.11", "3.12", "3.13", "3.14", "3.14t"],
}
TORCH_ONLY_PYTHON_ARCHES = ["3.15", "3.15t"]
CUDA_ARCHES_DICT = {
    "nightly": ["13.0", "13.2", "13.4"],
    "test": ["13.0", "13.2", "13.4"],
    "release": ["13.0", "13.2", "13.4"],
}
ROCM_ARCHES_DICT = {
    "nightly": ["7.2", "7.14"],
    "test": ["7.2", "7.14"],
    "release": ["7.2", "7.14"],
}
STABLE_CUDA_VERSIONS = {
    "nightly": "13.2",
    "test": "13.2",
    "release": "13.2",
}
CUDA_AARCH64_ARCHES = ["13.0-aarch64", "13.2-aarch64", "13.4-aarch64"]
CUDA_ARCHES_NO_WINDOWS = ["13.4"]
CURRENT_NIGHTLY_VERSION = "2.17.0"
CURRENT_CANDIDATE_VERSION = "2.16.0"
CURRENT_STABLE_VERSION = "2.16.0"
