"""The footer: Textual's, recomposed only when the keys it shows change."""

from __future__ import annotations

from collections.abc import Hashable

from textual.app import ComposeResult
from textual.widgets import Footer

__all__ = ["KeysFooter"]


class KeysFooter(Footer):
    """Textual's `Footer`, but it keeps its key widgets while the keys they show stay the same.

    Textual recomposes a footer whenever its screen's bindings may have changed (focus moved,
    a screen came back): every key becomes a new widget, styled, laid out and drawn again.
    The diff screen is kept between opens and shows the same keys each time, and that
    redraw was about a tenth of the Python calls of opening a diff.
    """

    _shown: Hashable = None  # what the key widgets show, as last composed

    def _keys(self) -> Hashable:
        """Everything `Footer.compose` draws the keys from."""
        app = self.app
        return (
            self.compact,
            self.show_command_palette,
            tuple(
                (
                    binding.key,
                    app.get_key_display(binding),
                    binding.description,
                    binding.action,
                    binding.show,
                    binding.group,
                    binding.tooltip,
                    enabled,
                    tooltip,
                )
                for _, binding, enabled, tooltip in self.screen.active_bindings.values()
            ),
        )

    def compose(self) -> ComposeResult:
        self._shown = self._keys() if self._bindings_ready else None
        yield from super().compose()

    async def recompose(self) -> None:
        if self._shown is not None and self.is_attached and self._keys() == self._shown:
            return
        await super().recompose()
