"""Whether the accurate model can be had here without the network, as test marks.

`needs_parts`: the base weights are on this machine (a folder named in
`$LANGCHAIN_RELIABLE_MPNET_PARTS`, or the `mpnet-parts` extra), so a test can build the
model on a fresh cache. `needs_model`: that, or the model is already built in the cache.
"""

from __future__ import annotations

import os
from importlib import metadata

import pytest

from langchain_reliable.evidence.accurate import built_model_dir
from langchain_reliable.evidence.base_parts import BASE_PARTS, PARTS_ENV, download_command


def _installed(dist: str) -> bool:
    try:
        metadata.distribution(dist)
    except metadata.PackageNotFoundError:
        return False
    return True


HAS_PARTS = bool(os.environ.get(PARTS_ENV)) or all(_installed(p.dist) for p in BASE_PARTS)
HAS_MODEL = HAS_PARTS or (built_model_dir() / "build.json").is_file()
_HOW = f"${PARTS_ENV} naming a folder of the base wheels (`{download_command()}`)"
needs_parts = pytest.mark.skipif(not HAS_PARTS, reason=f"needs {_HOW}")
needs_model = pytest.mark.skipif(not HAS_MODEL, reason=f"needs the accurate model built, or {_HOW}")
