"""Fitting the terminal's lines to its width.

The core's texts are made for chat clients, which wrap on their own; a terminal cuts or
wraps mid-word.  So the terminal adapter breaks its lines at spaces itself, measured in
screen columns (a 🔔 takes two), and never inside a word: a card such as ``10♥`` or
``🌰Ober`` stays whole even where it does not fit.  Some spaces do not break either:
the one after a number that counts (``1)`` of a choice, ``2.`` of a trick) and the one
before a number or a separator (``Computer 2``, ``You +3``, ``· Anna``), so a line
never starts with a lone number or a ``·``.
"""

from __future__ import annotations

import re
import shutil
import unicodedata

#: A word after which the space does not break: the number of a choice or of a trick.
_NUMBERING = re.compile(r"\d+[.)]")
#: A word before which the space does not break: a number, a score, a separator.
_GLUED = re.compile(r"[+\-−]?\d+[:;,.)]?|[·→—–=]")
#: The start of a line whose continuation lines align after it: a numbered choice
#: ("  12) ") or a two-column line such as the help's ("  s         ").
_HANGING = re.compile(r" *(?:\d+[.)] +|\S+ {2,})(?=\S)")
#: How far a continuation line is indented when the line has no such start.
CONTINUATION = "  "


def terminal_width() -> int:
    """The terminal's width in columns, 0 when unknown (output to a pipe or a file).

    `shutil.get_terminal_size` honours $COLUMNS, then asks the terminal on stdout;
    it is asked every time, so a resized window is followed.
    """
    return shutil.get_terminal_size(fallback=(0, 0)).columns


def columns(text: str) -> int:
    """How many screen columns `text` takes: wide characters two, marks none."""
    n = 0
    for ch in text:
        if unicodedata.combining(ch) or unicodedata.category(ch) in ("Cf", "Mn", "Me"):
            continue
        n += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return n


def wrap(line: str, width: int) -> list[str]:
    """`line` broken at spaces into lines of at most `width` columns (0: as it is).

    Continuation lines are indented: under the text of a numbered choice or a
    two-column line, otherwise by `CONTINUATION` more than the line itself.  A word
    wider than the line is not broken (it overflows).
    """
    if width <= 0 or columns(line) <= width:
        return [line]
    body = line.lstrip(" ")
    lead = line[: len(line) - len(body)]
    hanging = _HANGING.match(line)
    indent = lead + CONTINUATION
    if hanging is not None and columns(hanging.group(0)) <= width // 2:
        indent = " " * columns(hanging.group(0))

    # Words, each with the spaces before it; glued words are one unit.
    units: list[tuple[str, str]] = []
    space = ""
    previous = ""
    for token in re.findall(r" +|[^ ]+", body):
        if token.startswith(" "):
            space = token
            continue
        if units and (_NUMBERING.fullmatch(previous) or _GLUED.fullmatch(token)):
            before, text = units[-1]
            units[-1] = (before, text + space + token)
        else:
            units.append((space, token))
        previous, space = token, ""

    if not units:  # nothing but spaces
        return [line]
    lines: list[str] = []
    current = lead + units[0][1]
    for before, text in units[1:]:
        if columns(current) + columns(before) + columns(text) <= width:
            current += before + text
        else:
            lines.append(current)
            current = indent + text
    lines.append(current)
    return lines


def fill(cells: list[str], width: int, *, lead: str = "  ", gap: str = "   ") -> list[str]:
    """Cells (the numbered choices of a row) side by side, as many as fit a line.

    A cell is never split across two lines of cells; one that is wider than the
    whole line gets a line of its own (and is wrapped there by `wrap`).
    """
    lines: list[str] = []
    current = ""
    for cell in cells:
        if not current:
            current = lead + cell
        elif width > 0 and columns(current + gap + cell) > width:
            lines.append(current)
            current = lead + cell
        else:
            current += gap + cell
    if current:
        lines.append(current)
    return lines
