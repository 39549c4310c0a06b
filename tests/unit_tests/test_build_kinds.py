"""`scripts/build_kinds.py` turns WordNet's noun files into the lexicon `checks.kinds` reads."""

from __future__ import annotations

import gzip
import io
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import build_kinds  # noqa: E402
import wordnet_files  # noqa: E402

NOUNS = (
    "00000001 03 n 01 organ 0 000 | a part of the body\n"
    "00000002 03 n 01 liver 0 001 @ 00000001 n 0000 | an organ\n"
    "00000003 03 n 02 kidney 0 nephros 0 001 @ 00000001 n 0000 | an organ\n"
)
INDEX = (
    "  1 a header line\n"
    "kidney n 1 1 @ 1 0 00000003  \n"
    "liver n 1 1 @ 1 0 00000002  \n"
    "organ n 1 0 1 0 00000001  \n"
    "blood_vessel n 1 0 1 0 00000001  \n"
)


def _sdist(path: Path) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for name, text in (("data.noun1", NOUNS), ("data.noun2", ""), ("index.noun", INDEX)):
            data = text.encode()
            info = tarfile.TarInfo(wordnet_files.DICT + name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def test_each_word_keeps_its_first_sense_and_what_it_is_a_kind_of(tmp_path, monkeypatch):
    out = tmp_path / "kinds.tsv.gz"
    monkeypatch.setattr(build_kinds, "OUT", out)
    monkeypatch.setattr(build_kinds, "ROOT", tmp_path)
    monkeypatch.setattr(sys, "argv", ["build_kinds.py", str(_sdist(tmp_path / "p.tar.gz"))])
    build_kinds.main()
    lines = [line.split("\t") for line in gzip.decompress(out.read_bytes()).decode().splitlines()]
    senses = {fields[0]: (fields[1], fields[2]) for kind, *fields in lines if kind == "k"}
    words = {fields[0]: fields[1] for kind, *fields in lines if kind == "w"}
    assert set(words) == {"kidney", "liver", "organ"}  # one-word nouns only
    organ = words["organ"]
    assert senses[organ] == ("organ", "")
    assert senses[words["kidney"]] == ("kidney", organ)
    assert senses[words["liver"]] == ("liver", organ)
    first = out.read_bytes()
    build_kinds.main()
    assert out.read_bytes() == first  # the same bytes each build


def test_the_shipped_lexicon_reads_back() -> None:
    from langchain_reliable.checks.kinds import _kinds

    kinds = _kinds()
    assert kinds.of("kidneys") == kinds.of("kidney") is not None
    assert kinds.of("xyzzyplugh") is None
    assert kinds.names[kinds.of("liver")] == "liver"
