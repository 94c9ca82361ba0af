"""The documented, version-proof shuffle that makes a deal reproducible from its seed.

RULES.md §6: a deal's hands must be exactly what this shuffle makes of its seed, so the
algorithm is part of the record format and must never change.  It is a Fisher–Yates
shuffle whose random numbers come from SHA-256, not from `random` (whose algorithms
are allowed to change between Python versions):

    for i = n-1 down to 1:
        h = SHA-256(seed_bytes || i as 4 bytes big-endian)
        j = (first 8 bytes of h as an unsigned big-endian integer) mod (i + 1)
        swap deck[i] and deck[j]

starting from the canonical deck order of `engine.cards` (suits H D C S, ranks A T K Q
J 9).  How each game then splits the shuffled deck into hands and talon is in
docs/records.md and in each game's ``deal_from_deck``.
"""

from __future__ import annotations

import hashlib
import secrets


class SeedError(ValueError):
    """A seed that is not a non-empty even-length hex string."""


def seed_bytes(seed_hex: str) -> bytes:
    if not isinstance(seed_hex, str) or not seed_hex:
        raise SeedError(f"seed must be a non-empty hex string, got {seed_hex!r}")
    try:
        return bytes.fromhex(seed_hex)
    except ValueError:
        raise SeedError(f"seed is not hex: {seed_hex!r}") from None


def shuffled(deck: tuple[int, ...], seed: bytes) -> list[int]:
    cards = list(deck)
    sha = hashlib.sha256
    for i in range(len(cards) - 1, 0, -1):
        h = sha(seed + i.to_bytes(4, "big")).digest()
        j = int.from_bytes(h[:8], "big") % (i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return cards


def new_seed() -> str:
    """A fresh deal seed from the OS's cryptographic randomness (hex, 128 bits)."""
    return secrets.token_hex(16)


def seed_commitment(seed_hex: str) -> str:
    """SHA-256 of the seed bytes, published before the deal so players can check it."""
    return hashlib.sha256(seed_bytes(seed_hex)).hexdigest()
