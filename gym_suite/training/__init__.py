"""Training agents on the suite: recipes, training wrappers, Stable-Baselines3, JAX PPO and Ray RLlib.

``import gym_suite`` never imports this package, and this package imports none of the optional
libraries until one of its modules is imported: :mod:`~gym_suite.training.recipes` (budgets and
settings of every id, ``RECIPES``), :mod:`~gym_suite.training.wrappers` (training-only reward and
action wrappers), :mod:`~gym_suite.training.sb3` (``train_sb3``, ``SuiteVecEnv``, ``SB3Policy``,
``save_sb3``/``load_sb3_policy``; the ``sb3`` extra), :mod:`~gym_suite.training.sb3_recurrent`
(``train_recurrent_ppo``, ``RecurrentPolicy``), :mod:`~gym_suite.training.jax` (``train_ppo``; the
``jax`` extra), :mod:`~gym_suite.training.rllib` (``rllib_config``, ``train_rllib``,
``RLlibPolicy``; the ``rllib`` extra). Every trained policy is a callable ``observation -> action``
for :func:`gym_suite.evaluate`.
"""


def single_thread_torch() -> None:
    """One torch thread: tiny networks train several times faster than with the default pool."""
    import torch

    torch.set_num_threads(1)


def check_training_arguments(
    owner: str, steps: object, seed: object, n_envs: object = None, verbose: object = 0, *, budget: bool = True
) -> tuple:
    """The arguments every training call shares, checked by name: ``steps`` an integer >= 1 (or
    None, the recipe's budget, where ``budget``), ``seed`` an integer in ``0..2**32 - 1`` (numpy's
    legacy seeding, which Stable-Baselines3 and scikit-learn use, takes 32 bits), ``n_envs`` None or
    an integer >= 1, ``verbose`` an integer >= 0. ``TypeError`` for a value of the wrong kind,
    ``ValueError`` for one out of range."""
    from gym_suite.envs.checks import check_int, shown

    steps = check_int(owner, "steps", steps, 1, allow_none=budget)
    seed = check_int(owner, "seed", seed, 0)
    if seed >= 2**32:
        raise ValueError(f"{owner}: seed must be an integer in 0..2**32 - 1, got {shown(seed)}")
    n_envs = check_int(owner, "n_envs", n_envs, 1, allow_none=True)
    return steps, seed, n_envs, check_int(owner, "verbose", verbose, 0)


def check_flag(owner: str, name: str, value: object, allow_none: bool = False) -> bool | None:
    """``value`` True or False (numpy's too; None too with ``allow_none``) as a bool, else ``TypeError``."""
    import numpy as np

    from gym_suite.envs.checks import shown

    if value is None and allow_none:
        return None
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{owner}: {name} must be True or False, got {shown(value)}")
    return bool(value)


#: The keys of Ray's runtime environment that the scripts' ``--runtime-env`` passes on (Ray checks
#: their values).
RUNTIME_ENV_KEYS = ("working_dir", "py_modules", "pip", "uv", "conda", "env_vars", "excludes", "config")


def runtime_env_from_json(text: str) -> dict:
    """A Ray runtime environment given as JSON text (``'{"pip": ["gym-suite[sb3]"]}'``): an object of
    :data:`RUNTIME_ENV_KEYS`; anything else raises ``ValueError`` saying what is allowed."""
    import json

    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        value = None
    if not isinstance(value, dict):
        raise ValueError(f'{text[:80]!r}: expected a JSON object, e.g. \'{{"pip": ["gym-suite[sb3]"]}}\'')
    unknown = sorted(str(key) for key in value if key not in RUNTIME_ENV_KEYS)
    if unknown:
        raise ValueError(f"unknown key(s) {unknown}; the keys are {list(RUNTIME_ENV_KEYS)}")
    return value


def _reachable(address: str, timeout: float) -> None:
    """Raise ``ConnectionError`` naming ``address`` (``HOST:PORT`` or ``ray://HOST:PORT``) when
    nothing answers a TCP connection on it within ``timeout`` seconds: Ray itself would retry for
    minutes without a word."""
    import socket

    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(
            f"connect_ray: address must be HOST:PORT (e.g. 10.0.0.5:6379), ray://HOST:PORT, 'auto' or 'local', "
            f"got {address[:80]!r}"
        )
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
            pass
    except OSError as exc:
        raise ConnectionError(
            f"connect_ray: no Ray cluster answers at {address[:80]!r} ({exc.strerror or exc}); "
            "start one there (ray start --head --port=PORT) or give the address of a running one"
        ) from None


def connect_ray(address: str | None = None, *, runtime_env: dict | None = None, timeout: float = 10.0) -> str:
    """Join the Ray cluster at ``address`` (``RAY_ADDRESS`` when None), or start a new local Ray
    (not ``ray.init()``'s default, which joins the machine's last cluster); returns the address
    joined, ``"local"`` for a new local Ray. A Ray already initialized in this process is kept.
    ``runtime_env``: Ray's runtime environment of the job. ``ConnectionError`` naming an address
    where nothing answers within ``timeout`` seconds; ``TypeError`` for one that is not a string.
    """
    import os

    if address is not None and not isinstance(address, str):
        raise TypeError(f"connect_ray: address must be a string such as '10.0.0.5:6379', got {type(address).__name__}")
    if runtime_env is not None and not isinstance(runtime_env, dict):
        raise TypeError(f"connect_ray: runtime_env must be a dict, got {type(runtime_env).__name__}")
    import ray

    address = address or os.environ.get("RAY_ADDRESS") or "local"
    if not ray.is_initialized():
        if address == "local":
            ray.init(address="local", include_dashboard=False, configure_logging=False, runtime_env=runtime_env)
        else:
            if address != "auto":
                _reachable(address, timeout)
            ray.init(address=address, configure_logging=False, runtime_env=runtime_env)
    return address
