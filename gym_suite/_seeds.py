"""JAX's keys of the seeds a caller gives: any non-negative integer, as the numpy envs take it.

numpy only (no JAX import), shared by the ``gym_suite_jax/`` envs' ``reset`` (:mod:`gym_suite.jax`)
and :func:`gym_suite.training.jax.train_ppo`, so that one seed is one key everywhere.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import numpy.typing as npt


def seed_keys(seed: int, num_seeds: int) -> npt.NDArray[np.uint32]:
    """The raw JAX keys (``uint32[num_seeds, 2]``) of seeds ``seed``, ``seed + 1``, ...: seed ``s``
    below 2**64 is ``[s >> 32, s & 0xFFFFFFFF]`` (``jax.random.PRNGKey(s)``'s key, for ``s``
    below 2**32 with JAX's defaults and below 2**63 with x64), a larger one numpy's
    ``SeedSequence(s)`` state: every seed its own key, built without a loop over JAX calls."""
    keys = np.empty((num_seeds, 2), dtype=np.uint32)
    small = max(0, min(num_seeds, 2**64 - seed))  # the seeds below 2**64
    if small:
        values = np.uint64(seed) + np.arange(small, dtype=np.uint64)
        keys[:small, 0] = values >> np.uint64(32)
        keys[:small, 1] = values & np.uint64(0xFFFFFFFF)
    for i in range(small, num_seeds):
        keys[i] = np.random.SeedSequence(seed + i).generate_state(2, np.uint32)
    return keys
