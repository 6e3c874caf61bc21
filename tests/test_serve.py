"""`rouge-tui serve`: the app in a real headless Chromium, through textual-serve.

The browser runs with every host name mapped to nowhere but 127.0.0.1, and the test reads
its own network log (the DevTools protocol): the page must load with no request leaving the
machine, keys typed in the page must reach the app, and a mark made there must be on disk.
"""

from __future__ import annotations

import asyncio
import errno
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest
from app_helpers import INCIDENT, ranked_ids

from rouge_tui import cli
from rouge_tui.app import serve as serve_module
from rouge_tui.app.serve import TEMPLATES, is_loopback, open_command, server_class
from rouge_tui.safetext import one_line

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for_port(port: int, process: subprocess.Popen, seconds: float = 60) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        assert process.poll() is None, process.stderr.read() if process.stderr else "exited"
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"nothing listened on {port}")


@pytest.fixture
def served(isolated_state: Path) -> Iterator[tuple[int, Path]]:
    """`rouge-tui serve` on the sample suite, on a free port; (port, its data folder)."""
    port = _free_port()
    process = subprocess.Popen([sys.executable, "-m", "rouge_tui", "serve", str(INCIDENT), "--port", str(port)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    try:
        _wait_for_port(port, process)
        yield port, Path(os.environ["XDG_DATA_HOME"])
    finally:
        os.killpg(process.pid, signal.SIGINT)  # the server and each app it started
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(15)


class Chromium:
    """A headless Chromium driven through the DevTools protocol (aiohttp's websocket
    client); every request the page makes is kept in ``requests``."""

    def __init__(self, profile: Path) -> None:
        found = shutil.which("chromium") or shutil.which("chromium-browser")
        assert found, "Debian's chromium is required for the browser tests (CI installs it)"
        self.process = subprocess.Popen(
            [found, "--headless", "--no-sandbox", "--no-first-run", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--disable-default-apps",
             # every host name resolves to nothing: only 127.0.0.1 can answer
             "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
             f"--user-data-dir={profile}", "--remote-debugging-port=0", "--window-size=1280,800", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )
        self.profile = profile
        self.requests: list[str] = []
        self.ids = 0

    async def connect(self) -> None:
        active = self.profile / "DevToolsActivePort"
        for _ in range(300):
            if active.exists() and active.read_text().strip():
                break
            await asyncio.sleep(0.1)
        port = int(active.read_text().split()[0])
        self.session = aiohttp.ClientSession()
        async with self.session.get(f"http://127.0.0.1:{port}/json/list") as response:
            page = next(t for t in await response.json() if t["type"] == "page")
        self.socket = await self.session.ws_connect(page["webSocketDebuggerUrl"], max_msg_size=0)

    async def call(self, method: str, **params) -> dict:
        self.ids += 1
        await self.socket.send_json({"id": self.ids, "method": method, "params": params})
        while True:
            message = json.loads((await self.socket.receive()).data)
            if message.get("method") == "Network.requestWillBeSent":
                self.requests.append(message["params"]["request"]["url"])
            elif message.get("method") == "Network.webSocketCreated":
                self.requests.append(message["params"]["url"])
            elif message.get("id") == self.ids:
                return message.get("result", {})

    async def evaluate(self, expression: str):
        return (await self.call("Runtime.evaluate", expression=expression, returnByValue=True))["result"].get("value")

    async def key(self, text: str) -> None:
        for kind in ("keyDown", "keyUp"):
            await self.call("Input.dispatchKeyEvent", type=kind, text=text if kind == "keyDown" else "",
                            key=text, code=f"Key{text.upper()}", windowsVirtualKeyCode=ord(text.upper()))

    async def close(self) -> None:
        await self.session.close()
        self.process.terminate()
        self.process.wait(15)


def _marks_on_disk(data: Path) -> str:
    return "".join(p.read_text(errors="replace") for p in data.rglob("*") if p.is_file() and "regression" in p.read_text(errors="replace"))


def test_the_app_in_a_browser_loads_nothing_from_outside_and_a_mark_made_there_is_on_disk(
    served: tuple[int, Path], tmp_path: Path
) -> None:
    """Issue 38, 11: textual-serve's own page linked a web font from fonts.googleapis.com."""
    port, data = served

    async def run() -> None:
        browser = Chromium(tmp_path / "profile")
        try:
            await browser.connect()
            await browser.call("Network.enable")
            await browser.call("Page.enable")
            await browser.call("Page.navigate", url=f"http://127.0.0.1:{port}/")
            for _ in range(600):  # textual.js marks the body once the app's first bytes came
                if await browser.evaluate("document.body && document.body.classList.contains('-first-byte')"):
                    break
                await asyncio.sleep(0.1)
            else:
                raise AssertionError("the app never drew in the page")
            await browser.call("Runtime.evaluate", expression="document.querySelector('.xterm-helper-textarea').focus()")
            for _ in range(60):  # until the suite is scored and the mark lands
                await browser.key("b")
                await asyncio.sleep(1)
                if "regression" in _marks_on_disk(data):
                    break
            await asyncio.sleep(0.5)
            await browser.call("Runtime.evaluate", expression="1")  # drain the events so far
        finally:
            await browser.close()
        return browser.requests

    requests = asyncio.run(run())
    assert any(url.startswith(f"ws://127.0.0.1:{port}/ws") for url in requests), requests
    outside = [url for url in requests
               if not url.startswith((f"http://127.0.0.1:{port}/", f"ws://127.0.0.1:{port}/", "data:", "blob:"))]
    assert outside == [], outside
    # the key reached the app: the most-moved example is marked a regression, on disk
    marks = _marks_on_disk(data)
    assert "regression" in marks and ranked_ids()[0] in marks, marks


def test_our_page_links_nothing_outside_the_package() -> None:
    """Every stylesheet and script is textual-serve's own, from where the page came from."""
    page = (TEMPLATES / "app_index.html").read_text(encoding="utf-8")
    linked = re.findall(r"""(?:href|src)\s*=\s*["']([^"']*)""", page)
    assert linked == ["/static/css/xterm.css", "/static/js/textual.js"]
    assert "@import" not in page and "url(" not in page and "fetch(" not in page


def test_serve_binds_to_loopback_unless_told_and_then_warns(monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    import textual_serve.server

    seen = {}

    class Fake:
        def __init__(self, command: str, host: str, port: int, **options) -> None:
            seen.update(command=command, host=host, port=port, **options)

        def serve(self) -> None:
            pass

    monkeypatch.setattr(textual_serve.server, "Server", Fake)
    monkeypatch.setattr(serve_module, "listen_problem", lambda host, port: None)  # 8000 may be taken here
    assert cli.main(["serve", str(INCIDENT)]) == 0
    assert (seen["host"], seen["port"]) == ("127.0.0.1", 8000) and seen["templates_path"] == TEMPLATES
    assert str(INCIDENT.resolve()) in seen["command"] and "open" in seen["command"]
    assert "AUTHENTICATION" not in capsys.readouterr().err
    assert cli.main(["serve", str(INCIDENT), "--host", "0.0.0.0", "--port", "9000"]) == 0
    assert (seen["host"], seen["port"]) == ("0.0.0.0", 9000)
    assert "WARNING: serving on 0.0.0.0:9000 with NO AUTHENTICATION" in capsys.readouterr().err
    assert is_loopback("localhost") and is_loopback("::1") and is_loopback("127.0.0.2")
    assert not is_loopback("0.0.0.0") and not is_loopback("example.org")
    assert open_command(INCIDENT).split()[1:3] == ["-m", "rouge_tui"]
    # how PATH is read goes to each connection's `open`
    assert cli.main(["serve", str(INCIDENT), "--format", "native"]) == 0
    assert seen["command"].endswith(f"open {INCIDENT.resolve()} --format native")


def test_serve_gives_the_browser_a_url_it_can_open_for_an_ipv6_address(monkeypatch: pytest.MonkeyPatch,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """A newcomer's `serve --host ::1`: a blank page. The page's websocket URL was
    ws://::1:8021/ws, on which its own script threw; `--host [::1]` could not resolve."""
    import textual_serve.server

    seen = {}

    class Fake:
        def __init__(self, command: str, host: str, port: int, **options) -> None:
            seen.update(host=host, port=port, **options)

        def serve(self) -> None:
            pass

    monkeypatch.setattr(textual_serve.server, "Server", Fake)
    monkeypatch.setattr(serve_module, "listen_problem", lambda host, port: None)
    for given in ("::1", "[::1]"):
        assert cli.main(["serve", str(INCIDENT), "--host", given, "--port", "8021"]) == 0
        assert (seen["host"], seen["public_url"]) == ("::1", "http://[::1]:8021")
    assert cli.main(["serve", str(INCIDENT), "--port", "8021"]) == 0
    assert seen["public_url"] == "http://127.0.0.1:8021"
    assert cli.main(["serve", str(INCIDENT), "--host", "::", "--port", "8021"]) == 0
    assert "WARNING: serving on [::]:8021 with NO AUTHENTICATION" in capsys.readouterr().err


def test_serve_on_a_folder_that_is_no_suite_says_so_before_serving(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """A newcomer's `serve` of an empty folder said it was serving, and the browser showed a
    blank page (the error only in the server's log): one line and exit 2, as `open` says."""
    import textual_serve.server

    class Started:
        def __init__(self, *args, **options) -> None:
            raise AssertionError("serve started a server for a folder that is no suite")

    monkeypatch.setattr(textual_serve.server, "Server", Started)
    assert cli.main(["serve", str(tmp_path), "--port", "8013"]) == 2
    said = f"rouge-tui: error: {tmp_path}: not a suite (no references file and builds/) and holds no suites\n"
    assert capsys.readouterr() == ("", said)


def test_serve_on_a_port_in_use_says_so_in_one_line_before_anything_else(monkeypatch: pytest.MonkeyPatch,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """A newcomer's second `serve` on a port already served: it said it was serving, then
    "error: writing the output: error while attempting to bind ...". Now one line names the
    address and the reason, exit 2, and nothing on stdout; the same for an address that is
    not this machine's. (The server is never started here: a look that let it would fail
    the test, not hang it.)"""
    import textual_serve.server

    class Started:
        def __init__(self, *args, **options) -> None:
            raise AssertionError("serve started a server on an address it cannot listen on")

    monkeypatch.setattr(textual_serve.server, "Server", Started)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert cli.main(["serve", str(INCIDENT), "--port", str(port)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"rouge-tui: error: cannot listen on 127.0.0.1:{port}: {os.strerror(errno.EADDRINUSE)}\n"
    assert cli.main(["serve", str(INCIDENT), "--host", "192.0.2.1", "--port", str(port)]) == 2  # TEST-NET-1: not ours
    said = f"rouge-tui: error: cannot listen on 192.0.2.1:{port}: {os.strerror(errno.EADDRNOTAVAIL)}\n"
    assert capsys.readouterr() == ("", said)


def test_serve_looks_at_an_address_as_its_server_binds_it() -> None:
    """The reviewer's cases for the look before serving: an IPv6 "::" beside a port IPv4 holds
    binds (the server sets IPV6_V6ONLY), and a name that resolves to two addresses is fine
    when one of them binds."""
    from rouge_tui.app.serve import listen_problem

    with socket.socket() as taken:
        taken.bind(("0.0.0.0", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert listen_problem("0.0.0.0", port) == os.strerror(errno.EADDRINUSE)
        if socket.has_ipv6:
            try:
                with socket.socket(socket.AF_INET6) as six:
                    six.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
                    six.bind(("::", port))
            except OSError:
                pass  # no IPv6 here: the case cannot arise
            else:
                assert listen_problem("::", port) is None
    assert listen_problem("localhost", port) is None  # free again


def test_the_servers_banner_says_the_suites_path_as_it_is(tmp_path: Path) -> None:
    """A red-team pass: `serve "/tmp/q[/b]s"` ended at its start (textual-serve printed the
    command as Rich markup: "closing tag '[/b]' ... doesn't match any open tag"), and with
    "[red]" in the path the banner named another folder than the one served."""
    import io

    from rich.console import Console

    for name in ("q[/b]s", "L[link=evil.example]CLICK[reverse]", "s[red]x\x1b[2J"):
        command = open_command(tmp_path / name)
        server = server_class()(command, host="127.0.0.1", port=8000, public_url="http://127.0.0.1:8000")
        out = io.StringIO()
        server.console = Console(file=out, width=500, color_system=None)
        asyncio.run(server.on_startup(None))
        said = out.getvalue()
        assert said.splitlines()[:2] == ["rouge-tui serve: open http://127.0.0.1:8000 in a browser",
                                         f"each page runs: {one_line(command)}"], said  # a line each, never wrapped
        assert "\x1b" not in said


@pytest.mark.parametrize("headers, host, refused", [
    ({"Host": "127.0.0.1:8765"}, "127.0.0.1", False),  # the page itself
    ({"Host": "127.0.0.1:8765", "Origin": "http://127.0.0.1:8765"}, "127.0.0.1", False),  # its websocket
    ({"Host": "localhost:8765", "Origin": "http://localhost:8765"}, "127.0.0.1", False),  # opened as localhost
    ({"Host": "LOCALHOST:8765", "Origin": "http://localhost:8765"}, "127.0.0.1", False),
    ({"Host": "127.0.0.1:9000", "Origin": "http://127.0.0.1:9000"}, "127.0.0.1", False),  # through ssh -L 9000
    ({"Host": "[::1]:8765", "Origin": "http://[::1]:8765"}, "::1", False),
    ({"Host": "box:8765", "Origin": "http://box:8765"}, "0.0.0.0", False),  # served to others, said loudly
    ({"Host": "127.0.0.1:8765", "Origin": "http://evil.example"}, "127.0.0.1", True),  # another site's page
    ({"Host": "127.0.0.1:8765", "Origin": "http://127.0.0.1:3000"}, "127.0.0.1", True),  # another local page
    ({"Host": "127.0.0.1:9000", "Origin": "http://localhost:8765"}, "127.0.0.1", True),  # another, through a tunnel
    ({"Host": "127.0.0.1:8765", "Origin": "null"}, "127.0.0.1", True),  # a sandboxed frame, a file
    ({"Host": "evil.example:8765"}, "127.0.0.1", True),  # DNS rebinding: another site's name for 127.0.0.1
    ({"Host": "box:8765", "Origin": "http://evil:8765"}, "0.0.0.0", True),
    ({}, "127.0.0.1", True),
])
def test_only_this_servers_own_pages_may_reach_it(headers: dict, host: str, refused: bool) -> None:
    """A helper's pass: any web page open in the browser could open the app's websocket (no
    Origin looked at), read the suite's outputs off the screen and send keys (marks, an
    export); a name of its own resolved to 127.0.0.1 could load the page too (no Host looked
    at). A browser's request must come from a page of this server's."""
    from rouge_tui.app.serve import request_problem

    assert (request_problem(headers, host, 8765) is not None) == refused


def test_another_sites_page_cannot_open_the_apps_websocket(served: tuple[int, Path]) -> None:
    """The same, at the running server: the websocket asked for by another origin and the page
    asked for by another name are refused (403); the server's own page's are not."""
    port, _ = served

    async def run() -> list[int]:
        statuses = []
        async with aiohttp.ClientSession() as session:
            for origin in ("http://evil.example", f"http://127.0.0.1:{port}"):
                try:
                    async with session.ws_connect(f"http://127.0.0.1:{port}/ws", headers={"Origin": origin}) as ws:
                        statuses.append(101)
                        await ws.close()
                except aiohttp.WSServerHandshakeError as exc:
                    statuses.append(exc.status)
            for name in ("evil.example", "127.0.0.1"):
                async with session.get(f"http://127.0.0.1:{port}/", headers={"Host": f"{name}:{port}"}) as response:
                    statuses.append(response.status)
        return statuses

    assert asyncio.run(run()) == [403, 101, 403, 200]

