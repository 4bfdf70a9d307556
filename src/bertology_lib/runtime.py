"""Where and how computation runs: the device (and, later, the thread policy)."""

from __future__ import annotations

from bertology_lib.validation import check_choice

DEVICES: tuple[str, ...] = ("cpu", "cuda", "auto")


def resolve_device(device: str) -> str:
    """``auto`` -> ``cuda`` when available, else ``cpu``; ``cpu``/``cuda`` as given."""
    check_choice("device", device, DEVICES)
    if device == "auto":
        import torch

        return "cuda" if torch.cuda.is_available() else "cpu"
    return device
