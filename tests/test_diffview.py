"""The diff view's model (rouge_tui/app/widgets/diffview.py): laid out once per width, the
layouts in use kept."""

from __future__ import annotations

from oracles import CHAPTER_A, CHAPTER_B, CHAPTER_REFERENCE

from rouge_tui.analysis.settings import Settings
from rouge_tui.app.widgets.diffview import DiffModel
from rouge_tui.diff import example_diff


def chapter_model() -> DiffModel:
    diff = example_diff("inc-0042", [CHAPTER_REFERENCE], CHAPTER_A, CHAPTER_B, Settings())
    return DiffModel(diff, (CHAPTER_A, CHAPTER_B), ("a-baseline", "b-candidate"))


def test_the_layout_in_use_is_kept_while_a_resize_tries_other_widths() -> None:
    """Four layouts are kept: the one shown again stays, the one least recently shown goes
    (the hand-made cache dropped the oldest made, the one on screen)."""
    model = chapter_model()
    shown = model.layout("reference", True, 60)
    assert model.layout("reference", True, 60) is shown  # made once
    others = {width: model.layout("reference", True, width) for width in (70, 80, 90)}
    assert model.layout("reference", True, 60) is shown  # shown again: now the most recent
    model.layout("reference", True, 100)  # a fifth: the least recently shown (70) goes
    assert model.layout("reference", True, 60) is shown
    assert model.layout("reference", True, 80) is others[80]
    assert model.layout("reference", True, 70) is not others[70]
    assert shown.rows  # a real layout

