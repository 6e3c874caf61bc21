"""The Textual app: holds the arguments, opens the first screen, quits, exports, and ends on a
hang-up without waiting for a terminal that is gone."""

from __future__ import annotations

import argparse
import codecs
import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import ClassVar

from rich.console import RenderableType
from textual.actions import ActionParseResult
from textual.app import App
from textual.binding import Binding, BindingType
from textual.dom import DOMNode
from textual.screen import Screen
from textual.worker import get_current_worker

from rouge_tui.app.messages import MarksSaved, ReviewWritten
from rouge_tui.app.screens.common import ConfirmScreen, NoteScreen, describe
from rouge_tui.app.screens.help import HelpScreen
from rouge_tui.app.screens.review import ReviewScreen
from rouge_tui.app.screens.suites import SuitesScreen
from rouge_tui.errors import SuiteError
from rouge_tui.review import Review, SuiteRef, user_theme
from rouge_tui.safetext import editable, one_line
from rouge_tui.store.marks import MarkStore
from rouge_tui.store.paths import LOCK_WAIT

# After SIGTERM the app exits as `q` does; if it has not within this many seconds, it goes.
TERM_GRACE = 3.0
# On a hang-up or SIGTERM, the longest wait for a marks file's lock another process holds,
# and the seconds after a hang-up by which the process has ended whatever happens.
HANG_UP_WAIT = 1.0
HANG_UP_GRACE = 3
# At exit, the seconds waited for reviews still being written, all of them together.
EXPORT_WAIT = 30.0


def path_lines(path: str, width: int = 60) -> str:
    """A path over lines of at most ``width`` characters, broken only after a ``/`` (a
    notification breaks long lines anywhere, mid-name included)."""
    home = str(Path.home())
    if path.startswith(home + "/"):
        path = "~" + path[len(home):]
    lines, line = [], ""
    for part in one_line(path).split("/"):
        piece = part + "/"
        if line and len(line) + len(piece) > width:
            lines.append(line)
            line = ""
        line += piece
    lines.append(line)
    return "\n".join(lines).rstrip("/")


def _replacing_decoder(encoding: str) -> Callable[[], InputDecoder]:
    """`InputDecoder`s of ``encoding``, in the place of the driver's strict one."""
    return partial(InputDecoder, encoding)


PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"  # a bracketed paste's brackets


class InputDecoder:
    """The terminal's input decoded: U+FFFD for a byte that is not ``encoding``, and inside a
    bracketed paste what a terminal acts on as its visible escape (`editable`). Textual's
    parser reads an ESC inside a paste as the start of a key: a log line pasted with its
    colours came out reordered ("^[31mRED^[0m mid ^O tailpre"), two ESCs as the escape key
    (the rest of the paste lost), and a ^S after it saved the note being typed."""

    def __init__(self, encoding: str) -> None:
        self.inner = codecs.getincrementaldecoder(encoding)(errors="replace")
        self.pasting = False
        self.held = ""  # the end of a chunk that may begin the paste's closing bracket
        self.opening = ""  # the end of the last chunk that may begin an opening bracket (passed on)

    def decode(self, data: bytes, final: bool = False) -> str:
        text, self.held = self.held + self.inner.decode(data, final), ""
        if not text:
            return ""
        out, at = [], 0
        rest = PASTE_START[len(self.opening) :]
        if self.opening and not self.pasting and text.startswith(rest):  # an opening cut between reads
            out.append(rest)
            at, self.pasting = len(rest), True
        while at < len(text):
            if not self.pasting:  # (nothing is held back out of a paste: an escape key would wait)
                start = text.find(PASTE_START, at)
                if start < 0:
                    out.append(text[at:])
                    break
                out.append(text[at : start + len(PASTE_START)])
                at, self.pasting = start + len(PASTE_START), True
                continue
            end = text.find(PASTE_END, at)
            body = text[at:] if end < 0 else text[at:end]
            if end < 0 and not final:
                keep = next((k for k in range(min(len(PASTE_END) - 1, len(body)), 0, -1)
                             if PASTE_END.startswith(body[-k:])), 0)
                body, self.held = body[: len(body) - keep], body[len(body) - keep :]
            out.append(editable(body))
            if end < 0:
                break
            out.append(PASTE_END)
            at, self.pasting = end + len(PASTE_END), False
        shown = "".join(out)
        ends = self.opening + shown  # (what came before counts: "\x1b[2", then "0")
        self.opening = "" if self.pasting else next(
            (ends[-k:] for k in range(min(len(PASTE_START) - 1, len(ends)), 0, -1) if PASTE_START.startswith(ends[-k:])), "")
        return shown


def _read_any_input(driver: type) -> None:
    """Textual's drivers decode the terminal's input as strict UTF-8: one byte that is not
    (a Latin-1 terminal's é, a paste from one) ends their input thread and the app with it,
    a note being typed lost (textual#6456, open). ``driver``'s module makes `InputDecoder`s
    instead, which replace such a byte and escape a paste's control characters; a module
    that no longer makes one so is left as it is."""
    module = sys.modules.get(driver.__module__)
    if getattr(module, "getincrementaldecoder", None) is codecs.getincrementaldecoder:
        module.getincrementaldecoder = _replacing_decoder  # type: ignore[union-attr]


class RougeApp(App[None]):
    """rouge-tui: one suite's review, or a list of suites to pick from."""

    CSS_PATH = "rouge_tui.tcss"
    TITLE = "rouge-tui"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("Q", "quit", "quit", id="quit"),  # q is each screen's own (it closes a view)
        Binding("question_mark", "help", "help", id="help"),
    ]

    def __init__(self, suites: Sequence[Path | SuiteRef], options: argparse.Namespace | None = None) -> None:
        super().__init__()
        _read_any_input(self.driver_class)
        self.suites = [p if isinstance(p, SuiteRef) else SuiteRef(Path(p)) for p in suites]
        self.options = options or argparse.Namespace()
        # The mark store of every review opened, for the unsaved-marks check: the stores, not
        # the reviews, which hold their comparison's texts (a pair switched to and from in h
        # kept each one's, 100-125 MB a switch at 100k).
        self.stores: list[MarkStore] = []
        self.exported: list[Path] = []  # said again on stderr when the app exits
        self.fatal: str | None = None  # why the app could not open its suite
        self.exports: list[threading.Thread] = []  # the reviews being written, joined at exit
        self.export_failures: list[str] = []  # said again on stderr when the app exits
        self.ending = False  # exit() was called: the keys still queued do nothing
        self.saving = threading.Lock()  # one save of marks at a time (`save_marks`)
        self.quit_when_saved = False  # q waits for the marks being saved
        self.last_said: tuple[tuple[str, str, str] | None, float] = (None, 0.0)  # a toast, until when

    def notify(self, message: str, *, title: str = "", severity="information",
               timeout: float | None = None, markup: bool = True) -> None:
        """The toast just said, said again while it still shows, is not stacked under itself
        (`]` pressed eight times past the last change piled six over the diff text); any
        other comes, so the newest toast always says the latest (g b g: fine again)."""
        now = time.monotonic()
        key = (message, title, severity)
        if severity != "error" and self.last_said[0] == key and self.last_said[1] > now:
            return  # (an error again is said again: a retry that failed must say so)
        self.last_said = (key, now + (self.NOTIFICATION_TIMEOUT if timeout is None else timeout))
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    def on_mount(self) -> None:
        self._end_on_hang_up_or_term()
        try:  # config.toml's theme, one of Textual's (the rest of the file is the settings')
            theme = user_theme(list(self.available_themes))
        except SuiteError as exc:
            self.fail(describe(exc))
            return
        if theme is not None:
            self.theme = theme
        if len(self.suites) == 1:
            self.push_screen(ReviewScreen(self.suites[0], self.options, standalone=True))
        else:
            self.push_screen(SuitesScreen(self.suites, self.options))

    def keep_review(self, review: Review) -> None:
        """A screen opened ``review``: its marks are saved before the app exits."""
        # (Those with nothing left to save are let go: a review of each pair switched to in h.)
        kept = [store for store in self.stores if store is not review.store and (store.pending or store.unsaved)]
        self.stores = [*kept, review.store]

    def fail(self, text: str) -> None:
        """The suite could not be opened: exit with status 2, ``text`` said by the command
        line once the screen is gone."""
        self.fatal = text
        self.exit(return_code=2)

    # ------------------------------------------------------------------ ending

    def _end_on_hang_up_or_term(self) -> None:
        """SIGHUP (the SSH session dropped): the terminal is gone, so nothing is drawn or
        restored; a note being typed is saved as it stands, what is not saved yet is tried
        once more, briefly, then the process ends.
        The handler is Python's, not the event loop's: it runs even while the loop is stuck
        writing to the dead terminal (Textual's writer queue fills and blocks it); the command
        line also waits for SIGHUP in a thread of its own (`watch_hang_up`).
        SIGTERM: the terminal is there, so the app saves as for SIGHUP and exits as ``q``
        does, within TERM_GRACE."""
        if threading.current_thread() is not threading.main_thread():
            return
        signal.signal(signal.SIGHUP, self._hang_up)
        signal.signal(signal.SIGTERM, self._terminate)

    def watch_hang_up(self) -> None:
        """End on SIGHUP whatever the main thread is doing: a Python handler runs only when
        the main thread runs Python code, so one stuck in a call that an exit signal does not
        interrupt left the process running after its terminal hung up. The caller blocks
        SIGHUP before any thread starts (numpy's included), so every thread inherits the
        mask and this one, which waits for nothing else, takes it."""

        def wait() -> None:
            signum = signal.sigwait({signal.SIGHUP})
            self._hang_up(signum, None)

        threading.Thread(target=wait, name="hang-up", daemon=True).start()

    def _save_unsaved(self) -> None:
        """What is typed and not saved, saved as far as can be without waiting long: a lock
        held elsewhere is waited for at most HANG_UP_WAIT, once per file."""
        for screen in self.screen_stack:  # a note being typed is saved as it stands
            if isinstance(screen, NoteScreen):
                with contextlib.suppress(Exception):  # the editor may be half made or gone
                    screen.keep_typed()
        for store in self.stores:
            try:
                store.save(HANG_UP_WAIT)
            except (OSError, ValueError):
                with contextlib.suppress(OSError):
                    store.keep_unsaved()  # beside the file, for the next save to take in

    def _hang_up(self, signum: int, frame: object) -> None:
        # The kernel ends the process at HANG_UP_GRACE whatever happens here (SIGALRM's own
        # action needs neither this thread nor the main one).
        signal.alarm(HANG_UP_GRACE)
        try:
            self._save_unsaved()
        finally:
            os._exit(128 + signum)

    def _terminate(self, signum: int, frame: object) -> None:
        timer = threading.Timer(TERM_GRACE, os._exit, (128 + signum,))
        timer.daemon = True
        timer.start()
        with contextlib.suppress(Exception):
            self._save_unsaved()
        self.call_later(self.exit, None, 128 + signum)

    def exit(self, result: None = None, return_code: int = 0, message: RenderableType | None = None) -> None:
        self.ending = True
        super().exit(result, return_code, message)

    def _failing(self) -> None:
        """The app ends on an error nobody expected: what is typed and not saved is kept
        first, as on a hang-up."""
        self.ending = True
        with contextlib.suppress(Exception):
            self._save_unsaved()

    def panic(self, *renderables: RenderableType) -> None:
        """Textual ends the app so on an error it did not expect (its input thread's): what
        is typed is kept (`_failing`), and the status says it failed (it was 0, a typed note
        lost)."""
        self._failing()
        self._return_code = 1  # (Textual's own; its exit() would not show the error)
        super().panic(*renderables)

    def _handle_exception(self, error: Exception) -> None:
        """Textual's way out for an error a handler or widget raised (Textual's own hook,
        private, with textual pinned): what is typed is kept first (`_failing`)."""
        self._failing()
        super()._handle_exception(error)

    async def run_action(
        self, action: str | ActionParseResult, default_namespace: DOMNode | None = None,
        namespaces: Mapping[str, DOMNode] | None = None,
    ) -> bool:
        """Every key's action, unless the app is ending: `q` and `c` in one burst would open
        the note screen while the app closes (and crash as it mounts)."""
        if self.ending:
            return False
        return await super().run_action(action, default_namespace, namespaces)

    # ------------------------------------------------------------------ saving marks

    def save_marks(self, review: Review, screen: Screen | None = None, then: Callable[[], None] | None = None,
                   failed: str = "could not save the marks (kept in this session)", done: str | None = None) -> None:
        """Write what ``review``'s marks hold that is not on disk (`save_store`)."""
        self.save_store(review.store, screen, then, failed, done)

    def save_store(self, store: MarkStore, screen: Screen | None = None, then: Callable[[], None] | None = None,
                   failed: str = "could not save the marks (kept in this session)", done: str | None = None) -> None:
        """Write what ``store`` holds that is not on disk, in a worker: the lock may be held by
        another session for up to LOCK_WAIT, and the keys go on meanwhile. One save at a
        time; a newer one writes what an older one had not started on."""
        self.run_worker(partial(self._save_marks, store, screen, then, failed, done),
                        thread=True, exclusive=True, group="marks", exit_on_error=False)

    def _save_marks(self, store: MarkStore, screen: Screen | None, then: Callable[[], None] | None,
                    failed: str, done: str | None) -> None:
        with self.saving:
            if get_current_worker().is_cancelled:
                return  # a newer save writes these changes too
            try:
                notice = store.save()
            except Exception as exc:  # noqa: BLE001 - whatever it was, the changes stay and it is said
                self.post_message(MarksSaved(screen, then, error=f"{failed}: {describe(exc)}"))
                return
        self.post_message(MarksSaved(screen, then, done=done, notice=notice))

    def on_marks_saved(self, message: MarksSaved) -> None:
        if message.error:
            self.notify(message.error, severity="error", markup=False, timeout=10)
        elif message.done:
            self.notify(message.done, markup=False, timeout=2)
        if message.notice:
            self.notify(one_line(message.notice, 300), severity="warning", markup=False, timeout=8)
        screen = message.screen
        if message.then is not None and isinstance(screen, Screen) and screen.is_attached:
            message.then()
        if self.quit_when_saved and not self.saving_now():
            self.quit_when_saved = False
            self.call_later(self.action_quit)

    def saving_now(self) -> int:
        """Mark and note changes being saved (recorded, and no save of them failed yet)."""
        return sum(len(store.pending) for store in self.stores if store.failed is None)

    def finish_saves(self) -> None:
        """At exit: what is not saved yet, tried once more, briefly (a save under way finishes
        first); what still fails is said on stderr by the command line."""
        if not any(store.pending for store in self.stores) or not self.saving.acquire(timeout=LOCK_WAIT + 1):
            return
        try:
            for store in self.stores:
                try:
                    store.save(HANG_UP_WAIT)
                except OSError as exc:
                    said = f"{len(store.pending)} mark or note change(s) could not be saved: {describe(exc)}"
                    with contextlib.suppress(OSError):
                        kept = store.keep_unsaved()
                        said += f"; kept in {kept}, for the next save to take in" if kept else ""
                    self.export_failures.append(said)
        finally:
            self.saving.release()

    # ------------------------------------------------------------------ quitting

    async def action_quit(self) -> None:
        saving = self.saving_now()
        if saving and not self.quit_when_saved:
            # Quit once they are saved, or asked about (a lock held elsewhere: up to LOCK_WAIT).
            self.quit_when_saved = True
            for store in self.stores:
                if store.pending:
                    self.save_store(store)
            self.notify(f"saving {saving} mark change{'s' * (saving != 1)}… quitting once saved (q again: ask now)",
                        markup=False, timeout=LOCK_WAIT)
            return
        unsaved = sum(store.unsaved for store in self.stores) + saving
        # ctrl+q reaches here from a note editor too: what is typed there is not saved yet.
        typing = any(isinstance(screen, NoteScreen) and screen.typed for screen in self.screen_stack)
        if not unsaved and not typing:
            self.exit()
            return

        def answer(yes: bool | None) -> None:
            if yes:
                self.exit(return_code=1 if unsaved else 0)

        self.quit_when_saved = False  # asked now: a save ending later does not quit
        lost = []
        if typing:
            lost.append("The note you are typing is not saved (ctrl+s saves it).")
        if unsaved:
            lost.append(f"{unsaved} mark or note change{'s' * (unsaved != 1)} could not be saved "
                        f"({'still being saved' if saving else 'the save failed; mark again to retry'}).")
        self.push_screen(ConfirmScreen(" ".join(lost) + " Quit and lose what is not saved?"), answer)

    def action_help_quit(self) -> None:
        """ctrl+c: which key quits (Textual's own says the first bound). Where a text box has
        the keys a letter is text: "Press Q to quit" in the note editor typed Q into the note."""
        from textual.widgets import Input, TextArea

        if isinstance(self.focused, (Input, TextArea)):  # Textual's ctrl+q, a priority key: it reaches here
            quits = [Binding("ctrl+q", "quit")]
        else:
            quits = [active.binding for active in self.active_bindings.values()
                     if active.binding.action in ("quit", "app.quit")]
        if quits:
            self.notify(f"{self.get_key_display(quits[0])} quits rouge-tui (ctrl+c does not)",
                        markup=False, timeout=4)

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))

    # ------------------------------------------------------------------ the export

    def export(self, screen: Screen, review: Review) -> None:
        """Write the review (Markdown and HTML) in a thread and say where; ``e`` again says
        it again, and the app says it on stderr when it exits. A plain thread, not a worker:
        it always runs to its end, and the exit waits for it (`finish_exports`)."""
        from rouge_tui.export import export_review

        def tell(message: str, **options: object) -> None:
            # App.notify posts a message (thread-safe, never waits for the loop, which may
            # have stopped by now: then stderr says it, cli.cmd_open).
            self.notify(message, markup=False, **options)

        def work() -> None:
            try:
                paths = export_review(review)
            except Exception as exc:  # noqa: BLE001 - whatever went wrong, say it and go on
                self.export_failures.append(f"export failed: {describe(exc)}")
                tell(f"export failed: {describe(exc)}", severity="error")
                return
            self.exported = [p for p in self.exported if p not in paths] + list(paths)
            folder = path_lines(str(paths[0].parent) + "/")
            files = "\n".join(one_line(p.name) for p in paths)
            tell(f"review written to\n{folder}\n{files}", title="exported", timeout=15)
            self.post_message(ReviewWritten(list(paths)))  # (thread-safe, never waits for the loop)

        screen.notify("writing the review…", markup=False, timeout=2)
        thread = threading.Thread(target=work, name="export")
        self.exports.append(thread)
        thread.start()

    def on_review_written(self, message: ReviewWritten) -> None:
        """In a browser (`serve`) the files written are on the server: each is offered to the
        browser as a download too (a newcomer's colleague could not get theirs)."""
        if self.is_web:
            for path in message.paths:
                self.deliver_text(path, open_method="download", encoding="utf-8")

    def finish_exports(self, timeout: float = EXPORT_WAIT) -> None:
        """Wait for the reviews still being written, ``timeout`` seconds in all (the exit says
        where each went); one not finished by then is said, never dropped in silence."""
        deadline = time.monotonic() + timeout
        for thread in self.exports:
            thread.join(max(0.0, deadline - time.monotonic()))
        late = sum(thread.is_alive() for thread in self.exports)
        if late:
            self.export_failures.append(
                f"export not written: {late} review{'s' * (late != 1)} still being written after {timeout:g} s "
                "left unfinished (e in a new session writes it)")
