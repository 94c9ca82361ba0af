"""The payload codec: what a button may carry, and that nothing else gets through."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.payload import (
    ARG_VERBS,
    SELF,
    TABLE_VERBS,
    Payload,
    PayloadError,
    decode,
    encode,
    self_verb,
)

TABLE = st.text("0123456789abcdefghijklmnopqrstuvwxyz", min_size=7, max_size=7)
VERSION = st.integers(0, 999_999_999)


@given(TABLE, VERSION, st.sampled_from(sorted(TABLE_VERBS)))
def test_table_verbs_round_trip(table: str, version: int, verb: str) -> None:
    p = Payload(table, version, verb)
    assert decode(encode(p)) == p


@given(TABLE, VERSION, st.sampled_from(sorted(ARG_VERBS | {"a"})), st.integers(0, 99_999_999))
def test_verbs_with_a_number_round_trip(table: str, version: int, verb: str, arg: int) -> None:
    p = Payload(table, version, verb, arg)
    assert decode(encode(p)) == p


def test_the_presser_s_own_verb_names_no_table() -> None:
    assert decode(self_verb("fg")) == Payload(SELF, 0, "fg")
    # a table's verbs do not work without a table, nor the own verbs on a table
    for forged in ("me:0:j", "me:0:rs0", "me:0:fg1", "abc1234:0:fg"):
        with pytest.raises(PayloadError):
            decode(forged)
    with pytest.raises(PayloadError):
        decode("abc1234:3:rs")  # the resign confirmation names its seat
    assert decode("abc1234:3:rs1") == Payload("abc1234", 3, "rs", 1)
