"""gym_suite.score: an agent placed in the baselines table, on the table's own evaluation episodes."""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from conftest import ALL_IDS
from hypothesis import given, settings
from hypothesis import strategies as st

import gym_suite
from gym_suite.cli import main
from gym_suite.references import paired_text
from gym_suite.score import Score, reference_table_text, table, table_episodes

ROOT = Path(__file__).resolve().parents[1]


def table_row(env_id: str, policy: str) -> dict[str, str]:
    with (ROOT / "docs" / "baselines.csv").open(encoding="utf-8", newline="") as f:
        return next(r for r in csv.DictReader(f) if (r["env_id"], r["policy"]) == (env_id, policy))


def test_the_packaged_table_is_docs_baselines_csv():
    """gym_suite/data/baselines.csv (package data) holds docs/baselines.csv's numbers."""
    packaged = (ROOT / "gym_suite" / "data" / "baselines.csv").read_text(encoding="utf-8")
    assert packaged == reference_table_text((ROOT / "docs" / "baselines.csv").read_text(encoding="utf-8")), (
        "gym_suite/data/baselines.csv is out of date: python gym-suite/benchmarks/baselines.py --summarize writes it"
    )
    assert {r.policy for r in table("heartpole-v1")} >= {"random", "heuristic", "optimum", "jax-ppo"}


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_the_heuristics_returns_land_on_the_tables_heuristic_row(env_id):
    try:
        table(env_id)
    except ValueError as error:  # a new id: reported, not failed, until the baselines script gives it rows
        pytest.skip(f"{error} (python gym-suite/benchmarks/baselines.py gives it rows)")
    result = gym_suite.score(env_id, "heuristic", paired=False)  # played on the table's episodes
    row = table_row(env_id, "heuristic")
    assert result.normalized == pytest.approx(float(row["normalized"]), abs=1e-4)
    assert result.mean == pytest.approx(float(row["iqm"]), rel=1e-5, abs=1e-3)
    assert result.normalized_ci_low <= float(row["normalized"]) <= result.normalized_ci_high
    assert "heuristic" in result.placement()
    assert all(not d.paired for d in result.differences)


def test_a_policy_is_played_on_the_tables_episodes_and_paired_with_the_heuristic():
    """push-v1's table plays the held-out test log: the heuristic paired with itself differs by exactly 0."""
    result = gym_suite.score("push-v1", "heuristic")
    assert isinstance(result, Score) and result.episodes == 1000
    assert result.normalized == pytest.approx(float(table_row("push-v1", "heuristic")["normalized"]), abs=1e-4)
    (paired,) = [d for d in result.differences if d.paired]
    assert (paired.policy, paired.difference, paired.ci_low, paired.ci_high) == ("heuristic", 0.0, 0.0, 0.0)
    (unpaired,) = [d for d in result.differences if not d.paired]
    assert unpaired.policy == "reward-model"  # the best row but the oracle
    assert unpaired.ci_low < unpaired.difference < unpaired.ci_high < 0  # the learned row is above the heuristic
    assert not result.notes
    text = str(result)
    assert "normalized: 0.964" in text and "paired, episode by episode" in text and "unpaired" in text


def test_random_returns_score_zero_and_fall_below_the_heuristic():
    returns = gym_suite.evaluate("example-v0", "random", episodes=1000).returns
    result = gym_suite.score("example-v0", returns)
    assert result.normalized == pytest.approx(0.0, abs=1e-4)
    heuristic = next(d for d in result.differences if d.policy == "heuristic")
    assert heuristic.paired and heuristic.ci_high < 0
    assert "below heuristic" in result.placement()


@pytest.mark.parametrize(
    ("env_id", "label"),
    [("heartpole-v1", "grid DP"), ("heartpole-v0", "grid DP"), ("push-v1", "oracle"), ("target-v1", "optimum")],
)
def test_returns_at_the_top_of_the_scale_score_one_named_by_the_tables_reference(env_id, label):
    top = float(table_row(env_id, "optimum")["iqm"])
    result = gym_suite.score(env_id, np.full(table_episodes(env_id), top), paired=False)
    assert result.normalized == pytest.approx(1.0) and result.placement().endswith("below no row")
    assert result.top_label == label
    assert f"1: {label} {top:.4g})" in str(result)


@pytest.mark.parametrize(
    ("agent", "options", "error", "match"),
    [
        (np.zeros(999), {}, ValueError, "1,000"),
        (np.zeros((1000, 1)), {}, ValueError, "one per evaluation episode"),
        (np.r_[np.zeros(999), np.nan], {}, ValueError, "finite"),
        ({"returns": 1}, {}, TypeError, "per-episode returns"),
        (3.5, {}, TypeError, "per-episode returns"),
        ("best", {}, ValueError, "not a policy"),
        (np.zeros(1000), {"progress": "x"}, TypeError, "progress must be None, True or False"),
        (np.zeros(1000), {"progress": 1}, TypeError, "progress must be None, True or False"),
        (np.zeros(1000), {"n_jobs": 0}, ValueError, "n_jobs must be"),
        (np.zeros(1000), {"n_jobs": "2"}, ValueError, "n_jobs must be"),
        (np.zeros(1000), {"paired": "yes"}, TypeError, "paired"),
    ],
)
def test_bad_agents_and_options_are_refused_naming_what_is_allowed(agent, options, error, match):
    """The options are checked whatever the agent (returns given: nothing to evaluate)."""
    with pytest.raises(error, match=match):
        gym_suite.score("example-v0", agent, **{"paired": False, **options})


#: What is not a return: a bool, a string (of digits too), bytes, None, a complex number.
NOT_A_NUMBER = st.one_of(
    st.booleans(),
    st.just(np.bool_(True)),
    st.from_regex(r"-?[0-9]{1,4}(\.[0-9]{1,3})?", fullmatch=True),
    st.text(max_size=4),
    st.binary(max_size=3),
    st.none(),
    st.complex_numbers(max_magnitude=10),
)


@settings(max_examples=60, deadline=None)
@given(wrong=NOT_A_NUMBER, at=st.integers(0, 999), whole_array=st.booleans())
def test_returns_of_a_wrong_kind_are_a_type_error(wrong, at, whole_array):
    """One return of a wrong kind among numbers, or an array of that kind: never read as a number."""
    agent = np.full(1000, wrong) if whole_array else [0.5] * at + [wrong] + [0.5] * (999 - at)
    with pytest.raises(TypeError, match="agent's returns must be numbers"):
        gym_suite.score("example-v0", agent, paired=False)


@settings(max_examples=60, deadline=None)
@given(base=st.floats(-1e100, 1e100), other=st.floats(allow_nan=False), at=st.integers(0, 999))
def test_returns_are_finite_numbers_of_a_size_a_mean_takes(base, other, at):
    """Up to 1e100 in size every figure of the score is finite; past it (``±1e308``) a ``ValueError``."""
    returns = np.full(1000, base)
    returns[at] = other
    if abs(other) > 1e100:
        with pytest.raises(ValueError, match="agent's returns must be finite numbers, at most 1e\\+100 in size"):
            gym_suite.score("example-v0", returns, paired=False)
        return
    result = gym_suite.score("example-v0", returns, paired=False)
    figures = [result.mean, result.ci_low, result.ci_high, result.normalized, result.normalized_ci_low]
    figures += [
        result.normalized_ci_high,
        *(x for d in result.differences for x in (d.difference, d.ci_low, d.ci_high)),
    ]
    assert np.all(np.isfinite(figures))


def test_an_evaluation_with_other_env_arguments_is_refused_naming_them():
    """push-v1's table plays the test log: an evaluation on the training log is not of its episodes."""
    train = gym_suite.evaluate("push-v1", "heuristic", episodes=1000, seed=0)
    assert train.env_kwargs == {}
    with pytest.raises(ValueError, match=r"env_kwargs=\{\}.*\{'split': 'test'\}.*they differ in split") as raised:
        gym_suite.score("push-v1", train, paired=False)
    assert "env_kwargs={'split': 'test'}" in str(raised.value)
    test = gym_suite.evaluate("push-v1", "heuristic", episodes=1000, seed=0, env_kwargs={"split": "test"})
    assert test.env_kwargs == {"split": "test"} and paired_text(test, test) == "+0.0000 ± 0.0000"
    scored = gym_suite.score("push-v1", test, paired=False)
    assert scored.normalized == pytest.approx(float(table_row("push-v1", "heuristic")["normalized"]), abs=1e-4)
    gym_suite.score("push-v1", train.returns, paired=False)  # bare returns carry no arguments: taken as given
    other = gym_suite.evaluate("example-v0", "heuristic", episodes=1000, env_kwargs={"lf_min": 1})
    with pytest.raises(ValueError, match="they differ in lf_min"):
        gym_suite.score("example-v0", other, paired=False)


def test_an_evaluation_of_other_episodes_is_refused():
    other = gym_suite.evaluate("example-v0", "heuristic", episodes=1000, seed=5)
    with pytest.raises(ValueError, match="seeds 0 .. 999"):
        gym_suite.score("example-v0", other)
    with pytest.raises(gymnasium.error.Error, match="nothing"):
        gym_suite.score("nothing-v0", np.zeros(1000))


def test_cli_against_table_prints_the_placement(capsys):
    assert main(["evaluate", "example-v0", "--policy", "heuristic", "--against-table"]) == 0
    out = capsys.readouterr().out
    assert "normalized: 1.000" in out and "minus heuristic: +0" in out


@pytest.mark.parametrize(
    ("extra", "match"),
    [
        (["--seed", "1"], "leave --seed at 0"),
        (["--episodes", "10"], "1,000 episodes"),
        (["--env-kwargs", "a=1"], "leave --env-kwargs out"),
    ],
)
def test_cli_against_table_refuses_other_episodes(extra, match, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["evaluate", "push-v0", "--policy", "heuristic", "--against-table", *extra])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "--against-table" in err and match in err


def test_an_id_without_rows_in_the_table_is_reported_not_a_crash(capsys):
    """A registered id the table has no rows of: ``score`` says so, ``--against-table`` is a usage error."""
    from coin_env import COIN, CoinParams

    gym_suite.register(
        "mypkg/unscored-v0", definition=COIN, params=CoinParams(), max_episode_steps=5, summary="A coin."
    )
    try:
        with pytest.raises(ValueError, match="the baselines table has no rows for mypkg/unscored-v0"):
            gym_suite.score("mypkg/unscored-v0", np.zeros(10))
        with pytest.raises(SystemExit) as stop:
            main(["evaluate", "mypkg/unscored-v0", "--policy", "heuristic", "--against-table"])
        assert stop.value.code == 2
        last = capsys.readouterr().err.strip().splitlines()[-1]
        assert (
            last
            == "gym-suite evaluate: error: argument --against-table: the baselines table has no rows for mypkg/unscored-v0"
        )
    finally:
        gym_suite.unregister("mypkg/unscored-v0")


def test_a_row_with_empty_cells_is_no_reference_row(tmp_path, monkeypatch):
    """A row not yet played (empty cells) is reported, never ``could not convert string to float: ''``."""
    score_module = sys.modules["gym_suite.score"]  # gym_suite.score is also the function
    text = (ROOT / "gym_suite" / "data" / "baselines.csv").read_text(encoding="utf-8")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "baselines.csv").write_text(
        text.replace("example-v0,random,0,-4.997,", "example-v0,random,0,,")
    )
    monkeypatch.setattr(score_module.resources, "files", lambda package: tmp_path)
    with pytest.raises(ValueError, match="no reference row for example-v0"):
        gym_suite.score("example-v0", np.zeros(1000), paired=False)


def test_the_evaluate_pages_example_prints_what_the_page_shows(capsys):
    """docs/training/evaluate.md's "How to report your agent": its code, run, prints its text block."""
    page = (ROOT / "docs" / "training" / "evaluate.md").read_text(encoding="utf-8")
    section = page[page.index("<!-- score-snippet -->") :]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    shown = section.split("```text\n", 1)[1].split("```", 1)[0]
    exec(compile(code, "docs/training/evaluate.md", "exec"), {})
    assert capsys.readouterr().out == shown
