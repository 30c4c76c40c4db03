"""docs/tutorials.md's flows (the block after each ``<!-- marker -->``) run as shown, with smaller budgets
whose replaced strings must be there; the RLlib flows run in tests/rllib/test_rllib.py."""

from __future__ import annotations

import math
import re
from pathlib import Path

import gymnasium
import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "tutorials.md"
pytestmark = [  # the tutorials' own code makes these on purpose: the legacy gym, a v0 id, SB3's evaluation
    pytest.mark.filterwarnings("ignore:You provided an OpenAI Gym environment"),
    pytest.mark.filterwarnings("ignore:Evaluation environment is not wrapped"),
    pytest.mark.filterwarnings("ignore:.*is out of date. You should consider upgrading"),
]
MARKERS = (
    "tutorial-000-heartpole-dqn",
    "tutorial-001-example-baseline",
    "tutorial-001-example-rllib",
    "tutorial-002-heartpole-loop",
    "tutorial-003-push",
    "tutorial-004-target-rllib",
)


def page_block(marker: str) -> str:
    """The Python code block that follows ``<!-- marker -->`` on the tutorials page."""
    text = PAGE.read_text(encoding="utf-8")
    start = text.index(f"<!-- {marker} -->")
    start = text.index("```python\n", start) + len("```python\n")
    return text[start : text.index("```", start)]


def shrink(code: str, *replacements: tuple[str, str]) -> str:
    """``code`` with each ``old`` replaced by ``new``; each ``old`` must occur exactly once."""
    for old, new in replacements:
        assert code.count(old) == 1, f"the page's block no longer has {old!r} once"
        code = code.replace(old, new)
    return code


def run(code: str) -> dict:
    namespace: dict = {"__name__": "__tutorial__"}
    exec(compile(code, str(PAGE), "exec"), namespace)
    return namespace


def test_the_page_marks_every_flow():
    for marker in MARKERS:
        assert page_block(marker).strip(), marker


def test_example_env_has_the_tutorials_max_steps(gym_np_bool8):
    """The tutorial loops ``for i in range(env.MAX_STEPS)``: the registered limit, a class constant."""
    env = gymnasium.make("gym_suite:example-v0")
    assert env.unwrapped.MAX_STEPS == env.spec.max_episode_steps == 10 and isinstance(env.unwrapped.MAX_STEPS, int)
    vec = gymnasium.make_vec("gym_suite:example-v0", num_envs=2, vectorization_mode="vector_entry_point")
    assert vec.unwrapped.MAX_STEPS == 10
    longer = gymnasium.make("gym_suite:example-v0", max_episode_steps=30)
    assert longer.unwrapped.MAX_STEPS == 10 and longer.spec.max_episode_steps == 30
    gym = pytest.importorskip("gym")
    assert gym.make("gym_suite:example-v0").MAX_STEPS == 10  # gym's wrappers pass attributes through


@pytest.mark.slow
@pytest.mark.parametrize("api", ["gym", "gymnasium"])
def test_000_heartpole_dqn_runs_as_the_page_shows_it(api, gym_np_bool8):
    """As written (the legacy gym), and with ``import gymnasium as gym``, which the page says runs too."""
    pytest.importorskip(api)
    pytest.importorskip("stable_baselines3")
    code = shrink(
        page_block("tutorial-000-heartpole-dqn"),
        ("total_timesteps=1000", "total_timesteps=200"),
        ("n_eval_episodes=5", "n_eval_episodes=1"),
        ("verbose=1", "verbose=0"),
    )
    if api == "gymnasium":
        code = shrink(code, ("import gym\n", "import gymnasium as gym\n"))
    ns = run(code)
    assert type(ns["heartpole"]).__module__.split(".")[0] == api  # the env of the library imported
    assert ns["model"].num_timesteps == 200
    assert math.isfinite(ns["mean_reward"]) and ns["std_reward"] == 0.0  # one episode


@pytest.mark.slow
def test_001_example_baseline_runs_and_prints_the_random_baseline(capsys):
    pytest.importorskip("gym")
    ns = run(shrink(page_block("tutorial-001-example-baseline"), ("range(10000)", "range(400)")))
    out = capsys.readouterr().out
    assert type(ns["env"]).__module__.split(".")[0] == "gym"
    assert "|" in out and "goal 5" in out  # the verbose episode's frames
    # random actions: -5.42 ± 11.30 over 10,000 episodes; 400 of them within 4 standard errors
    assert len(ns["history"]) == 400
    assert abs(ns["avg_sum_reward"] - -5.42) < 4 * 11.30 / math.sqrt(400)
    assert "baseline cumulative reward:" in out


@pytest.mark.slow
def test_002_heartpole_loop_prints_the_log_once_a_step(capsys):
    ns = run(page_block("tutorial-002-heartpole-loop"))
    out = capsys.readouterr().out
    assert out.count("Chosen action:") == 6  # the reset's frame and five steps, each once
    assert ns["heartpole"].unwrapped.state.time_elapsed >= 5
    assert isinstance(ns["terminated"], bool) and isinstance(ns["truncated"], bool)


@pytest.mark.slow
def test_003_push_loop_plays_one_episode(capsys):
    pytest.importorskip("gym")
    ns = run(page_block("tutorial-003-push"))
    out = capsys.readouterr().out
    total = ns["total_reward"]
    assert ns["finished"] and -100 <= total <= 100 and float(total).is_integer()  # +1 or -1 for 100 decisions
    assert out.count("decision") >= 100 and "Total Reward: " in out


def test_004_play_command_takes_target():
    from gym_suite.cli import build_parser

    command = re.search(r"gym-suite (play target-v0[^`\n]*)", PAGE.read_text(encoding="utf-8"))
    assert command, "the page no longer gives the play command"
    assert build_parser().parse_args(command.group(1).split()).id == "target-v0"
