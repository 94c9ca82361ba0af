"""Fixtures shared by the engine's tests."""

from __future__ import annotations

import pytest

from engine.ai import strong


@pytest.fixture
def no_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    """A search that counts its playouts runs to its count.  The wall-clock stop is a
    chat's safety net; on a crowded machine it cut such a search short, and the count
    a test asserts was not reached (CI beside other work)."""
    monkeypatch.setattr(strong, "DEADLINE_SHARE", 1000.0)
