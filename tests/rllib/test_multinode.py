"""Ray RLlib PPO on a real two-node Ray cluster (tests/ray_cluster.py): the env runners sample on the second node."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from ray_cluster import cluster_pids, cluster_raylets  # tests/ray_cluster.py (tests/ is on sys.path)

pytest.importorskip("ray")
pytest.importorskip("ray.rllib")

import gym_suite  # noqa: E402

pytestmark = [
    pytest.mark.multinode,
    pytest.mark.slow,  # starts a Ray cluster and trains across it
    pytest.mark.skipif(not Path("/proc").is_dir(), reason="finds the cluster's processes through /proc (Linux)"),
]

ALL_IDS = [spec.id for spec in gym_suite.SPECS]
ITERATIONS = 2
BATCH = 200  # env steps an iteration


#: Joins the cluster once both nodes are up, trains PPO on each id with the runners on the second node: a JSON line an id
DRIVER = r"""
import json, sys, time
import ray
from gym_suite.training import single_thread_torch
from gym_suite.training.rllib import rllib_config

address, ids, batch, iterations = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
deadline, problem = time.monotonic() + 120, None
while True:
    try:
        if not ray.is_initialized():
            ray.init(address=address, log_to_driver=False)
        nodes = [n for n in ray.nodes() if n["Alive"]]
        second = [n["NodeID"] for n in nodes if n["Resources"].get("second_node")]
        if len(nodes) == 2 and second:
            break
    except Exception as exc:
        problem = exc
    if time.monotonic() > deadline:
        raise SystemExit(f"the cluster did not come up: {problem!r}")
    time.sleep(0.5)
single_thread_torch()


def count_by_node(*, env_runner, metrics_logger, samples, **kwargs):
    node = ray.get_runtime_context().get_node_id()
    metrics_logger.log_value(("env_steps_by_node", node), sum(len(e) for e in samples), reduce="sum")


for env_id in ids:
    config = (
        rllib_config(env_id, num_env_runners=1, num_envs_per_env_runner=2, seed=0,
                     train_batch_size_per_learner=batch, minibatch_size=100, num_epochs=1)
        .env_runners(custom_resources_per_env_runner={"second_node": 1})
        .callbacks(on_sample_end=count_by_node)
    )
    algo = config.build_algo()
    try:
        runners = algo.env_runner_group.foreach_env_runner(
            lambda r: (ray.get_runtime_context().get_node_id(), type(r.env.unwrapped).__name__),
            local_env_runner=False,
        )
        for _ in range(iterations):
            result = algo.train()
    finally:
        algo.stop()
    print(json.dumps({
        "id": env_id, "second_node": second[0], "driver_node": ray.get_runtime_context().get_node_id(),
        "runners": runners, "by_node": result["env_runners"]["env_steps_by_node"],
        "sampled": result["env_runners"]["num_env_steps_sampled_lifetime"],
    }), flush=True)
ray.shutdown()
"""


def test_env_runners_sample_on_the_second_node(two_node_cluster, tmp_path):
    """PPO on every id, sampled by an env runner that can only live on the second node, counted by node."""
    address, env, dirs = two_node_cluster
    command = [sys.executable, "-c", DRIVER, address, json.dumps(ALL_IDS), str(BATCH), str(ITERATIONS)]
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=1200)
    assert done.returncode == 0, done.stderr[-4000:]
    assert len(cluster_raylets(dirs)) == 2  # the cluster's two raylets are running
    results = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert [r["id"] for r in results] == ALL_IDS
    for r in results:
        second = r["second_node"]
        assert r["driver_node"] != second  # the driver joined through the head
        assert [node for node, _ in r["runners"]] == [second], r
        assert r["runners"][0][1].endswith("VectorEnv"), r  # the id's native vector env, made on the second node
        assert set(r["by_node"]) == {second}, r  # every sample of the last iteration was made there
        assert r["by_node"][second] >= BATCH, r
        assert r["sampled"] >= ITERATIONS * BATCH, r


@pytest.mark.parametrize("name", ["raylet", "ray/core/src/ray/raylet/raylet"])
def test_other_processes_are_not_the_clusters(tmp_path, name):
    """A process of someone else's (its command line says raylet) is not the cluster's; one naming its directory is."""
    ours = [tmp_path / "rh", tmp_path / "rn"]
    foreign = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", f"/tmp/other/{name}"])
    own = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", f"--temp-dir={ours[1]}"])
    try:
        deadline = time.monotonic() + 10
        while own.pid not in cluster_pids(ours) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert cluster_pids(ours) == {own.pid}
        assert foreign.pid not in cluster_pids(ours) and not cluster_raylets(ours)
    finally:
        for process in (foreign, own):
            process.kill()
            process.wait()
    assert not cluster_pids(ours)
