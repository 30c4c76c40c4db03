"""The legacy OpenAI gym edge: space conversion, a ``gym.Env`` adapter and the plugin.

gym 0.26.2's env checker calls ``np.bool8`` (gone in numpy 2): every id is registered with
``disable_env_checker=True``. Nothing here imports gym at module level: gym loads
:func:`register_gym` through its ``gym.envs`` entry point while it is being imported.
"""

from __future__ import annotations

import warnings
from functools import cache
from typing import TYPE_CHECKING, Any, NoReturn

import gymnasium

from gym_suite._registry import RENAMED_IDS, rows
from gym_suite.evaluate import action_seed

if TYPE_CHECKING:  # never at run time: importing this module must not import gym
    import gym


def convert_space(space: gymnasium.spaces.Space[Any]) -> gym.spaces.Space[Any]:
    """The gym equivalent of a Gymnasium space."""
    from gym import spaces as gs
    from gymnasium import spaces as ns

    if isinstance(space, ns.Box):
        return gs.Box(low=space.low, high=space.high, shape=space.shape, dtype=space.dtype)  # type: ignore[arg-type]  # gym's hint says a type; a np.dtype works
    if isinstance(space, ns.Discrete):
        return gs.Discrete(int(space.n), start=int(space.start))
    if isinstance(space, ns.MultiBinary):
        return gs.MultiBinary(space.n)
    if isinstance(space, ns.MultiDiscrete):
        return gs.MultiDiscrete(space.nvec, dtype=space.dtype)
    if isinstance(space, ns.Dict):
        return gs.Dict({key: convert_space(sub) for key, sub in space.spaces.items()})
    if isinstance(space, ns.Tuple):
        return gs.Tuple(tuple(convert_space(sub) for sub in space.spaces))
    raise TypeError(
        f"cannot convert {type(space).__name__} to a gym space; supported: "
        "Box, Discrete, MultiBinary, MultiDiscrete, Dict, Tuple"
    )


@cache
def _adapter_class() -> type[gym.Env[Any, Any]]:
    import gym

    class GymAdapter(gym.Env[Any, Any]):
        """A gym suite environment behind the legacy ``gym.Env`` interface (gym 0.26 API)."""

        def __init__(self, env_id: str, **kwargs: Any) -> None:
            spec = gymnasium.spec(env_id)
            creator = gymnasium.envs.registration.load_env_creator(str(spec.entry_point))
            self.env = creator(**{**spec.kwargs, **kwargs})
            self.metadata = self.env.metadata
            self.render_mode = self.env.render_mode
            self.action_space = convert_space(self.env.action_space)
            self.observation_space = convert_space(self.env.observation_space)

        def reset(
            self, *, seed: int | None = None, options: dict[str, Any] | None = None
        ) -> tuple[Any, dict[str, Any]]:
            result = self.env.reset(seed=seed, options=options)  # checks seed and options first
            super().reset(seed=seed)
            if seed is not None:  # a stream of its own: never the env's start draws again
                self.action_space.seed(action_seed(seed))
            return result

        def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
            return self.env.step(action)  # type: ignore[return-value]  # gymnasium says SupportsFloat: the rewards are floats

        def render(self) -> Any:
            return self.env.render()

        def close(self) -> None:
            self.env.close()

        def __getattr__(self, name: str) -> Any:  # attributes of the suite env (goal, vocabularies, ...)
            if name.startswith("_") or name == "env":
                raise AttributeError(name)
            return getattr(self.env, name)

    GymAdapter.__module__ = __name__
    GymAdapter.__qualname__ = "GymAdapter"
    GymAdapter.metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 4}
    return GymAdapter


def __getattr__(name: str) -> Any:
    if name == "GymAdapter":  # built on first use, so that this module never imports gym itself
        return _adapter_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@cache
def _renamed_id_error_class() -> type[Exception]:
    import gym

    class RenamedIdError(gym.error.Error, gymnasium.error.Error):
        """A tutorial's id made through gym: gymnasium's message, caught as either library's error."""

    RenamedIdError.__module__ = __name__
    return RenamedIdError


def renamed_id(old: str, **kwargs: Any) -> NoReturn:
    """gym's entry point of a tutorial's renamed id: the error ``gymnasium.make(old)`` raises."""
    try:
        gymnasium.make(old)
    except gymnasium.error.Error as exc:
        raise _renamed_id_error_class()(str(exc)) from None
    raise RuntimeError(f"gymnasium.make({old!r}) made an env: {old} is not a renamed id")  # pragma: no cover


def register_gym() -> None:
    """Register every row's id and the tutorials' renamed ids with gym, never twice (gym's ``gym.envs`` plugin hook)."""
    try:
        import functools

        from gym.envs.registration import register, registry

        for spec in (spec for spec in rows() if spec.id not in registry):
            entry, steps = "gym_suite._gym:GymAdapter", spec.max_episode_steps
            register(
                id=spec.id,
                entry_point=entry,
                max_episode_steps=steps,
                disable_env_checker=True,
                kwargs={"env_id": spec.id},
            )
        for old in RENAMED_IDS:
            if old not in registry:
                register(id=old, entry_point=functools.partial(renamed_id, old), disable_env_checker=True)
    except Exception as exc:  # a plugin must never break `import gym`
        warnings.warn(f"gym_suite could not register its environments with gym: {exc!r}", stacklevel=2)
