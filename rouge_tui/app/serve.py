"""`rouge-tui serve`: the same app in a browser, through textual-serve.

Each browser connection runs ``rouge-tui open`` in a process of its own, its screen and keys
carried over a websocket. The page is ours (`templates/app_index.html`): textual-serve's
links a web font from outside, and nothing here may load from the network. Bound to the
loopback address unless ``--host`` says otherwise; there is no authentication, so anything
else is said loudly first.
"""

from __future__ import annotations

import errno
import ipaddress
import os
import shlex
import socket
import sys
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import urlsplit

__all__ = ["TEMPLATES", "is_loopback", "listen_problem", "open_command", "request_problem", "serve", "server_class"]

TEMPLATES = Path(__file__).resolve().parent / "templates"


def is_loopback(host: str) -> bool:
    """Whether ``host`` is reachable from this machine only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def listen_problem(host: str, port: int) -> str | None:
    """Why the server could not listen on ``host:port`` (the port taken, an address not this
    machine's, a host name that resolves to nothing), or None: found by binding each address
    the server would, as asyncio's server binds them, before anything says it is serving."""
    try:
        addresses = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        return f"cannot resolve {host!r}: {exc.strerror}"
    unavailable = None
    bound = False
    for family, kind, protocol, _, address in addresses:
        try:
            probe = socket.socket(family, kind, protocol)
        except OSError:  # a family this machine lacks (IPv6 turned off): the server skips it too
            continue
        with probe:
            if os.name == "posix":  # as the server: a port left in TIME_WAIT is free
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:  # as the server: "::" leaves IPv4's port to IPv4
                probe.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            try:
                probe.bind(address)
                bound = True
            except OSError as exc:
                if exc.errno != errno.EADDRNOTAVAIL:
                    return os.strerror(exc.errno) if exc.errno else str(exc)
                unavailable = os.strerror(exc.errno)  # ("localhost" as ::1 without IPv6)
    return unavailable if not bound else None


def open_command(suite: Path | None, format: str | None = None) -> str:
    """The shell command each connection runs: this Python's ``rouge-tui open``."""
    argv = [sys.executable, "-m", "rouge_tui", "open"]
    if suite is not None:
        argv.append(str(suite.resolve()))
    if format is not None:
        argv += ["--format", format]
    return shlex.join(argv)


def request_problem(headers: Mapping[str, str], host: str, port: int) -> str | None:
    """Why a request to the server listening on ``host``:``port`` is refused, or None.

    A web page open in the same browser can open a websocket to a loopback port (websockets
    are not held to the same-origin rule), and through a name of its own that resolves to
    127.0.0.1 (DNS rebinding) can fetch from it too: another site would read the app's screen
    (the suite's outputs) and send it keys (marks, an export). So the Host header must name
    this server (listening on a loopback address: a loopback name), and an Origin, which a
    browser sends with every websocket, must be the page's own: the Host's."""

    def place(url: str) -> tuple[str, int] | None:
        try:
            parts = urlsplit(url)
            return (parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80))
        except ValueError:
            return None

    asked = headers.get("Host", "")
    named = place(f"http://{asked}")
    if named is None or not named[0]:
        return f"a Host header that names no host: {asked!r}"
    loopback = is_loopback(host)
    if loopback and not is_loopback(named[0]):  # (any port: `ssh -L` may forward another)
        return f"Host {asked!r} is not this server's (it listens on a loopback address)"
    origin = headers.get("Origin")
    if origin is None:  # not a browser's request: a program here can do as much anyway
        return None
    # The page's own origin: its websocket goes where the page came from (the template's
    # script takes the page's host), through `ssh -L` to any local port too.
    came = place(origin) if origin.lower().startswith(("http://", "https://")) else None
    return None if came is not None and came == named else f"Origin {origin!r} is not a page of this server's"


def server_class() -> type:
    """textual-serve's Server, but for two things. Its banner printed the command as Rich
    markup, so a suite path with ``[/b]`` in it ended the server at its start and ``[red]``
    went from the banner, which then named another folder than the one served: said as plain
    text. And it served any page's websocket (`request_problem`): refused."""
    from aiohttp import web
    from textual_serve.server import Server

    from rouge_tui.safetext import one_line

    class GuardedServer(Server):
        async def on_startup(self, app: object) -> None:
            for line in (f"rouge-tui serve: open {one_line(self.public_url)} in a browser",
                         f"each page runs: {one_line(self.command)}", "Press Ctrl+C to quit"):
                self.console.print(line, markup=False, highlight=False, soft_wrap=True)

        def _check(self, request: web.Request) -> None:
            if why := request_problem(request.headers, self.host, self.port):
                raise web.HTTPForbidden(text=f"rouge-tui serve: refused: {why}\n")

        async def handle_index(self, request: web.Request) -> object:
            self._check(request)
            return await super().handle_index(request)

        async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
            self._check(request)
            return await super().handle_websocket(request)

        async def handle_download(self, request: web.Request) -> web.StreamResponse:
            self._check(request)
            return await super().handle_download(request)

    return GuardedServer


def serve(suite: Path | None, host: str, port: int, format: str | None = None) -> None:
    """Serve the app until interrupted; a ValueError, said before anything else, when it
    cannot listen on ``host:port``."""

    host = host.removeprefix("[").removesuffix("]") if host.startswith("[") else host  # as a URL writes it
    # An IPv6 address in brackets, as a URL needs it: unbracketed, the page's own script threw
    # on its websocket URL and the browser showed a blank page.
    where = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    if why := listen_problem(host, port):
        raise ValueError(f"cannot listen on {where}: {why}")
    if not is_loopback(host):
        sys.stderr.write(
            f"rouge-tui: WARNING: serving on {where} with NO AUTHENTICATION: anyone who can "
            "reach that address can read this suite's outputs and write marks and notes.\n"
            "rouge-tui: to reach it from another machine, prefer the default (127.0.0.1) over "
            "`ssh -L`.\n"
        )
        sys.stderr.flush()
    from rouge_tui.safetext import one_line

    title = f"rouge-tui · {one_line(suite.name, 60)}" if suite is not None else "rouge-tui"
    # Every address: the banner names this machine, which another can open (not 0.0.0.0).
    shown = where if host not in ("0.0.0.0", "::") else f"{socket.gethostname()}:{port}"
    server = server_class()(open_command(suite, format), host=host, port=port, title=title, public_url=f"http://{shown}",
                              templates_path=TEMPLATES)
    try:
        server.serve()
    except OSError as exc:  # the port taken between the look above and the server's bind
        if exc.errno not in (errno.EADDRINUSE, errno.EADDRNOTAVAIL, errno.EACCES):
            raise
        raise ValueError(f"cannot listen on {where}: {os.strerror(exc.errno)}") from None
