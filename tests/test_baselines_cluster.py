"""The baselines grid on a real two-node Ray cluster (tests/ray_cluster.py): resumed, and on an isolated node."""

from __future__ import annotations

import csv
import getpass
import json
import re
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

pytest.importorskip("ray")
pytest.importorskip("rliable")  # the summary after the runs (the baselines extra)

pytestmark = [
    pytest.mark.multinode,
    pytest.mark.slow,  # starts a Ray cluster and trains across it
    pytest.mark.skipif(not Path("/proc").is_dir(), reason="finds the cluster's processes through /proc (Linux)"),
]

from ray_cluster import WAIT_FOR_NODES, can_isolate  # noqa: E402  (tests/ray_cluster.py)

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "gym-suite" / "benchmarks" / "baselines.py"
IDS = ("example-v0", "target-v0")
SEEDS = (0, 1)
GRID = {
    (env_id, policy, seed) for env_id in IDS for policy, seed in [("random", ""), ("heuristic", ""), *(("sb3-ppo", str(s)) for s in SEEDS)]
}  # fmt: skip
LABELS = {"random": "random", "heuristic": "heuristic", "optimum": "optimum", "SB3 PPO": "sb3-ppo"}
#: the driver's line for a recorded run: id, label, seed ("-" for none), ..., the node's id (12 hex digits)
PROGRESS = re.compile(r"^(\S+-v\d+)\s+(random|heuristic|optimum|SB3 PPO)\s+seed\s+(\S+)\s+return .* node ([0-9a-f]{12})$")  # fmt: skip


def command(runs: Path) -> list[str]:
    return [
        sys.executable, str(SCRIPT), "--ids", ",".join(IDS), "--policies", "random,heuristic,sb3-ppo",
        "--seeds", ",".join(map(str, SEEDS)), "--budget", "sb3-ppo=2048", "--episodes", "20", "--reps", "1000",
        "--resources", "random:second_node=1", "--resources", "heuristic:head_node=1",
        "--runs-csv", str(runs), "--out-md", "", "--out-csv", "", "--out-png", "", "--out-machine", "", "--readme", "",
    ]  # fmt: skip


def progress(line: str) -> tuple[tuple[str, str, str], str] | None:
    """``((id, policy, seed), node)`` of a driver's line that reports a recorded run."""
    found = PROGRESS.match(line.strip())
    if not found:
        return None
    env_id, label, seed, node = found.groups()
    return (env_id, LABELS[label], "" if seed == "-" else seed), node


def recorded(runs: Path) -> list[tuple[str, str, str]]:
    with open(runs, newline="", encoding="utf-8") as f:
        return [(r["env_id"], r["policy"], r["train_seed"]) for r in csv.DictReader(f)]


def by_run(path: Path) -> dict[tuple[str, str, str], dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return {(r["env_id"], r["policy"], r["train_seed"]): r for r in csv.DictReader(f)}


def node_ids(address: str, env: dict) -> tuple[str, str]:
    """The head's and the second node's ids (12 hex digits), once both have joined."""
    nodes = subprocess.run([sys.executable, "-c", WAIT_FOR_NODES, address], capture_output=True, text=True, env=env,
                           timeout=180)  # fmt: skip
    assert nodes.returncode == 0, nodes.stderr[-3000:]
    return tuple(json.loads(nodes.stdout.splitlines()[-1])[k][:12] for k in ("head", "second"))


def test_grid_runs_on_both_nodes_and_resumes_after_the_driver_is_killed(two_node_cluster, tmp_path):
    address, env, _ = two_node_cluster
    head, second = node_ids(address, env)
    env = {**env, "RAY_ADDRESS": address}
    runs = tmp_path / "runs.csv"

    # the first driver: killed (SIGKILL, no clean-up) once it has recorded its first run
    first = subprocess.Popen(command(runs), stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env,
                             cwd=tmp_path)  # fmt: skip
    seen_first, log = [], []
    try:
        for line in first.stderr:  # after the kill: what it printed before it, to the pipe's end
            log.append(line)
            if (found := progress(line)) is not None:
                seen_first.append(found)
                first.send_signal(signal.SIGKILL)
    finally:
        first.kill()
        first.wait(timeout=60)
        first.stderr.close()
    assert seen_first, "".join(log)[-4000:]
    after_kill = recorded(runs)
    assert len(after_kill) == len(set(after_kill)) and set(after_kill) < GRID  # whole lines, some runs missing
    assert seen_first[0][0] in after_kill

    # the same command again: only the missing runs run
    second_run = subprocess.run(command(runs), capture_output=True, text=True, env=env, cwd=tmp_path, timeout=1500)
    assert second_run.returncode == 0, second_run.stderr[-4000:]
    resumed = [found for line in second_run.stderr.splitlines() if (found := progress(line)) is not None]
    assert sorted(run for run, _ in resumed) == sorted(GRID - set(after_kill))
    final = recorded(runs)
    assert sorted(final) == sorted(GRID)  # every run once

    # where the tasks ran: the pinned ones on their node, and both nodes ran tasks
    ran_on = dict(seen_first + resumed)
    assert {node for run, node in ran_on.items() if run[1] == "random"} <= {second}
    assert {node for run, node in ran_on.items() if run[1] == "heuristic"} <= {head}
    assert set(ran_on.values()) == {head, second}, ran_on
    final_runs = by_run(runs)
    assert {final_runs[run]["train_steps"] for run in GRID if run[1] == "sb3-ppo"} == {"2048"}
    assert {final_runs[run]["episodes"] for run in GRID} == {"20"}


#: What the second node cannot see: the repository's scripts, docs and tests, and the driver's files
#: (every pytest temporary folder); it sees the installed packages, gym_suite among them.
HIDDEN = [
    ROOT / "gym-suite",
    ROOT / "docs",
    ROOT / "tests",
    Path(tempfile.gettempdir()) / f"pytest-of-{getpass.getuser()}",
]
#: A tuned-recipes file that the nodes' own environment names: a task that read its node would train with it.
DECOY = Path(tempfile.gettempdir()) / "gym_suite_node_tuned" / "tuned.json"
NODE_ENV = {"GYM_SUITE_TUNED_RECIPES": str(DECOY)}

#: A task on the second node: what it sees of the driver's files and environment.
PROBE = r"""
import json, os, sys
import ray

ray.init(address=sys.argv[1], log_to_driver=False)

@ray.remote(resources={"second_node": 1}, num_cpus=0)
def probe(paths):
    return {"seen": [p for p in paths if os.path.exists(p)], "tuned": os.environ.get("GYM_SUITE_TUNED_RECIPES")}

print(json.dumps(ray.get(probe.remote(sys.argv[2:]))))
"""


def tuned_file(path: Path, n_steps: int) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    entry = {"settings": {"n_steps": n_steps, "batch_size": 64}, "tuned": {"date": "2026-11-27"}}
    path.write_text(json.dumps({"example-v0": {"sb3-ppo": entry}}))
    return path


def grid_command(runs: Path, *extra: str) -> list[str]:
    return [
        sys.executable, str(SCRIPT), "--ids", "example-v0,target-v1", "--policies", "optimum,sb3-ppo", "--seeds", "0",
        "--budget", "sb3-ppo=2048", "--episodes", "10", "--jobs", "1", "--reps", "1000", *extra,
        "--runs-csv", str(runs), "--out-md", "", "--out-csv", "", "--out-png", "", "--out-machine", "", "--readme", "",
    ]  # fmt: skip


@pytest.mark.skipif(not can_isolate(), reason="needs a mount namespace of its own (root and unshare)")
@pytest.mark.parametrize("isolated_cluster", [{"hidden": HIDDEN, "node_env": NODE_ENV}], indirect=True)
def test_a_node_that_shares_nothing_with_the_driver_gives_the_runs_of_a_local_run(isolated_cluster, tmp_path):
    """The policies from the installed package, the tuned settings (n_steps 100, not the node's 64) the driver's."""
    address, env, _ = isolated_cluster
    tuned_file(DECOY, 64)
    driver_tuned = tuned_file(tmp_path / "tuned.json", 100)
    _, second = node_ids(address, env)
    # the premise: the second node sees none of the driver's files, and its environment is its own
    seen = subprocess.run(
        [sys.executable, "-c", PROBE, address, str(SCRIPT), str(ROOT / "gym-suite" / "analyses"), str(driver_tuned)],
        capture_output=True, text=True, env=env, timeout=180,
    )  # fmt: skip
    assert seen.returncode == 0, seen.stderr[-3000:]
    assert json.loads(seen.stdout.splitlines()[-1]) == {"seen": [], "tuned": str(DECOY)}

    driver_env = {**env, "RAY_ADDRESS": address, "GYM_SUITE_TUNED_RECIPES": str(driver_tuned)}
    on_cluster = tmp_path / "cluster.csv"
    done = subprocess.run(
        grid_command(on_cluster, "--resources", "second_node=1"),
        capture_output=True, text=True, env=driver_env, cwd=tmp_path, timeout=1500,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
    ran_on = {found[1] for line in done.stderr.splitlines() if (found := progress(line)) is not None}
    assert ran_on == {second}, done.stderr[-3000:]

    local_env = {k: v for k, v in driver_env.items() if k != "RAY_ADDRESS"}
    local = tmp_path / "local.csv"
    done = subprocess.run(grid_command(local), capture_output=True, text=True, env=local_env, cwd=tmp_path,
                          timeout=1500)  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]

    cluster_runs, local_runs = by_run(on_cluster), by_run(local)
    assert set(cluster_runs) == set(local_runs) == {
        ("example-v0", "optimum", ""), ("target-v1", "optimum", ""), ("example-v0", "sb3-ppo", "0"),
        ("target-v1", "sb3-ppo", "0"),
    }  # fmt: skip
    assert cluster_runs["example-v0", "sb3-ppo", "0"]["train_steps"] == "2400"  # the driver's n_steps
    for run, row in cluster_runs.items():
        mine = local_runs[run]
        same = ("digest", "train_steps", "episodes")
        assert [row[k] for k in same] == [mine[k] for k in same], run
        assert float(row["mean_return"]) == pytest.approx(float(mine["mean_return"]), abs=1e-6), run

    # Ray Tune on the same cluster: its one trial trains with the driver's tuned settings too
    scores = []
    for run_env in (driver_env, local_env):
        out = tmp_path / f"tuned-{len(scores)}.json"
        tuned = subprocess.run(
            [sys.executable, str(ROOT / "gym-suite" / "analyses" / "tune_recipe.py"), "--id", "example-v0",
             "--agent", "sb3-ppo", "--trials", "1", "--seeds", "1", "--episodes", "10", "--steps", "800",
             "--space", '{"gamma": [0.99]}', "--storage", str(tmp_path / "tune"), "--out", str(out)],
            capture_output=True, text=True, env=run_env, cwd=tmp_path, timeout=900,
        )  # fmt: skip
        assert tuned.returncode == 0, tuned.stderr[-4000:]
        scores.append(json.loads(out.read_text())["example-v0"]["sb3-ppo"]["tuned"]["score"])
    assert scores[0] == pytest.approx(scores[1], abs=1e-6)
