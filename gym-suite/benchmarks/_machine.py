"""What the benchmark scripts print about the machine they measured on."""

from __future__ import annotations

import importlib.util
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


def cpu_family() -> str:
    """``"AuthenticAMD family 25 model 17"``: the vendor, family and model numbers (Linux), which tell
    apart processors a hypervisor names alike (``cpu_name()`` may be just "AMD EPYC"); else ``""``."""
    fields: dict[str, str] = {}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if not line.strip():
                break
            key, _, value = line.partition(":")
            fields[key.strip()] = value.strip()
    except OSError:
        return ""
    if "vendor_id" not in fields:
        return ""
    return f"{fields['vendor_id']} family {fields.get('cpu family', '?')} model {fields.get('model', '?')}"


def load_average() -> str:
    """``"1.52/1.31/0.98"``: the load averages over 1, 5 and 15 minutes, or ``"n/a"``."""
    return "/".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "n/a"


def missing(modules) -> list[str]:
    """The modules of ``modules`` (import names) that are not installed: a script asks before it
    measures, so that no result is lost to a package it needs only to write the result."""
    return [name for name in modules if importlib.util.find_spec(name) is None]
