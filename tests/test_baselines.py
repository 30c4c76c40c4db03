"""gym-suite/benchmarks/baselines.py: runs per seed, the summary over seeds (rliable: slow tests), the command."""

from __future__ import annotations

import csv
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import gym_suite

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "gym-suite" / "benchmarks" / "baselines.py"


#: every output but the runs file turned off
OUTS_NONE = ("--out-md", "", "--out-csv", "", "--out-png", "", "--out-machine", "", "--readme", "")


def run_script(*args, code=None, cwd=None, timeout=900, env=None):
    """The script run as a user runs it; with ``code``, asserting its exit status."""
    command = [sys.executable, str(SCRIPT), *map(str, args)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=cwd, env=env)
    assert code is None or done.returncode == code, done.stderr[-3000:]
    return done


def rows(path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _load(name):
    """The script as a module named ``name`` (its folder on sys.path, as when it runs)."""
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        spec = importlib.util.spec_from_file_location(name, SCRIPT)
        sys.modules[name] = module = importlib.util.module_from_spec(spec)  # its dataclasses look their module up
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(SCRIPT.parent))


@pytest.fixture(scope="module")
def baselines():
    yield _load("baselines_script")
    sys.modules.pop("baselines_script", None)


@pytest.fixture(scope="module")
def outputs(baselines):
    """The script's outputs module (_outputs.py: the summary, the page, the CSV, README's table), as it imports it."""
    return sys.modules["_outputs"]


def run(env_id, policy, seed, mean, episodes=100, training="", digest=None):
    """A line of the runs file; ``digest``: its settings' (default: its row's as the recipes give them now)."""
    digest = _digests()[env_id, policy] if digest is None else digest
    seed, steps, seconds = ("", "", "") if seed is None else (str(seed), "1000", "2.0")
    return {
        "env_id": env_id, "policy": policy, "train_seed": seed, "episodes": str(episodes), "mean_return": str(mean),
        "std_return": "1.0", "mean_return_on_training_data": training, "train_steps": steps, "train_seconds": seconds,
        "note": "", "digest": digest,
    }  # fmt: skip


_DIGESTS: dict = {}


def _digests() -> dict:
    """Every row's digest as the recipes give it now (the script's ``expected_digests``)."""
    if not _DIGESTS:
        module = _load("baselines_digests")
        _DIGESTS.update(module.expected_digests(gym_suite.ENV_IDS, module.POLICIES))
        sys.modules.pop("baselines_digests", None)
    return _DIGESTS


def test_iqm_and_its_interval_are_rliables(outputs):
    from rliable import metrics

    scores = np.array([1.0, 2.0, 3.0, 4.0, 100.0])
    iqm, low, high = outputs.iqm_interval(scores, reps=2000)
    assert iqm == pytest.approx(float(metrics.aggregate_iqm(scores.reshape(-1, 1)))) == pytest.approx(3.0)
    assert low < iqm < high  # a real interval, not a point
    assert outputs.iqm_interval(scores, reps=2000) == (iqm, low, high)  # seeded: the same twice


def test_summary_keeps_a_diverged_seed_and_normalizes_by_the_optimum(baselines):
    runs = [
        run("heartpole-v0", "random", None, -60.0),
        run("heartpole-v0", "heuristic", None, 130.0),
        run("heartpole-v0", "optimum", None, 460.0),
        *(run("heartpole-v0", "sb3-dqn", s, m) for s, m in enumerate([400.0, 410.0, 420.0, 430.0, -128_000.0])),
        run("heartpole-v0", "sb3-ppo", 0, 999.0, episodes=50),  # other evaluation episodes: not in this table
    ]
    rows = {r.policy: r for r in baselines.summarize(runs, episodes=100, reps=2000)}
    assert list(rows) == ["random", "heuristic", "optimum", "sb3-dqn"]
    dqn = rows["sb3-dqn"]
    assert dqn.seeds == 5 and dqn.diverged == 1 and dqn.worst_seed == -128_000.0
    assert dqn.iqm == pytest.approx(410.0)  # the middle three of five
    assert dqn.ci_low < dqn.iqm < dqn.ci_high
    assert dqn.normalized == pytest.approx((410.0 + 60.0) / (460.0 + 60.0))
    assert rows["optimum"].normalized == pytest.approx(1.0) and rows["random"].normalized == pytest.approx(0.0)
    assert rows["optimum"].seeds == 0 and rows["optimum"].worst_seed is None
    half = 1.959964 * 1.0 / np.sqrt(100)
    assert (rows["heuristic"].ci_low, rows["heuristic"].ci_high) == pytest.approx((130.0 - half, 130.0 + half))
    assert "--seeds 0-4" in dqn.command and "gym_suite.references.heartpole_optimum" in rows["optimum"].command


def test_a_left_out_row_is_neither_planned_nor_summarized(baselines):
    assert ("heartpole-v1", "sb3-dqn") in baselines.LEFT_OUT
    assert not baselines.available("heartpole-v1", "sb3-dqn") and baselines.available("heartpole-v0", "sb3-dqn")
    runs = [
        run("heartpole-v1", "random", None, -60.0),
        *(run("heartpole-v1", "sb3-dqn", s, 400.0, digest="0123456789abcdef") for s in range(5)),
    ]
    assert [r.policy for r in baselines.summarize(runs, episodes=100, reps=500)] == ["random"]
    tasks = baselines.plan(["heartpole-v1"], ["random", "sb3-dqn"], [], episodes=100, quick=True)
    assert all(task.policy != "sb3-dqn" for task in tasks)


def test_a_rerun_seed_replaces_the_earlier_one_and_runs_of_other_settings_are_left_out(baselines, outputs):
    runs = [run("example-v0", "random", None, -5.0), *(run("example-v0", "sb3-ppo", 0, mean) for mean in (1.0, 8.0))]
    (random_row, ppo) = baselines.summarize(runs, episodes=100, reps=1000)
    assert ppo.seeds == 1 and ppo.iqm == 8.0
    # a run of other settings is left out whatever its date
    digests = baselines.expected_digests(["heartpole-v1"], ["random", "sb3-ppo"])
    runs = [
        run("heartpole-v1", "random", None, -60.0),
        {**run("heartpole-v1", "sb3-ppo", 0, 435.0, digest="0123456789abcdef"), "date": "2099-01-01"},
        {**run("heartpole-v1", "sb3-ppo", 1, 441.0, digest=""), "date": "2099-01-01"},  # no digest: superseded
        {**run("heartpole-v1", "sb3-ppo", 0, 452.0), "date": "2000-01-01"},
    ]
    ppo = baselines.summarize(runs, episodes=100, reps=1000, digests=digests)[1]
    assert ppo.seeds == 1 and ppo.iqm == 452.0
    assert [outputs.current(r, digests) for r in runs] == [True, False, False, True]


def test_a_digest_changes_with_every_setting_a_run_depends_on(baselines):
    base = baselines.resolved_settings("example-v0", "sb3-ppo")
    digest = baselines.settings_digest(base)
    assert digest == baselines.settings_digest(dict(reversed(base.items())))  # whatever the keys' order
    assert base["steps"] == baselines.recipe_for("example-v0").budgets["sb3-ppo"]
    for other in (
        baselines.resolved_settings("example-v0", "sb3-ppo", steps=1234),
        baselines.resolved_settings("example-v0", "sb3-ppo", vec_env="dummy"),
        {**base, "settings": {**base["settings"], "gamma": 0.98}},
        {**base, "eval_env_kwargs": {"split": "test"}},
    ):
        assert baselines.settings_digest(other) != digest


def test_csv_has_the_documented_columns(baselines, outputs, tmp_path):
    runs = [run("example-v0", "random", None, -5.0), *(run("example-v0", "sb3-ppo", s, 8.0 + s) for s in range(5))]
    out = tmp_path / "b.csv"
    outputs.write_csv(baselines.summarize(runs, episodes=100, reps=1000), out)
    table = rows(out)
    required = "env_id policy seeds iqm ci_low ci_high worst_seed normalized eval_episodes command".split()
    assert set(required) <= set(table[0])
    assert table[1]["seeds"] == "5" and table[1]["worst_seed"] == "8" and table[1]["eval_episodes"] == "100"


@pytest.mark.parametrize(
    "bad",
    [["--budget", "ppo=100"], ["--budget", "sb3-ppo=0"], ["--seeds", "4-1"], ["--seeds", "x"], ["--policies", "dqn"],
     ["--cpus", "0"], ["--resources", "big_node"], ["--resources", "dqn:big_node=1"]],
)  # fmt: skip
def test_bad_arguments_are_usage_errors(bad):
    done = run_script(*bad, "--out-md", "", "--out-csv", "", code=2)
    assert "usage:" in done.stderr and bad[0] in done.stderr and "Traceback" not in done.stderr


def test_default_outputs_are_the_repositorys_docs(baselines, tmp_path):
    defaults = baselines.build_parser().parse_args([])
    assert (defaults.out_md, defaults.out_csv, defaults.runs_csv) == tuple(
        str(ROOT / "docs" / name) for name in ("baselines.md", "baselines.csv", "baselines_runs.csv")
    )
    # --help, run elsewhere, names them and writes nothing (wide enough that argparse wraps no path)
    done = run_script("--help", cwd=tmp_path, env={**os.environ, "COLUMNS": "100000"}, code=0)
    shown = " ".join(done.stdout.split())  # argparse folds a run of spaces into one, the path's too
    for path in (defaults.out_md, defaults.out_csv, defaults.runs_csv):
        assert f"default: {' '.join(path.split())})" in shown
    assert not any(tmp_path.iterdir())


def test_runs_are_recorded_once_and_push_is_scored_on_the_held_out_log(tmp_path):
    runs, md, table = tmp_path / "runs.csv", tmp_path / "b.md", tmp_path / "b.csv"
    args = ("--ids", "push-v0,example-v0", "--policies", "random,heuristic", "--episodes", "40", "--jobs", "1")
    outs = ("--runs-csv", runs, "--out-md", md, "--out-csv", table, *OUTS_NONE[4:])
    run_script(*args, *outs, cwd=tmp_path, code=0)
    first = runs.read_text()
    assert first.count("\n") == 5  # a header and four runs
    run_script(*args, *outs, cwd=tmp_path, code=0)
    assert runs.read_text() == first  # nothing run twice
    by_row = {(r["env_id"], r["policy"]): r for r in rows(table)}
    test_log = gym_suite.evaluate("push-v0", "heuristic", episodes=40, env_kwargs={"split": "test"})
    train_log = gym_suite.evaluate("push-v0", "heuristic", episodes=40)
    assert test_log.mean != train_log.mean
    assert float(by_row["push-v0", "heuristic"]["iqm"]) == pytest.approx(test_log.mean, rel=1e-5)
    assert float(by_row["push-v0", "heuristic"]["on_training_data"]) == pytest.approx(train_log.mean, rel=1e-5)
    random = gym_suite.evaluate("example-v0", "random", episodes=40)
    assert float(by_row["example-v0", "random"]["iqm"]) == pytest.approx(random.mean, rel=1e-5)
    assert "Bayes-optimal" in md.read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.csv", "b.md", "runs.csv", "runs.csv.lock"]


def test_trained_seeds_score_on_the_same_episodes_and_give_an_interval(tmp_path):
    runs, table, png = tmp_path / "runs.csv", tmp_path / "b.csv", tmp_path / "b.png"
    run_script(
        "--ids", "example-v0", "--policies", "random,sb3-ppo", "--seeds", "0-2", "--budget", "sb3-ppo=2048",
        "--episodes", "30", "--jobs", "1", "--reps", "2000",
        "--runs-csv", runs, "--out-md", "", "--out-csv", table, "--out-png", png, "--out-machine", "",
        "--readme", "", cwd=tmp_path, code=0,
    )  # fmt: skip
    recorded = [r for r in rows(runs) if r["policy"] == "sb3-ppo"]
    assert sorted(r["train_seed"] for r in recorded) == ["0", "1", "2"]  # in the order the tasks finished
    assert {r["eval_seed"] for r in recorded} == {"0"} and {r["train_steps"] for r in recorded} == {"2048"}
    ppo = next(r for r in rows(table) if r["policy"] == "sb3-ppo")
    assert ppo["seeds"] == "3"
    assert float(ppo["ci_low"]) <= float(ppo["iqm"]) <= float(ppo["ci_high"])
    assert float(ppo["worst_seed"]) == min(float(r["mean_return"]) for r in recorded)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_readme_headline_is_the_baselines_csv(outputs):
    table = rows(ROOT / "docs" / "baselines.csv")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split(outputs.README_START, 1)[1].split(outputs.README_END, 1)[0]
    assert block.strip() == outputs.headline_markdown(table).strip()


def test_update_readme_rewrites_only_between_the_markers(outputs, tmp_path):
    table = [
        {"env_id": "example-v0", "policy": "optimum", "seeds": "0", "normalized": "1", "normalized_ci_low": "",
         "normalized_ci_high": "", "diverged": ""},
        {"env_id": "example-v0", "policy": "sb3-ppo", "seeds": "5", "normalized": "0.5", "normalized_ci_low": "0.4",
         "normalized_ci_high": "0.6", "diverged": "1"},
    ]  # fmt: skip
    readme = tmp_path / "README.md"
    readme.write_text(f"# top\n{outputs.README_START}\nold\n{outputs.README_END}\nbottom\n")
    assert outputs.update_readme(readme, table)
    text = readme.read_text()
    assert text.startswith("# top\n") and text.endswith("bottom\n") and "old" not in text
    assert "0.50 [0.40, 0.60] (5 seeds, 1 diverged)" in text and "| `example-v0` |" in text
    plain = tmp_path / "plain.md"
    plain.write_text("no markers\n")
    assert not outputs.update_readme(plain, table) and plain.read_text() == "no markers\n"


def test_the_grid_plans_only_what_the_runs_file_lacks(baselines):
    runs = [
        run("example-v0", "random", None, -5.0),
        run("example-v0", "sb3-ppo", 1, 8.0),
        run("example-v0", "jax-ppo", 0, 8.0),
        run("example-v0", "jax-ppo", 3, 8.0),
        run("example-v0", "sb3-dqn", 0, 8.0, episodes=50),  # other evaluation episodes: not this grid's
    ]
    tasks = baselines.plan(
        ["example-v0"], ["random", "heuristic", "sb3-ppo", "sb3-dqn", "jax-ppo"], runs, seeds=[0, 1, 2, 3, 4, 5],
        episodes=100,
    )  # fmt: skip
    ppo_steps = baselines.recipe_for("example-v0").budgets["sb3-ppo"]
    dqn_steps = baselines.recipe_for("example-v0").budgets["sb3-dqn"]
    from gym_suite.training.jax import ppo_budget

    assert [(t.policy, t.seeds, t.steps) for t in tasks] == [
        ("heuristic", (), None),
        *(("sb3-ppo", (seed,), ppo_steps) for seed in (0, 2, 3, 4, 5)),
        *(("sb3-dqn", (seed,), dqn_steps) for seed in range(6)),
        # JAX PPO trains the missing seeds only, consecutive ones in one vmapped run
        ("jax-ppo", (1, 2), ppo_budget("example-v0")),
        ("jax-ppo", (4, 5), ppo_budget("example-v0")),
    ]
    digests = baselines.expected_digests(["example-v0"], baselines.POLICIES)
    assert all(t.digest == digests["example-v0", t.policy] for t in tasks)
    assert all(t.resolved["eval_env_kwargs"] == {} and t.tuned == {} for t in tasks)
    forced = baselines.plan(["example-v0"], ["random", "sb3-ppo"], runs, seeds=[1], episodes=100, force=True)
    assert [(t.policy, t.seeds) for t in forced] == [("random", ()), ("sb3-ppo", (1,))]
    again = baselines.plan(["example-v0"], ["jax-ppo"], runs, seeds=[0, 3], episodes=100)
    assert again == []  # recorded seeds are not trained again


def test_runs_of_a_rows_earlier_settings_run_again_with_the_tuned_ones(baselines, tmp_path, monkeypatch):
    before = baselines.expected_digests(["example-v0"], ["sb3-ppo"])["example-v0", "sb3-ppo"]
    tuned = tmp_path / "tuned.json"
    tuned.write_text(
        json.dumps({"example-v0": {"sb3-ppo": {"settings": {"gamma": 0.95}, "tuned": {"date": "2026-11-26"}}}})
    )
    monkeypatch.setenv("GYM_SUITE_TUNED_RECIPES", str(tuned))
    runs = [
        run("example-v0", "random", None, -5.0),
        run("example-v0", "sb3-ppo", 0, 1.0, digest=before),  # trained before the tuning, even on the same day
        run("example-v0", "sb3-ppo", 1, 8.0),
        run("example-v0", "sb3-dqn", 0, 7.0),  # DQN's recipe was not tuned
    ]
    digests = baselines.expected_digests(["example-v0"], baselines.POLICIES)
    assert digests["example-v0", "sb3-ppo"] != before
    runs[2]["digest"] = digests["example-v0", "sb3-ppo"]
    rows = {r.policy: r for r in baselines.summarize(runs, episodes=100, reps=1000, digests=digests)}
    assert rows["sb3-ppo"].seeds == 1 and rows["sb3-ppo"].iqm == 8.0 and rows["sb3-dqn"].seeds == 1
    tasks = baselines.plan(["example-v0"], ["sb3-ppo"], runs, seeds=[0, 1], episodes=100)
    assert [t.seeds for t in tasks] == [(0,)]  # the earlier settings' seed 0 runs again
    # the task carries the driver's tuned settings: it reads no file of the node it lands on
    assert tasks[0].tuned == {"example-v0": {"sb3-ppo": json.loads(tuned.read_text())["example-v0"]["sb3-ppo"]}}
    assert tasks[0].resolved["settings"]["gamma"] == 0.95


def test_a_failed_task_leaves_the_others_runs_recorded_and_the_rerun_runs_only_it(tmp_path):
    """JAX PPO with 4,097 seeds (more than one vmapped run trains) fails in its task."""
    runs = tmp_path / "runs.csv"
    seeds = "0-999,1000-1999,2000-2999,3000-3999,4000-4096"
    args = ("--ids", "example-v0", "--policies", "random,jax-ppo", "--seeds", seeds, "--episodes", "20")
    outs = ("--runs-csv", runs, *OUTS_NONE)
    done = run_script(*args, *outs, cwd=tmp_path, code=1)
    assert "2 tasks on Ray" in done.stderr and "1 of 2 tasks failed" in done.stderr and "num_seeds" in done.stderr
    assert [(r["policy"], r["train_seed"]) for r in rows(runs)] == [("random", "")]
    again = run_script(*args, *outs, cwd=tmp_path)
    assert again.returncode == 1 and "1 tasks on Ray" in again.stderr and "1 of 1 tasks failed" in again.stderr
    assert runs.read_text().count("\n") == 2  # the header and the random policy's run, once


def test_tasks_train_with_the_drivers_tuned_settings_not_the_nodes(tmp_path):
    """The driver's file: n_steps=100 (2,400 steps for 2,048), the workers' environment's: n_steps=64 (2,048)."""
    driver, node = tmp_path / "driver.json", tmp_path / "node.json"
    for path, n_steps in ((driver, 100), (node, 64)):
        entry = {"settings": {"n_steps": n_steps, "batch_size": 64}, "tuned": {"date": "2026-11-27"}}
        path.write_text(json.dumps({"example-v0": {"sb3-ppo": entry}}))
    runs = tmp_path / "runs.csv"
    runtime_env = json.dumps({"env_vars": {"GYM_SUITE_TUNED_RECIPES": str(node)}})
    run_script(
        "--ids", "example-v0", "--policies", "sb3-ppo", "--seeds", "0", "--budget", "sb3-ppo=2048", "--episodes", "10",
        "--jobs", "1", "--runtime-env", runtime_env, "--runs-csv", runs, *OUTS_NONE,
        cwd=tmp_path, env={**os.environ, "GYM_SUITE_TUNED_RECIPES": str(driver)}, code=0,
    )  # fmt: skip
    (recorded,) = rows(runs)
    assert recorded["train_steps"] == "2400"
    assert recorded["digest"] and recorded["digest"] != _digests()["example-v0", "sb3-ppo"]


def published(tmp_path):
    """Outputs as the repository publishes them, each with a content to compare after a run."""
    files = {name: tmp_path / name for name in ("b.md", "b.csv", "machine.json")}
    for name, path in files.items():
        path.write_text(f"published {name}\n")
    files["README.md"] = tmp_path / "README.md"
    files["README.md"].write_text("# r\n<!-- baselines-headline:start -->\nold\n<!-- baselines-headline:end -->\n")
    return files


#: A runs file whose one run is of other settings (another version's): no current run.
OTHER_SETTINGS = (
    b"env_id,policy,train_seed,eval_seed,episodes,mean_return,std_return,digest\n"
    b"example-v0,random,,0,1000,-5.0,1.0,0123456789abcdef\n"
)


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (None, "no such file"),
        (b"", "no header of runs"),
        (b"env_id,policy\n", "no header of runs"),
        (b"\x00\xff\xfe binary", "not a readable CSV file"),
        (b"env_id,policy,train_seed,episodes,mean_return\nexample-v0,random,,x,1\n", "line 2: not a run"),
        (OTHER_SETTINGS, "no run of 1000 evaluation episodes with the settings the recipes give now"),
    ],
    ids=["missing", "empty", "header-only", "binary", "malformed", "no-current-run"],
)
def test_summarize_never_publishes_from_nothing(tmp_path, content, said):
    runs = tmp_path / "runs.csv"
    if content is not None:
        runs.write_bytes(content)
    files = published(tmp_path)
    before = {name: path.read_bytes() for name, path in files.items()}
    done = run_script(
        "--summarize", "--runs-csv", runs, "--out-md", files["b.md"], "--out-csv", files["b.csv"], "--out-png", "",
        "--out-machine", files["machine.json"], "--readme", files["README.md"], cwd=tmp_path, code=1,
    )  # fmt: skip
    assert str(runs) in done.stderr and said in done.stderr, done.stderr[-2000:]
    assert "nothing was written" in done.stderr and "Traceback" not in done.stderr
    assert {name: path.read_bytes() for name, path in files.items()} == before


def test_a_second_driver_on_the_same_runs_file_is_refused(baselines, tmp_path):
    import fcntl

    runs = tmp_path / "runs.csv"
    with baselines.runs_file_lock(runs):  # a first driver holds the file
        with open(str(runs) + ".lock") as lock, pytest.raises(BlockingIOError):
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        done = run_script("--ids", "example-v0", "--policies", "random", "--episodes", "5", "--runs-csv", runs,
                          *OUTS_NONE, cwd=tmp_path, code=1)  # fmt: skip
        assert "another driver is running on it" in done.stderr and "Traceback" not in done.stderr
        assert not runs.exists()
    with baselines.runs_file_lock(runs):  # released when its driver ends
        pass


def test_appends_of_one_driver_after_another_leave_one_header(baselines, tmp_path):
    runs = tmp_path / "runs.csv"
    one = {**run("example-v0", "random", None, -5.0), "eval_seed": 0}
    for _ in range(3):
        with baselines.runs_file_lock(runs):
            baselines.append_run(runs, one)
    assert runs.read_text().count("env_id,policy") == 1 and len(baselines.read_runs(runs)) == 3
    old = tmp_path / "old.csv"
    old.write_text("env_id,policy,train_seed,episodes,mean_return\n")
    with pytest.raises(baselines.RunsFileError, match="header"):
        baselines.append_run(old, one)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--cpus", "64"), "no node has"),
        (("--resources", "no_such_node=1"), "none has ['no_such_node']"),
        (("--address", "127.0.0.1:1"), "no Ray cluster answers at '127.0.0.1:1'"),
    ],
)
def test_what_no_node_can_run_is_an_error_at_once(tmp_path, args, said):
    runs = tmp_path / "runs.csv"
    done = run_script("--ids", "example-v0", "--policies", "random", "--episodes", "5", *args, "--runs-csv", runs,
                      *OUTS_NONE, cwd=tmp_path, timeout=300, code=1)  # fmt: skip
    assert said in done.stderr and "Traceback" not in done.stderr
    assert not runs.exists() or runs.read_text().count("\n") <= 1  # no run recorded


def test_the_published_runs_summarize_with_every_note(tmp_path):
    runs = ROOT / "docs" / "baselines_runs.csv"
    md, csv_out = tmp_path / "b.md", tmp_path / "b.csv"
    outs = ("--out-md", md, "--out-csv", csv_out, "--out-png", "", "--out-machine", "", "--readme", "", "--reps", "200")
    run_script("--summarize", "--runs-csv", runs, *outs, cwd=tmp_path, code=0)
    text = md.read_text()
    assert "no SB3 DQN row" in text and "`heartpole-v1` | SB3 DQN" not in text
    assert "train for the same budget" in text
    assert "one compiled program" not in text  # every JAX PPO row trained by train_ppo's chunked programs
    # a JAX PPO row of runs made before the chunked programs says so: example-v0's runs as they were
    older = tmp_path / "older.csv"
    with open(runs, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        fields, rows = reader.fieldnames, list(reader)
    kept = []
    for r in rows:
        if (r["env_id"], r["policy"]) == ("example-v0", "jax-ppo"):
            if not r["note"].startswith("superseded"):
                continue  # the rerun
            r["note"] = r["note"].split("; ", 1)[1] if "; " in r["note"] else ""
        kept.append(r)
    with open(older, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        writer.writeheader()
        writer.writerows(kept)
    run_script("--summarize", "--runs-csv", older, *outs, cwd=tmp_path, code=0)
    assert "JAX PPO of `example-v0`: trained before" in md.read_text()
