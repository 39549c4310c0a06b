"""Build the minimal-edit suite: one-edit attacks on dev-file passages, each with its true control.

The edits are the stage-2 generator's own (`scripts/entailment_data.py`: `edits`, cut
from one passage window and read against it). Each attack is an edit the generator
labels not entailed (a number, frequency or unit changed, an antonym, a negation added
or removed, a scope widened, a condition dropped, "more than" for a count, names
traded, a detail added); its control is a faithful edit of the same sentence (the
opening moved, an aside dropped, a number rounded, a synonym), or the sentence itself
when the generator has none. Kept only where the label is reliable: a dropped
"when" clause is usually still entailed, a unit letter not after a number is no unit,
and names joined by "and" can trade places without changing the meaning.

Passages come from WiCE and BEGIN dev (`../shared/data`; FaithBench is left out, its
licence is non-commercial), from records that `scripts/train_verifier.py` never
samples for its scorer. The suite is held out from training: it lives under
`benchmarks/`, which no training script reads, its rows are not training pairs (no
`premise`/`hyp`/`label`), and each carries a `file` field, the mark by which
`scripts/accurate_fit.py` drops pairs cut from a dev file.

    python scripts/minimal_edit_suite.py [--data ../shared/data] [--per-kind 30]

Rebuilds `benchmarks/minimal_edits.jsonl` byte for byte (fixed seed). Licences: WiCE
text CC BY-SA / Common Crawl terms, annotations ODC-BY; BEGIN CC BY 4.0 (WoW, CMU-DoG)
and CDLA-Sharing 1.0 (TopicalChat); see `../shared/data/licenses/`.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

import entailment_data  # noqa: E402  (a tool of scripts/, not a package)
import train_verifier  # noqa: E402

OUT = ROOT / "benchmarks" / "minimal_edits.jsonl"
FILES = {"wice": "wice_dev.jsonl", "begin": "begin_dev.jsonl"}
SEED = 5
PER_KIND = 30
ATTACKS = (
    "number", "frequency", "unit", "antonym", "prefix_negation", "negation",
    "negation_removed", "scope", "condition", "at_least", "names_roles", "added_detail",
)  # fmt: skip
CONTROLS = ("reorder", "aside_dropped", "rounding", "synonym", "restated")
"""Faithful edits, best first: the sentence itself (`restated`) only when none applies."""
COORDINATED = re.compile(r"[A-Z][\w.'-]*(?: [A-Z][\w.'-]*)*,? (?:and|or|&) [A-Z]")
WEB = re.compile(r"https?:|www\.|[@#|/\\]")
LOOSE = {"town", "significant"}
"""Synonyms the generator's table gives that change the sense ('city' -> 'town')."""
ROUNDED = re.compile(r"(?:^|\s)(?:about|around|approximately|roughly) [\d,.]*\d(?= [A-Za-z])")


def plain(sentence: str) -> bool:
    """A whole sentence of prose: 6-45 words, ends with a stop, no web debris, no leading "and"."""
    return (
        6 <= len(sentence.split()) <= 45
        and sentence.rstrip().endswith(".")
        and not WEB.search(sentence)
        and not re.match(r"(?i)(and|but|or|so)\b", sentence)
    )


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def reliable(kind: str, sentence: str, attack: str) -> bool:
    """Whether the generator's 'not entailed' label holds for this edit of `sentence`."""
    if kind == "condition":
        return re.search(r"(?i)\b(if|unless|provided that)\b", sentence) is not None
    if kind == "unit":
        new, old = _words(attack), _words(sentence)
        i = next((k for k, (a, b) in enumerate(zip(new, old, strict=False)) if a != b), None)
        return i is not None and (len(old[i]) > 1 or (i > 0 and old[i - 1].isdigit()))
    if kind == "names_roles" and sorted(_words(attack)) == sorted(_words(sentence)):
        return COORDINATED.search(sentence) is None
    return True


def faithful(kind: str, sentence: str, control: str) -> bool:
    """Whether the generator's faithful edit is one: a rounded number before a word, an
    aside dropped without cutting a number, a synonym that keeps the sense."""
    if kind == "synonym":
        return not LOOSE & (set(_words(control)) - set(_words(sentence)))
    if kind == "rounding":
        return ROUNDED.search(control) is not None
    if kind == "aside_dropped":
        kept = set(_words(control))
        return not any(w.isdigit() for w in _words(sentence) if w not in kept)
    return True


def sentence_pairs(window: str, sentence: str, passage: str, rng: random.Random) -> list[dict]:
    """The attacks on `sentence` the generator makes, each with the best control."""
    made = {}
    for edit in entailment_data.edits(window, [sentence], passage, rng):
        made.setdefault(edit["source"].removeprefix("edit_"), edit["hyp"])
    control, how = next(
        ((made[k], k) for k in CONTROLS if k in made and faithful(k, sentence, made[k])),
        (sentence, "restated"),
    )
    seen = " ".join(_words(window))
    out = []
    for kind in ATTACKS:
        attack = made.get(kind)
        if (
            attack
            and attack != control
            and " ".join(_words(attack)) not in seen
            and reliable(kind, sentence, attack)
        ):
            out.append({"family": kind, "attack": attack, "control": control, "how": how})
    return out


def candidates(data: Path, rng: random.Random) -> dict[str, list[dict]]:
    """Every reliable pair, by edit kind, from the records the scorer never sampled."""
    trained = {e["group"] for e in train_verifier.synthetic_examples(data)}
    by_kind: dict[str, list[dict]] = {}
    for name, file in FILES.items():
        for i, record in enumerate(entailment_data.read_jsonl(data / file)):
            if f"{name}:{i}" in trained:
                continue
            for passage in record["context"]:
                for window, sents, _ in entailment_data.passage_units(passage):
                    for s in sents:
                        if not plain(s):
                            continue
                        for pair in sentence_pairs(window, s, passage, rng):
                            pair.update(window=window, file=file, record=f"{name}:{i}")
                            by_kind.setdefault(pair["family"], []).append(pair)
    return by_kind


def suite(data: Path, per_kind: int = PER_KIND) -> list[dict]:
    """At most `per_kind` pairs a kind, one a record and kind, the files taken in turn; no
    attack twice over the same passage."""
    rng = random.Random(SEED)
    rows = []
    made: set[tuple[str, str]] = set()  # (attack, window): records may share a passage
    for kind, pairs in sorted(candidates(data, rng).items()):
        rng.shuffle(pairs)
        queues = [[p for p in pairs if p["file"] == f] for f in FILES.values()]
        used: set[str] = set()
        taken: list[dict] = []
        while len(taken) < per_kind and any(queues):
            for queue in queues:
                while queue and (
                    queue[0]["record"] in used or (queue[0]["attack"], queue[0]["window"]) in made
                ):
                    queue.pop(0)
                if queue and len(taken) < per_kind:
                    pair = queue.pop(0)
                    used.add(pair["record"])
                    made.add((pair["attack"], pair["window"]))
                    taken.append(pair)
        rows += [
            {
                "family": kind,
                "passages": [p["window"]],
                "question": "",
                "attack": p["attack"],
                "control": p["control"],
                "note": f"edit {kind}; control {p['how']}",
                "file": p["file"],
                "record": p["record"],
            }
            for p in taken
        ]
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--per-kind", type=int, default=PER_KIND)
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    rows = suite(args.data, args.per_kind)
    with args.out.open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    kinds = sorted({r["family"] for r in rows})
    print(f"{args.out}: {len(rows)} pairs, {len(kinds)} kinds, {args.out.stat().st_size} bytes")
    for kind in kinds:
        print(f"  {kind:18s} {sum(r['family'] == kind for r in rows)}")


if __name__ == "__main__":
    main()
