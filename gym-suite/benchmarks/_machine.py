"""What the benchmark scripts print about the machine they measured on."""

from __future__ import annotations

import os
import platform
from importlib import metadata
from pathlib import Path

PACKAGES = ("gymnasium", "numpy", "torch", "stable-baselines3", "ray")


def versions(names=PACKAGES) -> str:
    """``"gymnasium 1.4.0, numpy 2.4.6, ..."`` for the named packages that are installed."""
    found = []
    for name in names:
        try:
            found.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            pass
    return ", ".join(found)


def cpu_name() -> str:
    """The processor's model name (Linux), or what the platform module knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def load_average() -> str:
    """``"1.52/1.31/0.98"``: the load averages over 1, 5 and 15 minutes, or ``"n/a"``."""
    return "/".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "n/a"
