"""constraints.txt: the exact versions a clean clone and the Docker image install.

pyproject.toml names ranges; without the lock, a clone made tomorrow installs whatever
was released tonight, which nobody ran the suite with.  These tests keep the lock
whole (every dependency pinned, within its range) and keep the suite honest about it
(what runs the tests is what the lock says).
"""

from __future__ import annotations

import importlib.metadata
import re
import tomllib
from pathlib import Path

import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]


def _pins(*, every_python: bool = False) -> dict[str, Version]:
    """NAME -> pinned version; a line with a marker (a package only another Python
    needs) counts where its marker holds, or always with `every_python`."""
    pins: dict[str, Version] = {}
    for n, line in enumerate((ROOT / "constraints.txt").read_text().splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        m = re.fullmatch(r"([A-Za-z0-9._-]+)==([^\s;]+)\s*(?:;\s*(.+))?", line)
        assert m, f"constraints.txt:{n}: not NAME==VERSION[; marker]: {line!r}"
        name = canonicalize_name(m.group(1))
        assert name not in pins, f"constraints.txt:{n}: {name} pinned twice"
        if m.group(3) and not every_python and not Marker(m.group(3)).evaluate():
            continue
        pins[name] = Version(m.group(2))
    return pins


def _requirements() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    named = [*project["dependencies"], *project["optional-dependencies"]["dev"]]
    return [Requirement(r) for r in named]


def test_every_dependency_is_pinned_within_its_range() -> None:
    pins = _pins(every_python=True)
    for req in _requirements():
        name = canonicalize_name(req.name)
        assert name in pins, f"{req.name} is not in constraints.txt: run `make lock`"
        assert req.specifier.contains(pins[name], prereleases=True), (
            f"constraints.txt pins {req.name} {pins[name]}, outside pyproject's "
            f"{req.specifier}: run `make lock`"
        )


def test_the_suite_runs_with_the_pinned_versions() -> None:
    """`make test` installs with the lock, so what is tested is what a clone gets."""
    pins = _pins()
    wrong = {}
    for name, pinned in pins.items():
        try:
            installed = Version(importlib.metadata.version(name))
        except importlib.metadata.PackageNotFoundError:
            continue  # not needed on this Python (a marker left it out)
        if installed != pinned:
            wrong[name] = f"{installed} installed, {pinned} pinned"
    assert not wrong, f"{wrong}: run `make test` (it installs the lock) or `make lock`"


def test_the_lock_is_a_whole_set() -> None:
    """Every package an installed pin needs is pinned too (else `make lock` was cut)."""
    pins = _pins()
    missing = set()
    for name in pins:
        try:
            needs = importlib.metadata.requires(name) or []
        except importlib.metadata.PackageNotFoundError:  # pragma: no cover - other Python
            continue
        for spec in needs:
            req = Requirement(spec)
            if req.marker is not None and not req.marker.evaluate({"extra": ""}):
                continue
            if canonicalize_name(req.name) not in pins:
                missing.add(f"{req.name} (needed by {name})")
    if missing:
        pytest.fail(f"not in constraints.txt: {sorted(missing)}: run `make lock`")
