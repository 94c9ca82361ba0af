"""The seeded shuffle is part of the record format: re-implement it from its
documentation (docs/records.md, docs/rules/zweier.md) and compare."""

from __future__ import annotations

import hashlib

from engine import zweier
from engine.cards import Card
from engine.shuffle import new_seed, seed_commitment

RANKS = "ATKQJ"
SUITS = "HDCS"


def documented_shuffle(seed: bytes) -> list[str]:
    deck = [r + s for s in SUITS for r in RANKS]
    for i in range(len(deck) - 1, 0, -1):
        h = hashlib.sha256(seed + i.to_bytes(4, "big")).digest()
        j = int.from_bytes(h[:8], "big") % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def test_zweier_deal_follows_the_documented_shuffle() -> None:
    for seed in (b"\x00", b"\x00\xff", bytes(range(16))):
        for dealer in (0, 1):
            d = documented_shuffle(seed)
            state = zweier.start_deal(zweier.ZweierOptions(), dealer, seed=seed)
            hands = [[Card.of(c).id for c in h] for h in state.dealt[:2]]
            talon = [Card.of(c).id for c in state.dealt[2]]
            forehand = 1 - dealer
            assert hands[forehand] == d[0:3] + d[7:9]
            assert hands[dealer] == d[3:6] + d[9:11]
            assert talon == d[11:20] + [d[6]]


def test_seeds_are_fresh_and_committed_by_hash() -> None:
    a, b = new_seed(), new_seed()
    assert a != b and len(a) == 32
    assert seed_commitment(a) == hashlib.sha256(bytes.fromhex(a)).hexdigest()
