"""JAX's persistent compilation cache, on by default for the suite's compiled code.

JAX compiles a function again in every new process unless its persistent compilation cache is
on (``jax_compilation_cache_dir``), which JAX leaves off by default. Importing
:mod:`gym_suite.jax` (and so :func:`gym_suite.training.jax.train_ppo`) turns it on:

- ``GYM_SUITE_JAX_CACHE`` unset or empty: the user's cache directory, ``$XDG_CACHE_HOME/gym_suite/jax``
  (``~/.cache/gym_suite/jax`` without ``XDG_CACHE_HOME``; ``~/Library/Caches/gym_suite/jax`` on
  macOS, ``%LOCALAPPDATA%\\gym_suite\\jax`` on Windows);
- ``GYM_SUITE_JAX_CACHE=/some/dir``: that directory (``~`` expanded; a relative path is taken from
  the working directory at the import, once: the cache stays there if the process changes it);
- in either, a subdirectory per kind of CPU (:func:`machine_tag`, say ``x86_64-1a2b3c4d5e6f``):
  the entries are native code for the CPU that compiled them;
- ``GYM_SUITE_JAX_CACHE=off`` (or ``0``, ``false``, ``no``, ``none``): no cache, nothing written.

A cache directory the user gave JAX (``JAX_COMPILATION_CACHE_DIR`` or
``jax.config.update("jax_compilation_cache_dir", ...)`` before the import) is kept, with the user's
thresholds. Otherwise the suite sets the directory and, if it is at JAX's default of 1 s, lowers
``jax_persistent_cache_min_compile_time_secs`` to 0 so that every compiled program is written
(the suite's smaller ones compile in less than a second, and a program compiled faster on a quiet
machine is written all the same). These are JAX's process-wide settings: other programs compiled
in the same process use the cache too.

The cache is JAX's own: the entries are named by a hash of the program, the compile options and
the JAX, jaxlib and XLA versions, so another version or setting compiles afresh; nothing is ever
removed (delete the directory to empty it). JAX trusts what it reads there: keep it private.
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
#: JAX's default ``jax_persistent_cache_min_compile_time_secs``.
_JAX_MIN_COMPILE_TIME = 1.0


def default_cache_dir() -> Path:
    """``<user cache directory>/gym_suite/jax``: ``$XDG_CACHE_HOME`` (an absolute path), else
    ``%LOCALAPPDATA%`` on Windows, ``~/Library/Caches`` on macOS, ``~/.cache`` elsewhere."""
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if xdg and os.path.isabs(xdg):
        base = Path(xdg)
    elif sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        base = Path(os.environ["LOCALAPPDATA"])
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path.home() / ".cache"
    return base / "gym_suite" / "jax"


def machine_tag() -> str:
    """The subdirectory of this machine's entries: the CPU's architecture and a hash of its feature
    flags (``/proc/cpuinfo``'s on Linux, ``platform.processor()`` elsewhere). XLA compiles native
    code for the CPU it runs on; machines that share a home directory never load each other's."""
    features = platform.processor()
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as cpuinfo:
            for line in cpuinfo:
                if line.split(":")[0].strip() in ("flags", "Features"):
                    features = " ".join(sorted(line.split(":", 1)[1].split()))
                    break
    except OSError:
        pass
    digest = hashlib.sha256(features.encode()).hexdigest()[:12]
    return f"{platform.machine() or 'cpu'}-{digest}"


def requested_cache_dir() -> Path | None:
    """The directory :data:`ENV_VAR` asks for (:func:`default_cache_dir` when unset or empty), or
    ``None`` when it turns the cache off; the entries go into its :func:`machine_tag` subdirectory."""
    value = os.environ.get(ENV_VAR, "").strip()
    if not value:
        return default_cache_dir() / machine_tag()
    if value.lower() in OFF:
        return None
    # absolute when read (at import): the cache stays where it was asked for when the process
    # changes its working directory (JAX resolves a relative path at each write)
    return Path(value).expanduser().absolute() / machine_tag()


def unusable(path: Path) -> str | None:
    """Why ``path`` cannot hold the cache (it cannot be made, or is not a writable directory), or ``None``."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        return f"cannot make the directory {str(path)!r} ({error.strerror or error})"
    if not os.access(path, os.W_OK | os.X_OK):
        return f"the directory {str(path)!r} is not writable"
    return None


def _read(name: str) -> Any:
    import jax

    return getattr(jax.config, name)  # the flag's value (Config.read refuses the flags that have a context manager)


def _update(name: str, value: Any) -> None:
    import jax

    jax.config.update(name, value)  # type: ignore[no-untyped-call]  # jax leaves Config.update unannotated


def cache_dir_in_use() -> str | None:
    """The directory of JAX's persistent compilation cache, or ``None`` when it is off."""
    path = _read("jax_compilation_cache_dir")
    try:
        enabled = _read("jax_enable_compilation_cache")
    except AttributeError:  # a JAX without the switch
        enabled = True
    return str(path) if path and enabled else None


def use_compilation_cache() -> str | None:
    """Turn JAX's persistent compilation cache on (see the module's description); the directory
    in use, or ``None`` when it is off. Leaves a directory the user configured in JAX as it is."""
    if _read("jax_compilation_cache_dir"):  # the user's own (or set by an earlier call)
        return cache_dir_in_use()
    path = requested_cache_dir()
    if path is None:
        return None
    problem = unusable(path)
    if problem:
        warnings.warn(
            f"gym_suite.jax: JAX's compilation cache is off: {problem} (set {ENV_VAR} to another directory, "
            f"or to 'off' to say so)",
            RuntimeWarning,
            stacklevel=2,
        )
        return None
    _update("jax_compilation_cache_dir", str(path))
    if _read("jax_persistent_cache_min_compile_time_secs") == _JAX_MIN_COMPILE_TIME:
        _update("jax_persistent_cache_min_compile_time_secs", 0.0)
    return cache_dir_in_use()
