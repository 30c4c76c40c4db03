"""The learning curve of a Stable-Baselines3 run, for the training benchmarks: the agent evaluated at
rollout boundaries with the clock stopped; the first point of a curve at a return, the median of runs."""

from __future__ import annotations

import math
import statistics
import time


def first_reached(points: list[dict], target: float | None, slack: float = 0.0) -> dict | None:
    """The first point whose ``mean`` is at least ``target - slack`` (None: no target, or not reached)."""
    return None if target is None else next((p for p in points if p["mean"] >= target - slack), None)


def median(values) -> float:
    """The median of the finite values (None left out), NaN when there is none."""
    values = [v for v in values if v is not None and math.isfinite(v)]
    return statistics.median(values) if values else math.nan


def curve_callback(record: dict, evaluate, every: int, progress=None, points: str = "points"):
    """A callback that evaluates the agent at the start, at the first rollout boundary at or past
    each multiple of ``every`` steps (PPO's policy only changes between rollouts) and at the end.

    ``record[points]`` gets ``{"steps", "seconds", **evaluate(model)}`` (seconds of training, the
    evaluations left out), ``record["wall"]`` and ``record["steps"]`` the whole run's, and
    ``record["collect"]``, where it is a key, the seconds of ``collect_rollouts``; ``progress``
    (``gym_suite.progress.Progress``) counts the env steps trained.
    """
    from stable_baselines3.common.callbacks import BaseCallback

    class Curve(BaseCallback):
        def __init__(self):
            super().__init__()
            self.next_eval = self.last_steps = 0
            self.started = self.eval_seconds = self.rollout_started = self.rollout_eval = 0.0

        def _seconds(self) -> float:
            return time.perf_counter() - self.started - self.eval_seconds

        def _evaluate(self) -> None:
            start = time.perf_counter()
            found = evaluate(self.model)
            self.eval_seconds += time.perf_counter() - start
            record[points].append({"steps": int(self.model.num_timesteps), "seconds": self._seconds(), **found})
            while self.next_eval <= self.model.num_timesteps:
                self.next_eval += every

        def _on_training_start(self) -> None:
            self.started = time.perf_counter()
            self._evaluate()  # the untrained agent

        def _on_rollout_start(self) -> None:
            if self.model.num_timesteps >= self.next_eval:
                self._evaluate()  # the policy the previous update made
            self.rollout_started, self.rollout_eval = time.perf_counter(), self.eval_seconds

        def _on_step(self) -> bool:
            return True

        def _on_rollout_end(self) -> None:
            if "collect" in record:
                record["collect"] += (
                    time.perf_counter() - self.rollout_started - (self.eval_seconds - self.rollout_eval)
                )
            if progress is not None:
                progress.update(self.model.num_timesteps - self.last_steps)
            self.last_steps = self.model.num_timesteps

        def _on_training_end(self) -> None:
            record["wall"], record["steps"] = self._seconds(), int(self.model.num_timesteps)
            if record[points][-1]["steps"] != self.model.num_timesteps:
                self._evaluate()  # the trained agent

    return Curve()
