# Excerpt (the release constants, and the lines that add the XPU arch) of pytorch/test-infra tools/scripts/generate_binary_build_matrix.py
# on branch release/2.14 at c840391a15b90d8bc60be5667e7612fbb90b6bfe (2026-08-21, '[release/2.14] Remove
# CUDA 13.4 from the binary build matrix', #8601: 'CUDA 13.4 is not shipping in the 2.14 release'):
# what release/2.14 builds and validates. sources.toml takes only its variant lists from it.
PYTHON_ARCHES_DICT = {
    "nightly": ["3.10", "3.11", "3.12", "3.13", "3.14", "3.14t", "3.15", "3.15t"],
    "test": ["3.10", "3.11", "3.12", "3.13", "3.14", "3.14t", "3.15", "3.15t"],
    "release": ["3.10", "3.11", "3.12", "3.13", "3.14", "3.14t"],
}
TORCH_ONLY_PYTHON_ARCHES = ["3.15", "3.15t"]
CUDA_ARCHES_DICT = {
    "nightly": ["12.6", "13.0", "13.2"],
    "test": ["12.6", "13.0", "13.2"],
    "release": ["12.6", "13.0", "13.2"],
}
ROCM_ARCHES_DICT = {
    "nightly": ["7.2", "7.14"],
    "test": ["7.2", "7.14"],
    "release": ["7.1", "7.2"],
}
STABLE_CUDA_VERSIONS = {
    "nightly": "13.0",
    "test": "13.0",
    "release": "13.0",
}
CUDA_AARCH64_ARCHES = ["12.6-aarch64", "13.0-aarch64", "13.2-aarch64"]
CUDA_ARCHES_NO_WINDOWS: list[str] = []
CURRENT_NIGHTLY_VERSION = "2.14.0"
CURRENT_CANDIDATE_VERSION = "2.14.0"
CURRENT_STABLE_VERSION = "2.13.0"
XPU = "xpu"


def generate_wheels_matrix(os, with_xpu, arches):  # excerpt: the default arches per OS
        if with_xpu == ENABLE and os in (LINUX, WINDOWS):
            arches += [XPU]


def main(parser):  # excerpt: the --with-xpu option
    parser.add_argument(
        "--with-xpu",
        default=os.getenv("WITH_XPU", ENABLE),
    )
