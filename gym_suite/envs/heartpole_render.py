"""Pictures of heartpole-v0 and heartpole-v1: the step's log (ansi) and a dashboard (rgb_array)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from gym_suite.envs._draw import GLYPH_HEIGHT, LINE_HEIGHT, draw_text, draw_text_centred, draw_text_right
from gym_suite.envs.heartpole_env import (
    ACTION_NAMES,
    BALLMER_PEAK,
    HEART_ATTACK_HYPERTENSION,
    STATE_NAMES,
    TIRING_ONSET,
)

if TYPE_CHECKING:
    import numpy.typing as npt

# --------------------------------------------------------------------------------------------
# Rendering
# --------------------------------------------------------------------------------------------

#: rgb_array: each bar is filled to v / (|v| + scale) of its length (half full at v == scale):
#: alertness at a fresh wake-up, hypertension at the heart-attack midpoint, intoxication at the
#: Ballmer peak, time_since_slept at the onset of tiring, time_elapsed at one day, work_done
#: at 100 units. Signed quantities grow from the middle.
DASHBOARD_SCALES = (1.0, HEART_ATTACK_HYPERTENSION, BALLMER_PEAK, TIRING_ONSET, 48.0, 100.0)
DASHBOARD_SIGNED = (True, False, False, False, False, True)
DASHBOARD_COLOURS = ((230, 180, 30), (200, 40, 40), (150, 60, 190), (60, 110, 200), (110, 110, 110), (40, 160, 70))
ACTION_COLOURS = ((150, 150, 150), (120, 70, 30), (220, 170, 40), (40, 40, 120))
#: rgb_array: the action slots' labels (the names of ACTION_NAMES without their verbs).
ACTION_LABELS = ("nothing", "coffee", "beer", "sleep")
FRAME_WIDTH, MARGIN = 256, 8
LABEL_HEIGHT = GLYPH_HEIGHT + 2  # a quantity's name and value, above its bar
BAR_HEIGHT, BAR_GAP = 10, 5
ROW_HEIGHT = LABEL_HEIGHT + BAR_HEIGHT + BAR_GAP
SLOT_HEIGHT = 12
TEXT_RGB, ZERO_RGB, ATTACK_RGB = (40, 40, 40), (60, 60, 60), (200, 0, 0)


def ansi_log(state: Sequence[float], last_action: int, heart_attack: bool) -> str:
    """The step's log: the chosen action, ``HEART ATTACK`` when one happened, the state."""
    chosen = "none (reset)" if last_action < 0 else ACTION_NAMES[last_action]
    quantities = "  ".join(f"{name} {value:.4g}" for name, value in zip(STATE_NAMES, state))
    return f"Chosen action: {chosen}\n" + ("HEART ATTACK\n" if heart_attack else "") + quantities + "\n"


def value_text(value: float) -> str:
    """A quantity as the dashboard shows it: 3 decimals below 10, 1 below 1,000, whole above."""
    value = float(value)
    size = abs(value)
    if not np.isfinite(value) or size >= 1e7:
        return f"{value:.3g}"
    if size < 10:
        return f"{value:.3f}"
    if size < 1000:
        return f"{value:.1f}"
    return f"{value:,.0f}"


def rgb_dashboard(state: Sequence[float], last_action: int, heart_attack: bool) -> npt.NDArray[np.uint8]:
    """A small image: one labelled bar per quantity (its name and value above it), the four
    actions below (the chosen one lit, named under the slots), a red frame and ``HEART
    ATTACK`` on a heart attack."""
    rows = len(STATE_NAMES)
    height = MARGIN + rows * ROW_HEIGHT + SLOT_HEIGHT + 2 + 2 * LINE_HEIGHT + MARGIN
    frame = np.full((height, FRAME_WIDTH, 3), 245, dtype=np.uint8)
    length = FRAME_WIDTH - 2 * MARGIN
    right = MARGIN + length
    for row, (name, value, scale, signed, colour) in enumerate(
        zip(STATE_NAMES, state, DASHBOARD_SCALES, DASHBOARD_SIGNED, DASHBOARD_COLOURS)
    ):
        label = MARGIN + row * ROW_HEIGHT
        draw_text(frame, name, MARGIN, label, TEXT_RGB)
        draw_text_right(frame, value_text(value), right, label, TEXT_RGB)
        top = label + LABEL_HEIGHT
        frame[top : top + BAR_HEIGHT, MARGIN:right] = 215  # the bar's track
        fill = float(value) / (abs(float(value)) + scale) if np.isfinite(value) else float(np.sign(value))
        if signed:
            middle = MARGIN + length // 2
            end = middle + int(round(fill * (length // 2)))
            frame[top : top + BAR_HEIGHT, min(middle, end) : max(middle, end) + 1] = colour
            frame[top : top + BAR_HEIGHT, middle] = ZERO_RGB  # zero
        else:
            frame[top : top + BAR_HEIGHT, MARGIN : MARGIN + int(round(fill * length))] = colour
    top = MARGIN + rows * ROW_HEIGHT
    slot = length // len(ACTION_NAMES)
    for action, (colour, action_label) in enumerate(zip(ACTION_COLOURS, ACTION_LABELS)):
        left = MARGIN + action * slot
        lit = action == last_action
        frame[top : top + SLOT_HEIGHT, left + 2 : left + slot - 2] = colour if lit else 225
        draw_text_centred(frame, action_label, left + slot // 2, top + SLOT_HEIGHT + 2, TEXT_RGB)
    if heart_attack:
        draw_text_centred(frame, "HEART ATTACK", FRAME_WIDTH // 2, top + SLOT_HEIGHT + 2 + LINE_HEIGHT, ATTACK_RGB)
        frame[:4], frame[-4:], frame[:, :4], frame[:, -4:] = 200, 200, 200, 200
        frame[:4, :, 1:] = frame[-4:, :, 1:] = frame[:, :4, 1:] = frame[:, -4:, 1:] = 0
    return frame
