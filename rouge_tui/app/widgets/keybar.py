"""The footer: the keys of the view, most important first, as many as fit, ``?`` always.

Textual's Footer lays every key out and lets the ones past the edge fall off screen; here the
keys are drawn in the order the screen lists its bindings, and when the line is full the
rest are left to the help screen (``?``), which is always shown.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.widget import Widget

__all__ = ["KeyBar"]


class KeyBar(Widget):
    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
        background: $footer-background;
        color: $footer-description-foreground;
    }
    """

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, lambda _screen: self.refresh())

    def keys(self) -> list[tuple[str, str]]:
        """(keys as shown, description) of every shown, enabled binding in the screen's
        order; bindings of one group share a description (``a b u mark``)."""
        seen: set[str] = set()
        keys: list[tuple[str, str]] = []
        # The order the screen lists them in (the active bindings come in key order); a
        # widget's binding with the id of one of the screen's takes its place.
        order = {b.id or b.action: i for i, b in enumerate(getattr(type(self.screen), "BINDINGS", [])) if hasattr(b, "action")}
        active_bindings = sorted(self.screen.active_bindings.values(),
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

    def render(self) -> Text:
        key_style = Style(bold=True, reverse=True)
        keys = self.keys()
        helps = [k for k in keys if k[1] == "help"]
        others = [k for k in keys if k[1] != "help"]
        room = self.size.width - (sum(len(k) + len(d) + 3 for k, d in helps))
        text = Text(no_wrap=True, overflow="crop")
        for key, description in helps:
            text.append(f" {key} ", key_style)
            text.append(f"{description} ")
        for key, description in others:
            width = len(key) + len(description) + 3
            if width > room:
                break
            room -= width
            text.append(f" {key} ", key_style)
            text.append(f"{description} ")
        return text
