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
import shlex
import socket
import sys
from pathlib import Path

__all__ = ["TEMPLATES", "is_loopback", "listen_problem", "open_command", "serve"]

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
    the server would, before it says it is serving."""
    try:
        addresses = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        return f"cannot resolve {host!r}: {exc.strerror}"
    for family, kind, protocol, _, address in addresses:
        with socket.socket(family, kind, protocol) as probe:
            # As the server binds: a port left in TIME_WAIT by an earlier server is free.
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(address)
            except OSError as exc:
                return exc.strerror or str(exc)
    return None


def open_command(suite: Path | None, format: str | None = None) -> str:
    """The shell command each connection runs: this Python's ``rouge-tui open``."""
    argv = [sys.executable, "-m", "rouge_tui", "open"]
    if suite is not None:
        argv.append(str(suite.resolve()))
    if format is not None:
        argv += ["--format", format]
    return shlex.join(argv)


def serve(suite: Path | None, host: str, port: int, format: str | None = None) -> None:
    """Serve the app until interrupted; a ValueError, said before anything else, when it
    cannot listen on ``host:port``."""
    from textual_serve.server import Server

    if why := listen_problem(host, port):
        raise ValueError(f"cannot listen on {host}:{port}: {why}")
    if not is_loopback(host):
        sys.stderr.write(
            f"rouge-tui: WARNING: serving on {host}:{port} with NO AUTHENTICATION: anyone who can "
            "reach that address can read this suite's outputs and write marks and notes.\n"
            "rouge-tui: to reach it from another machine, prefer the default (127.0.0.1) over "
            "`ssh -L`.\n"
        )
        sys.stderr.flush()
    from rouge_tui.safetext import one_line

    title = f"rouge-tui · {one_line(suite.name, 60)}" if suite is not None else "rouge-tui"
    server = Server(open_command(suite, format), host=host, port=port, title=title, templates_path=TEMPLATES)
    try:
        server.serve()
    except OSError as exc:  # the port taken between the look above and the server's bind
        if exc.errno not in (errno.EADDRINUSE, errno.EADDRNOTAVAIL, errno.EACCES):
            raise
        raise ValueError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
