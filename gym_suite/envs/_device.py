"""Parameters and values as the JAX envs hold them: shared by ``gym_suite.jax`` and the checker."""

from __future__ import annotations

import dataclasses
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np


def int_dtype() -> Any:
    """JAX's default integer: int32, or int64 in 64-bit mode."""
    return jnp.zeros(0, dtype=int).dtype


def float_dtype() -> Any:
    """JAX's default float: float32, or float64 in 64-bit mode."""
    return jnp.zeros(0).dtype


def x64() -> bool:
    """Whether JAX's 64-bit mode is on."""
    return bool(jax.config.read("jax_enable_x64"))  # type: ignore[no-untyped-call]  # jax leaves Config.read unannotated


def device_params(params: Any) -> Any:
    """``params`` with its numeric numpy arrays (push-v0's log) as device arrays."""
    if not dataclasses.is_dataclass(params) or isinstance(params, type):
        return params
    # np.array(value): a writeable copy. JAX caches the device copy of a read-only numpy array (the
    # logs' arrays are read-only) and hands it out again whatever the precision it is asked for now:
    # an array first used in 32-bit mode came back float32 under jax.enable_x64.
    changes = {
        field.name: jnp.asarray(np.array(value))
        for field in dataclasses.fields(params)
        if isinstance(value := getattr(params, field.name), np.ndarray) and value.dtype.kind in "biuf"
    }
    if not changes:
        return params
    copy = object.__new__(type(params))  # frozen: set the fields without running __init__'s checks
    for field in dataclasses.fields(params):
        object.__setattr__(copy, field.name, changes.get(field.name, getattr(params, field.name)))
    return copy


def numeric(value: Any) -> bool:
    """Whether an info value can be a JAX array (names and other objects are left out)."""
    if isinstance(value, (jax.Array, bool, int, float, np.bool_, np.number)):
        return True
    return isinstance(value, np.ndarray) and value.dtype.kind in "biuf"
