"""Record one seeded episode of every gym-suite environment as an animated GIF.

    python gym-suite/tools/record_gifs.py --out docs/img

Each environment plays its heuristic from ``reset(seed=...)``, rendered as ``rgb_array``, cut at
``--max-frames`` (a short one followed by the next episodes up to ``--min-frames``). Needs Pillow
(the ``render`` extra).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")  # headless, whatever the renderer imports

import numpy as np

import gym_suite
from gym_suite.evaluate import play
from gym_suite.quiet import make

DEFAULT_OUT = Path(__file__).resolve().parents[2] / "docs" / "img"  # the repository's
MIN_WIDTH = 320  # small frames are enlarged (nearest neighbour) to at least this width
LAST_FRAME_HOLD = 4  # the last frame shows this many frame times, a pause before the loop restarts


def record_episodes(env_id: str, seed: int, min_frames: int, max_frames: int):
    """Frames of heuristic play from ``reset(seed=seed)``: one episode, at most ``max_frames``.

    An episode shorter than ``min_frames`` is followed by the next ones (``reset()`` without a
    seed carries on the seeded generator) until the GIF has ``min_frames``, so that a task the
    heuristic solves in a step or two still shows more than one situation. Returns the frames,
    the returns and lengths of the episodes, whether the last one ended (``False``: cut at
    ``max_frames``) and the env's ``render_fps``.
    """
    env = make(env_id, render_mode="rgb_array")  # from its spec: no version notice for heartpole-v0
    frames, returns, lengths, ended = [], [], [], False
    episode_seed = seed
    while len(frames) < max_frames and (not frames or len(frames) < min_frames):
        obs, _ = env.reset(seed=episode_seed)
        episode_seed = None  # the next episodes carry on the seeded generator
        frames.append(env.render())
        returns.append(0.0)
        lengths.append(0)
        ended = False
        for step in play(env, "heuristic", observation=obs):
            returns[-1] += step.reward
            lengths[-1] += 1
            frames.append(env.render())
            ended = step.done
            if len(frames) >= max_frames:
                break
    fps = env.metadata.get("render_fps", 4)
    env.close()
    return frames[:max_frames], returns, lengths, ended, fps


def save_gif(frames: list[np.ndarray], path: Path, fps: float) -> None:
    from PIL import Image

    scale = max(1, math.ceil(MIN_WIDTH / frames[0].shape[1]))
    images = [Image.fromarray(np.ascontiguousarray(f)) for f in frames]
    if scale > 1:
        images = [im.resize((im.width * scale, im.height * scale), Image.NEAREST) for im in images]
    frame_ms = round(1000 / fps)
    durations = [frame_ms] * (len(images) - 1) + [frame_ms * LAST_FRAME_HOLD]
    images[0].save(path, save_all=True, append_images=images[1:], duration=durations, loop=0, optimize=True, disposal=1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="directory of the GIFs (default: docs/img)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--min-frames", type=int, default=24, help="play more episodes up to this (default: 24)")
    parser.add_argument("--max-frames", type=int, default=120, help="frames per GIF at most (default: 120)")
    parser.add_argument("--fps", type=float, help="frames per second (default: the env's render_fps)")
    parser.add_argument("--ids", nargs="+", metavar="ID", help="environments to record (default: every one)")
    args = parser.parse_args(argv)
    try:
        import PIL  # noqa: F401
    except ImportError:
        parser.error('Pillow is needed to write GIFs: pip install "gym-suite[render]"')
    known = [spec.id for spec in gym_suite.SPECS]
    unknown = sorted(set(args.ids or []) - set(known))
    if unknown:
        parser.error(f"unknown id(s) {unknown}; registered ids are {known}")
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    for env_id in args.ids or known:
        frames, returns, lengths, ended, env_fps = record_episodes(env_id, args.seed, args.min_frames, args.max_frames)
        fps = args.fps or env_fps
        path = out / f"{env_id}.gif"
        save_gif(frames, path, fps)
        h, w = frames[0].shape[:2]
        if len(lengths) == 1:
            episodes = (
                f"one episode of {lengths[0]} steps, return {returns[0]:.2f}"
                if ended
                else f"the first {lengths[0]} steps of an episode, return so far {returns[0]:.2f}"
            )
        else:
            episodes = f"{len(lengths)} episodes of {sum(lengths) / len(lengths):.1f} steps on average, mean return {sum(returns) / len(returns):.2f}"
        print(
            f"{path}: {len(frames)} frames of {w}x{h} at {fps:g} fps, {path.stat().st_size / 1024:.0f} KiB; "
            f"seed {args.seed}, heuristic policy: {episodes}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
