"""Content hashes of lists of strings, for cache keys and file digests."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

__all__ = ["length_prefixed"]


def length_prefixed(parts: Iterable[str], tag: bytes = b"") -> str:
    """sha256 (hex) of ``tag``, then of each part as its UTF-8 length (8 bytes, big-endian)
    and its bytes: parts cannot run into one another, so two different lists of parts never
    hash the same bytes."""
    digest = hashlib.sha256(tag)
    for part in parts:
        data = part.encode("utf-8", "surrogatepass")
        digest.update(len(data).to_bytes(8, "big"))
        digest.update(data)
    return digest.hexdigest()
