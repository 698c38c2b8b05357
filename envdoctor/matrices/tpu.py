"""Look-ups in rules/matrices/tpu.toml: which Google PCI devices are Cloud TPU chips (JAX's own
table of device ids), and which platform JAX's environment variables make its default."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from envdoctor.matrices import matrix


def chip_row(vendor: str, device: str) -> dict[str, Any] | None:
    """The [[chip]] row of a PCI device (vendor and device ids as sysfs gives them, "0x1ae0",
    "0x0063"); None when it is not a TPU chip the data knows."""
    data = matrix("tpu")
    if vendor.strip().lower() != str(data.get("vendor", {}).get("id", "")).lower():
        return None
    return next((r for r in data.get("chip", []) if r.get("id") == device.strip().lower()), None)


def tpu_chips(devices: Iterable[Any]) -> list[tuple[Any, dict[str, Any]]]:
    """(device, row) for each Google PCI device (``host.google_pci_devices``) that is a TPU
    chip."""
    vendor = str(matrix("tpu").get("vendor", {}).get("id", ""))
    return [(d, row) for d in devices if (row := chip_row(vendor, getattr(d, "device", "")))]


def describe_chips(devices: Iterable[Any]) -> str:
    """"4 TPU v5e chips on the PCI bus (1ae0:0063)"; "" when none of the devices is a chip."""
    chips = tpu_chips(devices)
    if not chips:
        return ""
    vendor = str(matrix("tpu").get("vendor", {}).get("id", "")).removeprefix("0x")
    names = sorted({row["name"] for _, row in chips})
    ids = sorted({f"{vendor}:{d.device.removeprefix('0x')}" for d, _ in chips})
    noun = "chip" if len(chips) == 1 else "chips"
    return f"{len(chips)} {' / '.join(names)} {noun} on the PCI bus ({', '.join(ids)})"


def jax_default_platform(env: Mapping[str, str]) -> tuple[str, str] | None:
    """(variable=value as set, the platform it makes JAX's default) when the environment
    chooses JAX's platform: the deprecated JAX_PLATFORM_NAME when set, else the first entry of
    JAX_PLATFORMS. None when neither is set (or both are empty): JAX chooses itself."""
    row = matrix("tpu").get("jax_platforms", {})
    name_var, list_var = str(row.get("name_var", "")), str(row.get("list_var", ""))
    name = env.get(name_var, "").strip().lower() if name_var else ""
    if name:
        return f"{name_var}={env[name_var].strip()}", name
    listed = [p.strip().lower() for p in env.get(list_var, "").split(",") if p.strip()] \
        if list_var else []
    if listed:
        return f"{list_var}={env[list_var].strip()}", listed[0]
    return None


def tpu_platform() -> str:
    """JAX's name of the TPU platform ("tpu")."""
    return str(matrix("tpu").get("jax_platforms", {}).get("platform", "tpu"))
