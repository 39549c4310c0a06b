"""`scripts/build_lexicons.py` turns WordNet's files into the lexicons the rules read."""

from __future__ import annotations

import gzip
import io
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import build_lexicons  # noqa: E402

NOUNS = (
    "00000001 03 n 01 organ 0 000 | a part of the body\n"
    "00000002 03 n 01 liver 0 001 @ 00000001 n 0000 | an organ\n"
    "00000003 03 n 02 kidney 0 nephros 0 001 @ 00000001 n 0000 | an organ\n"
    "00000004 15 n 01 Turkey 0 000 | a country\n"
)
ADJECTIVES = (  # a name's adjective, and an adjective of a common noun (not read)
    "00000020 02 a 01 Turkish 0 001 \\ 00000004 n 0101 | of Turkey\n"
    "00000021 02 a 01 organic 0 001 \\ 00000001 n 0101 | of an organ\n"
)
INDEX = (
    "  1 a header line\n"
    "kidney n 1 1 @ 1 0 00000003  \n"
    "liver n 1 1 @ 1 0 00000002  \n"
    "organ n 1 0 1 0 00000001  \n"
    "blood_vessel n 1 0 1 0 00000001  \n"
)
VERBS = (
    "00000010 30 v 02 raise 0 elevate 0 001 ! 00000011 v 0101 01 + 08 00 | move upwards\n"
    "00000011 30 v 01 lower 0 001 ! 00000010 v 0101 01 + 08 00 | move downwards\n"
)
VERB_TABLE = (  # the XTAG table: a notice, then base form and forms per line
    ";;;   Copyright (C) 1993 University of Pennsylvania\n"
    "meet,,,meets,,meeting,,,,,met,met,,,,,,,,,,,,\n"
    "walk,,,walks,,walking,,,,,walked,walked,,,,,,,,,,,,\n"
    "be,am,are,is,are,being,was,were,was,were,were,been,,am not,aren't,isn't\n"
)
FILES = {
    "data.noun1": NOUNS, "data.noun2": "", "index.noun": INDEX, "data.verb": VERBS,
    "data.adj": ADJECTIVES, "data.adv": "", "LICENSE.txt": "WordNet 3.0 licence",
}  # fmt: skip


def _build(tmp_path: Path, monkeypatch) -> Path:
    sdist = tmp_path / "p.tar.gz"
    with tarfile.open(sdist, "w:gz") as tar:
        for name, text in FILES.items():
            info = tarfile.TarInfo(build_lexicons.DICT + name)
            info.size = len(text.encode())
            tar.addfile(info, io.BytesIO(text.encode()))
        info = tarfile.TarInfo(build_lexicons.ENGLISH + build_lexicons.VERBS)
        info.size = len(VERB_TABLE.encode())
        tar.addfile(info, io.BytesIO(VERB_TABLE.encode()))
    out = tmp_path / "data"
    out.mkdir(exist_ok=True)
    monkeypatch.setattr(build_lexicons, "DATA", out)
    monkeypatch.setattr(sys, "argv", ["build_lexicons.py", str(sdist)])
    build_lexicons.main()
    return out


def test_each_noun_keeps_its_first_sense_and_what_it_is_a_kind_of(tmp_path, monkeypatch):
    out = _build(tmp_path, monkeypatch)
    raw = (out / "kinds.tsv.gz").read_bytes()
    lines = [line.split("\t") for line in gzip.decompress(raw).decode().splitlines()]
    senses = {fields[0]: (fields[1], fields[2]) for kind, *fields in lines if kind == "k"}
    words = {fields[0]: fields[1] for kind, *fields in lines if kind == "w"}
    assert set(words) == {"kidney", "liver", "organ"}  # one-word nouns only
    organ = words["organ"]
    assert senses[organ] == ("organ", "")
    assert senses[words["kidney"]] == ("kidney", organ)
    assert senses[words["liver"]] == ("liver", organ)
    assert _build(tmp_path, monkeypatch).joinpath("kinds.tsv.gz").read_bytes() == raw  # stable


def test_every_member_of_a_synset_stands_for_its_opposite(tmp_path, monkeypatch):
    out = _build(tmp_path, monkeypatch)
    pairs = (out / "opposites.tsv").read_text().splitlines()
    assert pairs == ["elevate\tlower", "lower\traise"]
    assert (out / "WORDNET-LICENSE.txt").read_text() == "WordNet 3.0 licence"


def test_an_adjective_of_a_name_is_paired_with_the_name(tmp_path, monkeypatch):
    out = _build(tmp_path, monkeypatch)
    assert (out / "pertains.tsv").read_text() == "turkish\tturkey\n"


def test_the_shipped_kinds_read_back() -> None:
    from langchain_reliable.checks.names import _kinds

    kinds = _kinds()
    assert kinds.of("kidneys") == kinds.of("kidney") is not None
    assert kinds.of("xyzzyplugh") is None
    assert kinds.name(kinds.of("liver")) == "liver"
    assert kinds.name(kinds.up(kinds.of("liver"))[0]) == "internal organ"


def test_only_irregular_verb_forms_are_listed_with_their_base(tmp_path, monkeypatch):
    out = _build(tmp_path, monkeypatch)
    pairs = (out / "verb_forms.tsv").read_text().splitlines()
    # "meets", "walked" stem to their base; "aren't" is not one word
    be = ["am", "are", "been", "being", "is"]
    assert pairs == [f"{f}\tbe" for f in be] + ["met\tmeet", "was\tbe", "were\tbe"]
    assert "University of Pennsylvania" in (out / "XTAG-LICENSE.txt").read_text()
