"""The footer: the keys of the view, ``?`` first, then the rest most important first.

Textual's Footer lays every key out and lets the ones past the edge fall off screen; here the
keys are drawn in the order the screen lists its bindings, and when a line is full the rest
go on to the next (the footer is as tall as its keys need), so no key of the view is cut.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.widget import Widget

from rouge_tui.app.fit import flow

__all__ = ["KeyBar"]


class KeyBar(Widget):
    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: auto;
        background: $footer-background;
        color: $footer-description-foreground;
    }
    """

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, lambda _screen: self.refresh(layout=True))
        # A dialog over the screen (help, a note, o's list) has no footer of its own: this one
        # says its keys while it is up.
        self.app.screen_change_signal.subscribe(self, lambda _screen: self.refresh(layout=True))

    def keys(self) -> list[tuple[str, str]]:
        """(keys as shown, description) of every shown, enabled binding in the order of the
        screen in front (this footer's, or a dialog over it); bindings of one group share a
        description (``a b u mark``)."""
        screen = self.app.screen
        seen: set[str] = set()
        keys: list[tuple[str, str]] = []
        # The order the screen lists them in (the active bindings come in key order); a
        # widget's binding with the id of one of the screen's takes its place.
        order = {b.id or b.action: i for i, b in enumerate(getattr(type(screen), "BINDINGS", [])) if hasattr(b, "action")}
        active_bindings = sorted(screen.active_bindings.values(),
                                 key=lambda a: order.get(a.binding.id or a.binding.action, len(order)))
        for active in active_bindings:
            binding = active.binding
            if not binding.show or not active.enabled or binding.action in seen:
                continue
            seen.add(binding.action)
            shown = self.app.get_key_display(binding)
            group = binding.group.description if binding.group else None
            if group and keys and keys[-1][1] == group:
                keys[-1] = (f"{keys[-1][0]} {shown}", group)
            else:
                keys.append((shown, group or binding.description))
        return keys

    def lines(self, width: int) -> list[Text]:
        """The keys, ``?`` first, each whole on the first line with room for it."""
        key_style = Style(bold=True, reverse=True)
        keys = self.keys()
        keys = [k for k in keys if k[1] == "help"] + [k for k in keys if k[1] != "help"]
        parts = [Text.assemble((f" {key} ", key_style), f"{description} ") for key, description in keys]
        return flow(parts, width, sep="", overflow="crop") or [Text()]

    def get_content_height(self, container, viewport, width: int) -> int:
        return len(self.lines(width))

    def render(self) -> Text:
        return Text("\n", no_wrap=True, overflow="crop").join(self.lines(self.size.width))
