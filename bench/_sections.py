"""How the bench scripts write their results into Markdown: each owns one section between a begin
and an end marker, replaced whole on every run (appended when the file has none yet)."""

from __future__ import annotations

import pathlib


def replace_section(path: pathlib.Path, begin: str, end: str, section: str, new_file: str = "",
                    before: str = "") -> None:
    """Puts `section` (which starts with `begin` and ends with `end`) in place of the file's; a
    file without one gets it before the text `before` when that is given and found."""
    text = path.read_text() if path.exists() else new_file
    if begin in text and end in text:
        text = text[: text.index(begin)] + section + text[text.index(end) + len(end):]
    elif before and before in text:
        at = text.index(before)
        text = text[:at] + section + "\n\n" + text[at:]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    path.write_text(text)
