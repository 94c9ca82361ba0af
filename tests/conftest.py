"""Test-wide settings: hypothesis profiles (modest in CI, larger locally)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Shared rigs and helpers assert too: give their failures pytest's detailed messages.
pytest.register_assert_rewrite(
    "tests.bot.fakechat",
    "tests.engine.ai_helpers",
    "tests.engine.props",
    "tests.e2e.discord_harness",
    "tests.e2e.telegram_harness",
)

# CI draws the same examples on every run (a clean clone has no example database, and a
# rare example must not turn a run red at random); locally the draws differ each run.
settings.register_profile(
    "ci",
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "dev", max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
# Opt-in, never in `make test`: far more and longer sessions, for a hunt of hours
# (`HYPOTHESIS_PROFILE=deep`, with `--hypothesis-seed=N` for a draw of its own; see
# docs/bot.md, "Tests and load").
settings.register_profile(
    "deep",
    max_examples=3000,
    stateful_step_count=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


def _temp_in_memory(shm: Path = Path("/dev/shm"), least: int = 1 << 30) -> None:
    """Tests' files (`tmp_path`, `tempfile`) go to a memory file system where there is
    one with room (Linux's /dev/shm; a container's 64 MB is too small), unless TMPDIR
    names a place.  The store commits with ``synchronous=FULL``: every commit waits for
    the disk, 2 ms here and more while other processes write, and a test of a whole
    match makes thousands of them; in memory the wait is nothing and the SQLite file
    is as real (its WAL, its locks, a second connection), its durability aside, which
    no test can see (a kill is not a power cut)."""
    if "TMPDIR" in os.environ:
        return
    try:
        room = os.statvfs(shm)
    except OSError:
        return
    if room.f_bavail * room.f_frsize >= least and os.access(shm, os.W_OK | os.X_OK):
        tempfile.tempdir = str(shm)


_temp_in_memory()
