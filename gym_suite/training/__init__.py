"""Training agents on the suite: recipes, training wrappers, Stable-Baselines3 and Ray RLlib.

Optional: ``gym_suite.training.sb3`` needs the ``sb3`` extra (``pip install "gym-suite[sb3]"``)
and ``gym_suite.training.rllib`` the ``rllib`` extra. ``import gym_suite`` never imports this
package, and this package imports neither of them until one of those modules is imported.

- :mod:`gym_suite.training.recipes`: budgets and hyper-parameters of every id (``RECIPES``);
- :mod:`gym_suite.training.wrappers`: the training-only reward and action wrappers;
- :mod:`gym_suite.training.sb3`: ``train_sb3``, ``SuiteVecEnv`` (the native vector env as a
  Stable-Baselines3 ``VecEnv``), the greedy ``SB3Policy``, ``save_sb3``/``load_sb3_policy``;
- :mod:`gym_suite.training.rllib`: ``rllib_config`` (a ready ``PPOConfig`` for any id), ``train_rllib``,
  ``RLlibPolicy.from_algorithm`` / ``RLlibPolicy.from_checkpoint``.

Every trained policy is a callable ``observation -> action`` with a batched ``act_batch``, for
:func:`gym_suite.evaluate`.
"""


def single_thread_torch() -> None:
    """One torch thread: tiny networks train several times faster than with the default pool."""
    import torch

    torch.set_num_threads(1)


def connect_ray(address: str | None = None) -> str:
    """Join the Ray cluster at ``address`` (``RAY_ADDRESS`` when None), or start a new local Ray
    when neither is given (not ``ray.init()``'s default, which joins the last cluster started on
    the machine, whoever's it is); the address joined, ``"local"`` for a new local Ray. A Ray
    already initialized in this process is kept as it is."""
    import os

    import ray

    address = address or os.environ.get("RAY_ADDRESS") or "local"
    if not ray.is_initialized():
        if address == "local":
            ray.init(address="local", include_dashboard=False, configure_logging=False)
        else:
            ray.init(address=address, configure_logging=False)
    return address
