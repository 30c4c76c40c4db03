"""gym-suite: custom reinforcement-learning environments for Gymnasium (and the legacy gym).

Importing the package registers every environment with Gymnasium, and with gym when gym has
already been imported (gym itself finds them through the ``gym.envs`` plugin otherwise)::

    import gymnasium
    env = gymnasium.make("gym_suite:heartpole-v0")
"""

from __future__ import annotations

import functools
import sys
from typing import Any, NoReturn

import gymnasium

from gym_suite._registry import ENV_IDS, JAX_NAMESPACE, RENAMED_IDS, SPECS, Spec

__version__ = "0.1.0"


def _renamed_id(old: str, new: str, **kwargs: Any) -> NoReturn:
    raise gymnasium.error.Error(
        f"{old} is the tutorial's id; gym-suite's environment is {new!r}: "
        f"gymnasium.make('gym_suite:{new}') (its docstring says how it differs from the tutorial's)"
    )


def register_gymnasium() -> None:
    """Register every environment with Gymnasium: each id, its JAX env (``gym_suite_jax/<id>``)
    and the tutorials' renamed ids (ids that already exist are left alone)."""
    for spec in SPECS:
        if spec.id in gymnasium.registry:
            continue
        gymnasium.register(
            id=spec.id,
            entry_point=spec.entry_point,
            vector_entry_point=spec.vector_entry_point,
            max_episode_steps=spec.max_episode_steps,  # TimeLimit's, and make_vec passes it to the vector env
        )
    for spec in SPECS:  # the JAX envs (gym_suite.jax, the [jax] extra): strings only, JAX loads on make
        jax_id = f"{JAX_NAMESPACE}/{spec.id}"
        if jax_id not in gymnasium.registry:
            gymnasium.register(
                id=jax_id,
                entry_point="gym_suite.jax:JaxEnv",
                vector_entry_point="gym_suite.jax:JaxVectorEnv",
                max_episode_steps=spec.max_episode_steps,
                kwargs={"env_id": spec.id},
                disable_env_checker=True,
            )
    for old, new in RENAMED_IDS.items():
        if old not in gymnasium.registry:
            gymnasium.register(id=old, entry_point=functools.partial(_renamed_id, old, new))


register_gymnasium()

if "gym" in sys.modules:  # gym was imported first: give it the ids now
    from gym_suite._gym import register_gym

    register_gym()

from gym_suite.evaluate import action_seed, evaluate  # noqa: E402  (light: joblib and tqdm load on use)
from gym_suite.score import score  # noqa: E402

__all__ = [
    "ENV_IDS",
    "JAX_NAMESPACE",
    "RENAMED_IDS",
    "SPECS",
    "Spec",
    "__version__",
    "action_seed",
    "evaluate",
    "register_gymnasium",
    "score",
]
