"""JAX's persistent compilation cache, on by default for the suite's compiled code.

Importing :mod:`gym_suite.jax` turns it on, in a subdirectory per kind of CPU (:func:`machine_tag`:
the entries are native code) of ``$XDG_CACHE_HOME/gym_suite/jax`` (:func:`default_cache_dir`), or
of ``GYM_SUITE_JAX_CACHE=/some/dir`` (``~`` expanded, a relative path taken from the working
directory at the import); ``GYM_SUITE_JAX_CACHE=off`` (or ``0``, ``false``, ``no``, ``none``) turns
it off. A cache directory the user gave JAX is kept, with the user's thresholds; otherwise
``jax_persistent_cache_min_compile_time_secs`` at JAX's default of 1 s becomes 0, so that every
program is written. These are JAX's process-wide settings; nothing is ever removed.
"""

from __future__ import annotations

import hashlib
import os
import platform
import sys
import warnings
from pathlib import Path
from typing import Any

#: The environment variable that moves the cache or turns it off.
ENV_VAR = "GYM_SUITE_JAX_CACHE"
#: Values of :data:`ENV_VAR` that turn the cache off (any case).
OFF = ("off", "0", "false", "no", "none")


def default_cache_dir() -> Path:
    """``<user cache directory>/gym_suite/jax``: ``$XDG_CACHE_HOME`` (an absolute path), else
    ``%LOCALAPPDATA%`` on Windows, ``~/Library/Caches`` on macOS, ``~/.cache`` elsewhere."""
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if xdg and os.path.isabs(xdg):
        base = Path(xdg)
    elif sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        base = Path(os.environ["LOCALAPPDATA"])
    else:
        base = Path.home() / ("Library/Caches" if sys.platform == "darwin" else ".cache")
    return base / "gym_suite" / "jax"


def machine_tag() -> str:
    """The CPU's architecture and a hash of its feature flags (``/proc/cpuinfo``'s on Linux)."""
    features = platform.processor()
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as cpuinfo:
            flags = (line.split(":", 1) for line in cpuinfo)
            features = next(
                (" ".join(sorted(f[1].split())) for f in flags if f[0].strip() in ("flags", "Features")), features
            )
    except OSError:
        pass
    return f"{platform.machine() or 'cpu'}-{hashlib.sha256(features.encode()).hexdigest()[:12]}"


def requested_cache_dir() -> Path | None:
    """The entries' directory :data:`ENV_VAR` asks for, or ``None`` when it turns the cache off."""
    value = os.environ.get(ENV_VAR, "").strip()
    if value.lower() in OFF:
        return None
    # absolute when read: JAX resolves a relative path at each write
    return (Path(value).expanduser().absolute() if value else default_cache_dir()) / machine_tag()


def unusable(path: Path) -> str | None:
    """Why ``path`` cannot hold the cache (it cannot be made, or is not a writable directory), or ``None``."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        return f"cannot make the directory {str(path)!r} ({error.strerror or error})"
    return None if os.access(path, os.W_OK | os.X_OK) else f"the directory {str(path)!r} is not writable"


def _config() -> Any:
    import jax

    return jax.config  # read as attributes: Config.read refuses the flags that have a context manager


def cache_dir_in_use() -> str | None:
    """The directory of JAX's persistent compilation cache, or ``None`` when it is off."""
    path = _config().jax_compilation_cache_dir
    enabled = getattr(_config(), "jax_enable_compilation_cache", True)  # a JAX without the switch: on
    return str(path) if path and enabled else None


def use_compilation_cache() -> str | None:
    """Turn JAX's persistent compilation cache on; the directory in use, or ``None`` when it is off."""
    config = _config()
    if config.jax_compilation_cache_dir:  # the user's own (or set by an earlier call)
        return cache_dir_in_use()
    path = requested_cache_dir()
    problem = None if path is None else unusable(path)
    if problem:
        warnings.warn(
            f"gym_suite.jax: JAX's compilation cache is off: {problem} (set {ENV_VAR} to another directory, "
            f"or to 'off' to say so)",
            RuntimeWarning,
            stacklevel=2,
        )
    if path is None or problem:
        return None
    config.update("jax_compilation_cache_dir", str(path))
    if config.jax_persistent_cache_min_compile_time_secs == 1.0:  # JAX's default
        config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    return cache_dir_in_use()
