"""Play an environment by hand in a pygame window: ``gym-suite play ID`` and :func:`play`.

The frame is the env's ``rgb_array`` picture, enlarged, over a panel (:class:`ScorePanel`): the id,
episode and step, the last reward, the return and the controls :func:`controls` chooses (``gym-suite
play --help`` lists the same): an id's own keys (:data:`KEYS`), else the digits for a ``Discrete``
space of at most ten actions, one step per press; a point ``Box(2,)`` (target-v0): a click or a drag
moves the worker to the pointer; ``STEERED_IDS`` (target-v1): a click starts the chase, then the env
steps ``STEPS_PER_SECOND`` times a second, the worker heading for the pointer. Esc or closing the
window quits; after an episode any key or click starts the next, reset with ``seed + episode``.
Needs pygame: ``pip install "gym-suite[render]"``.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, NoReturn, SupportsFloat

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.error import DependencyNotInstalled

from gym_suite.envs._draw import LINE_HEIGHT, draw_text, text_size
from gym_suite.envs.checks import check_env_kwargs, shown, shown_path

INSTALL_RENDER_EXTRA = 'pip install "gym-suite[render]"'
MIN_WINDOW_WIDTH = 400  # small frames are enlarged (whole times) to at least this width
TEXT_SCALE = 2
PANEL_BACKGROUND, PANEL_TEXT, PANEL_DIM = (30, 30, 36), (235, 235, 235), (150, 150, 160)
PANEL_GOOD, PANEL_BAD = (120, 220, 120), (240, 120, 110)
FPS = 30  # window refresh while waiting for input
#: The status line at an episode's end (room for it from the start: the window keeps its size).
EPISODE_OVER = "episode over: a key or a click starts the next"

STEERED_IDS = ("target-v1",)
STEPS_PER_SECOND = 10  # a steered game's steps: one every FPS // STEPS_PER_SECOND frames


@dataclass(frozen=True)
class Key:
    """A key of the controls: the pygame key names that press it, the legend's text, its action and label."""

    names: tuple[str, ...]
    shown: str
    action: int
    label: str


KEYS: dict[str, tuple[Key, ...]] = {
    "example-v0": (Key(("a", "left"), "A", 0, "left"), Key(("d", "right"), "D", 1, "right")),
    "heartpole-v0": (
        Key(("n", "0"), "N", 0, "nothing"),
        Key(("c", "1"), "C", 1, "coffee"),
        Key(("b", "2"), "B", 2, "beer"),
        Key(("s", "3"), "S", 3, "sleep"),
    ),
    "push-v0": (Key(("d", "1"), "D", 1, "deliver"), Key(("h", "0"), "H", 0, "hold")),
}
KEYS.update({f"{name}-v1": KEYS[f"{name}-v0"] for name in ("example", "heartpole", "push")})


def _base_id(env_id: str) -> str:
    return env_id.rpartition(":")[2]


def keys_for(env_id: str, action_space: spaces.Space[Any] | None) -> tuple[Key, ...] | None:
    """The keyboard controls of ``env_id``; ``None``: the mouse (``ValueError``: not playable by hand)."""
    name = _base_id(env_id)
    if name in KEYS:
        return KEYS[name]
    if isinstance(action_space, spaces.Discrete) and int(action_space.n) <= 10:
        start = int(action_space.start)
        return tuple(Key((str(i),), str(i), start + i, str(start + i)) for i in range(int(action_space.n)))
    if action_space is not None and is_point_space(action_space):
        return None
    raise ValueError(
        f"{env_id} cannot be played by hand: its action space {action_space} is neither Discrete "
        "(at most 10 actions: keys) nor a point Box(2,) (the mouse)"
    )


@dataclass(frozen=True)
class Controls:
    """How an id is played: with ``keys`` (None: the mouse), steered towards the pointer or not."""

    keys: tuple[Key, ...] | None
    steered: bool = False

    def legend(self) -> str:
        return self.panel_text()[0] if self.keys is not None and not self.steered else _MOUSE[self.steered][0]

    def panel_text(self) -> list[str]:
        if self.keys is not None and not self.steered:
            return ["  ".join(f"{key.shown} {key.label}" for key in self.keys)]
        return list(_MOUSE[self.steered][1:])


#: The mouse's legend and panel lines: clicking or dragging, or steering (by ``steered``).
_MOUSE = {
    False: (
        "the mouse: click or drag (the worker is blue, the target red)",
        "you: the blue disc; reach the red one",
        "click or drag: move the blue disc there",
    ),
    True: (
        "the mouse: a click starts the chase, then the worker (blue) heads for the pointer",
        "you: the blue disc; catch the red one",
        "click: start; the blue disc heads for the pointer",
    ),
}


def controls(env_id: str, action_space: spaces.Space[Any]) -> Controls:
    """The controls :func:`play` gives ``env_id`` and ``play --help`` describes (``ValueError``: not playable)."""
    return Controls(keys_for(env_id, action_space), steers(env_id))


def controls_text(keys: tuple[Key, ...] | None, steered: bool = False) -> list[str]:
    """The panel's lines of these controls, then ``Esc: quit``."""
    return [*Controls(keys, steered).panel_text(), "Esc: quit"]


def controls_help(env_ids: Sequence[str]) -> str:
    """``gym-suite play --help``'s lines: :func:`controls` of each id, then what every id shares."""
    from gym_suite.quiet import make

    lines = ["controls:"]
    for env_id in env_ids:
        env = make(env_id)
        try:
            legend = controls(env_id, env.action_space).legend()
        except ValueError:
            legend = f"cannot be played by hand (its action space is {env.action_space})"
        finally:
            env.close()
        lines.append(f"  {env_id:<14} {legend}")
    lines.append("  any id         Esc or closing the window quits; after an episode, any key or click starts the next")
    return "\n".join(lines)


def steers(env_id: str) -> bool:
    """Whether ``env_id`` is played by steering towards the pointer (``STEERED_IDS``)."""
    return _base_id(env_id) in STEERED_IDS


def heading(worker: Sequence[float] | np.ndarray, point: Sequence[float] | np.ndarray) -> np.ndarray:
    """A steered worker's action towards ``point``: a unit vector, shorter within one unit (float32)."""
    delta = np.asarray(point, dtype=np.float64) - np.asarray(worker, dtype=np.float64)
    length = float(np.hypot(delta[0], delta[1]))
    return (delta / max(length, 1.0)).astype(np.float32)


def is_point_space(space: spaces.Space[Any]) -> bool:
    return (
        isinstance(space, spaces.Box)
        and space.shape == (2,)
        and bool(np.all(np.isfinite(space.low)) and np.all(np.isfinite(space.high)))
    )


def pixel_to_point(x: float, y: float, frame_size: tuple[int, int], space: spaces.Box) -> np.ndarray:
    """The action at pixel ``(x, y)`` (its centre) of a ``(width, height)`` frame showing the whole ``Box(2,)``."""
    width, height = frame_size
    u = (np.clip(x, 0, width - 1) + 0.5) / width
    v = (np.clip(y, 0, height - 1) + 0.5) / height
    low, high = space.low.astype(np.float64), space.high.astype(np.float64)
    return np.array([low[0] + u * (high[0] - low[0]), low[1] + v * (high[1] - low[1])], dtype=space.dtype)


class ScorePanel(gymnasium.Wrapper[Any, Any, Any, Any]):
    """``render()``: the env's ``rgb_array`` frame, enlarged to at least ``min_width`` pixels, over a
    panel of the id, episode and step, the last reward, the return and ``controls``."""

    def __init__(
        self,
        env: gymnasium.Env[Any, Any],
        controls: Sequence[str] = (),
        min_width: int = MIN_WINDOW_WIDTH,
        text_scale: int = TEXT_SCALE,
    ) -> None:
        if env.render_mode != "rgb_array":
            raise ValueError(f"ScorePanel needs an env made with render_mode='rgb_array', got {env.render_mode!r}")
        super().__init__(env)
        self.controls = list(controls)
        self.min_width, self.text_scale = int(min_width), int(text_scale)
        self.episode, self.steps, self.episode_return, self.ended, self.status, self.zoom = 0, 0, 0.0, False, "", 1
        self.last_reward: float | None = None
        self.frame_offset = (0, 0)  # where the env's frame sits in the picture
        self.frame_size = (0, 0)  # (width, height) of the env's own frame
        self.picture_width = 0  # the widest so far: the window never narrows, nor widens at an episode's end

    def reset(self, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        result = super().reset(**kwargs)
        self.episode += 1
        self.steps, self.episode_return, self.last_reward, self.ended = 0, 0.0, None, False
        return result

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        observation, reward, terminated, truncated, info = super().step(action)
        self.steps, self.last_reward, self.ended = self.steps + 1, float(reward), bool(terminated or truncated)
        self.episode_return += float(reward)
        return observation, reward, terminated, truncated, info

    def panel_lines(self) -> list[tuple[str, tuple[int, int, int]]]:
        env_id = self.env.spec.id if self.env.spec is not None else type(self.env.unwrapped).__name__
        reward = "-" if self.last_reward is None else f"{self.last_reward:+.3f}"
        colour = PANEL_TEXT if not self.last_reward else (PANEL_GOOD if self.last_reward > 0 else PANEL_BAD)
        return [
            (f"{env_id}  episode {self.episode}  step {self.steps}", PANEL_DIM),
            (f"reward {reward}   return {self.episode_return:+.3f}", colour),
            *[(text, PANEL_TEXT) for text in self.controls],
            (self.status, PANEL_GOOD),  # always a line, empty but for an episode's end
        ]

    def render(self) -> np.ndarray:
        frame = self.env.render()
        if not isinstance(frame, np.ndarray):
            raise TypeError(f"ScorePanel: the env must render an RGB array, got {type(frame).__name__}")
        height, width = frame.shape[:2]
        self.frame_size = (width, height)
        lines = self.panel_lines()
        scale = self.text_scale
        texts = [text for text, _ in lines] + [EPISODE_OVER]
        widest = max(text_size(text, scale)[0] for text in texts) + 2 * 8 * scale // 2
        self.zoom = zoom = max(1, -(-self.min_width // width))  # whole times, at least min_width
        self.picture_width = picture_width = max(width * zoom, widest, self.picture_width)
        panel_height = (len(lines) * LINE_HEIGHT + 4) * scale
        picture = np.full((height * zoom + panel_height, picture_width, 3), PANEL_BACKGROUND, dtype=np.uint8)
        left = (picture_width - width * zoom) // 2
        picture[: height * zoom, left : left + width * zoom] = frame.repeat(zoom, axis=0).repeat(zoom, axis=1)
        self.frame_offset = (left, 0)
        for i, (text, colour) in enumerate(lines):
            draw_text(picture, text, 4 * scale, height * zoom + (2 + i * LINE_HEIGHT) * scale, colour, scale)
        return picture

    def point_at(self, x: int, y: int) -> np.ndarray | None:
        """The action at window pixel ``(x, y)`` for a point action space, or None off the frame."""
        left, top = self.frame_offset
        width, height = self.frame_size
        fx, fy = (x - left) / self.zoom, (y - top) / self.zoom
        if not (0 <= fx < width and 0 <= fy < height) or not isinstance(self.action_space, spaces.Box):
            return None
        return pixel_to_point(fx, fy, self.frame_size, self.action_space)

    def steer_action(self, x: int, y: int) -> np.ndarray:
        """The steered worker's action towards the field point at window pixel ``(x, y)`` (:func:`heading`)."""
        (left, top), target = self.frame_offset, self.unwrapped  # the target envs: their field side and state
        field = spaces.Box(0.0, float(target.size), (2,), np.float64)  # type: ignore[attr-defined]
        point = pixel_to_point((x - left) / self.zoom, (y - top) / self.zoom, self.frame_size, field)
        return heading((target.state.worker_x, target.state.worker_y), point)  # type: ignore[attr-defined]


def _import_pygame() -> ModuleType:
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    try:
        import pygame
    except ImportError as exc:
        raise DependencyNotInstalled(f"playing needs pygame: {INSTALL_RENDER_EXTRA}") from exc
    return pygame


#: The picture formats ``pygame.image.save`` writes, by file extension (it writes any other name as TGA).
SCREENSHOT_EXTENSIONS = (".png", ".jpg", ".jpeg", ".bmp", ".tga")


def check_screenshot(screenshot: object) -> str | None:
    """``screenshot`` checked before the window opens: ``None``, or the path of a picture file
    (:data:`SCREENSHOT_EXTENSIONS`) that can be written, not left behind (``TypeError`` for no path,
    ``ValueError`` for one that cannot be written)."""
    if screenshot is None:
        return None
    if not isinstance(screenshot, (str, os.PathLike)):
        raise TypeError(f"screenshot must be None or a file path (str or os.PathLike), got {shown(screenshot)}")
    path = os.fspath(screenshot)
    if not isinstance(path, str):
        raise TypeError(f"screenshot must be a text path (str or os.PathLike of str), got {shown(screenshot)}")

    def refuse(why: str) -> NoReturn:
        raise ValueError(f"screenshot={shown_path(path)} {why}")

    if not path.strip():
        refuse("is empty; give the path of a picture file to write (PNG, ...)")
    if "\x00" in path:
        refuse("holds a NUL character")
    if os.path.isdir(path):
        refuse("is a directory; give the path of a picture file in it (PNG, ...)")
    if os.path.splitext(path)[1].lower() not in SCREENSHOT_EXTENSIONS:
        refuse(f"must end with one of {list(SCREENSHOT_EXTENSIONS)} (the picture's format)")
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        refuse(f"cannot be written: the directory {shown_path(directory)} does not exist")
    if hasattr(os, "statvfs") and os.statvfs(directory).f_blocks == 0:  # /proc, /sys: no room for files
        refuse(f"cannot be written: {shown_path(directory)} is on a filesystem that holds no files")
    try:
        if os.path.lexists(path):
            if not os.path.isfile(path):
                refuse("exists and is not a regular file")
            with open(path, "r+b"):  # writable, left as it is
                pass
        else:
            with open(path, "xb"):
                pass
            os.remove(path)
    except OSError as exc:
        refuse(f"cannot be written: {exc.strerror or exc}")
    return path


def _is_int(value: object) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def play(
    env_id: str,
    *,
    seed: int | None = None,
    episodes: int | None = None,
    env_kwargs: dict[str, Any] | None = None,
    screenshot: str | os.PathLike[str] | None = None,
    on_episode: Callable[[int, float, int, bool], None] | None = None,
) -> list[float]:
    """Play ``env_id`` by hand in a pygame window; returns the returns of the finished episodes.

    Episode ``i`` is reset with ``seed + i`` (None: unseeded); ``episodes``: stop after that many
    (None: at Esc or the window's closing); ``screenshot``: the file the last picture is saved to;
    ``on_episode(index, return, steps, terminated)`` is called after each episode.
    """
    if seed is not None and (not _is_int(seed) or seed < 0):
        raise ValueError(f"seed must be None or a non-negative integer, got {shown(seed)}")
    if episodes is not None and (not _is_int(episodes) or episodes < 1):
        raise ValueError(f"episodes must be None or a positive integer, got {shown(episodes)}")
    seed, episodes = (None if n is None else int(n) for n in (seed, episodes))
    env_kwargs = check_env_kwargs("play: ", env_kwargs, allow_none=True)
    if on_episode is not None and not callable(on_episode):
        raise TypeError(
            f"play: on_episode must be None or a callable (index, return, steps, terminated), got {shown(on_episode)}"
        )
    path = check_screenshot(screenshot)
    pygame = _import_pygame()
    from gym_suite.quiet import make

    env = make(env_id, render_mode="rgb_array", **(env_kwargs or {}))
    try:
        chosen = controls(env_id, env.action_space)
        panel = ScorePanel(env, controls_text(chosen.keys, chosen.steered))
        return _Game(pygame, panel, chosen, seed, episodes, on_episode).run(path)
    finally:
        env.close()


@dataclass
class _Game:
    pygame: ModuleType
    panel: ScorePanel
    controls: Controls
    seed: int | None
    episodes: int | None
    on_episode: Callable[[int, float, int, bool], None] | None
    returns: list[float] = field(default_factory=list)
    pending: deque[int | np.ndarray] = field(default_factory=deque)  # a step per key press or click, one a frame
    running: bool = True
    dragging: bool = False
    chasing: bool = False  # a steered game: started by a click, then a step every few frames
    frame: int = 0

    def __post_init__(self) -> None:
        names = [(name, key.action) for key in self.controls.keys or () for name in key.names]
        pygame = self.pygame
        self.by_key = {getattr(pygame, f"K_{n}", None) or getattr(pygame, f"K_{n.upper()}"): a for n, a in names}

    def run(self, screenshot: str | None) -> list[float]:
        pygame, panel = self.pygame, self.panel
        pygame.display.init()
        try:
            window = _open_window(pygame, panel, self.seed)
            clock = pygame.time.Clock()
            while self.running:
                next_episode = self.read_events()
                action = self.next_action()
                if not self.running:
                    break
                if next_episode:
                    self.next_episode()
                elif action is not None and not panel.ended:
                    self.step(action)
                window = _show(pygame, window, panel.render())
                clock.tick(FPS)
            if screenshot is not None:
                _save(pygame, window, screenshot)
        finally:
            pygame.display.quit()
        return self.returns

    def read_events(self) -> bool:
        """Take in the frame's events: whether one starts the next episode."""
        pygame, next_episode, drag_to = self.pygame, False, None
        for event in pygame.event.get():
            if event.type == pygame.QUIT or (event.type == pygame.KEYDOWN and event.key == pygame.K_ESCAPE):
                self.running = False
            elif self.panel.ended:
                next_episode = next_episode or event.type in (pygame.KEYDOWN, pygame.MOUSEBUTTONDOWN)
            elif event.type == pygame.KEYDOWN and event.key in self.by_key:
                self.pending.append(self.by_key[event.key])
            elif self.controls.steered:
                self.chasing = self.chasing or _left_button(event, pygame.MOUSEBUTTONDOWN)
            elif self.controls.keys is None:
                drag_to = self._mouse(event, drag_to)
        if drag_to is not None:  # after the clicks of the same frame
            self.pending.append(drag_to)
        return next_episode

    def _mouse(self, event: Any, drag_to: np.ndarray | None) -> np.ndarray | None:
        """A click moves to its point at once, a drag to its latest point of the frame (returned)."""
        if _left_button(event, self.pygame.MOUSEBUTTONDOWN):
            self.dragging = True
            point = self.panel.point_at(*event.pos)
            if point is not None:
                self.pending.append(point)
        elif _left_button(event, self.pygame.MOUSEBUTTONUP):
            self.dragging = False
        elif event.type == self.pygame.MOUSEMOTION and self.dragging:
            return self.panel.point_at(*event.pos)
        return drag_to

    def next_action(self) -> int | np.ndarray | None:
        action = self.pending.popleft() if self.pending else None
        self.frame += 1
        steps_now = self.frame % max(1, FPS // STEPS_PER_SECOND) == 0
        if self.controls.steered and self.chasing and not self.panel.ended and steps_now:
            action = self.panel.steer_action(*self.pygame.mouse.get_pos())
        return action

    def next_episode(self) -> None:
        self.panel.status, self.chasing = "", False
        self.pending.clear()
        self.panel.reset(seed=None if self.seed is None else self.seed + len(self.returns))

    def step(self, action: int | np.ndarray) -> None:
        panel = self.panel
        _, _, terminated, truncated, _ = panel.step(action)
        if not (terminated or truncated):
            return
        self.returns.append(panel.episode_return)
        how = f"after {panel.steps} steps ({'terminated' if terminated else 'truncated'})"
        print(f"episode {len(self.returns)}: return {panel.episode_return:.3f} {how}", flush=True)
        if self.on_episode is not None:
            self.on_episode(len(self.returns) - 1, panel.episode_return, panel.steps, bool(terminated))
        panel.status = EPISODE_OVER
        if self.episodes is not None and len(self.returns) >= self.episodes:
            self.running = False


def _left_button(event: Any, kind: int) -> bool:
    return bool(event.type == kind and event.button == 1)


def _open_window(pygame: ModuleType, panel: ScorePanel, seed: int | None) -> Any:
    """The window, showing the first episode's start (``pygame.error``: no display)."""
    driver = pygame.display.get_driver()
    if driver in ("offscreen", "dummy") and not os.environ.get("SDL_VIDEODRIVER"):
        raise pygame.error(f"no display to show a window on (SDL chose its {driver!r} video driver)")
    env_id = panel.spec.id if panel.spec is not None else "environment"
    pygame.display.set_caption(f"gym-suite play {env_id}")
    panel.reset(seed=seed)
    picture = panel.render()
    return pygame.display.set_mode((picture.shape[1], picture.shape[0]))


def _show(pygame: ModuleType, window: Any, picture: np.ndarray) -> Any:
    if (picture.shape[1], picture.shape[0]) != window.get_size():
        window = pygame.display.set_mode((picture.shape[1], picture.shape[0]))
    pygame.surfarray.blit_array(window, picture.swapaxes(0, 1))
    pygame.display.flip()
    return window


def _save(pygame: ModuleType, window: Any, screenshot: str) -> None:
    try:
        pygame.image.save(window, screenshot)
    except Exception as exc:  # pygame.error: the disk filled up, the file went away meanwhile
        raise OSError(f"screenshot={shown_path(screenshot)} could not be saved: {exc}") from None
