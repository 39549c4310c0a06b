"""Paraphrased answers for the speed benchmark, built from the dev files (`bench_verifier.py`).

A claim here is a sentence someone wrote about a passage (a WiCE claim, a sentence of a
FaithBench summary, a BEGIN response), never a sentence copied from it, so the verifier
meets what it meets in use: the entailment model reads every claim that is not an exact
copy. An answer holds 5 claims from 3 records (one of each file) over 3 passages of about
500 tokens: each passage is one record's own context (for WiCE, the part of the cited page
its claim shares most words with), padded with the rest of that context and then with other
records' contexts of the same file, the record's text at a seeded place among the padding.

Recurring passages (`recurring_sets`): passage sets whose records share their passage with
many others (a FaithBench article summarised by 10 models, a BEGIN snippet answered many
times), so that each run of a batch draws claims never read in that run.

Everything is deterministic for a seed. Example:

    from paraphrased import load_records, one_answers
    answers = one_answers(load_records(Path("../shared/data")), 20, seed=0)
    answers[0]["answer"], answers[0]["passages"]
"""

from __future__ import annotations

import json
import random
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langchain_reliable.claims import SentenceClaimExtractor
from langchain_reliable.evidence.keys import exact_copy
from langchain_reliable.text import content_stems, split_passage_sentences

PASSAGE_CHARS = 2350  # about 500 tokens of the default model (4.7 characters a token here)
LONGEST_OWN = 2900  # a record whose own text is longer is not used (no room to pad)
CLAIMS = 5
FILES = {"wice": "wice_dev.jsonl", "faithbench": "faithbench.jsonl", "begin": "begin_dev.jsonl"}
_META = re.compile(
    r"summar|passage|\bnote\b|information provided|the text|the article|here is|here's|:$", re.I
)
_BULLET = re.compile(r"^(?:[-*•]|\d+[.)])\s+")


@dataclass(frozen=True)
class Record:
    """One dev record: its claims, the text they rest on, and the rest of its context."""

    dataset: str
    context_id: str
    claims: tuple[str, ...]
    own: str
    rest: tuple[str, ...]


def sentences(text: str) -> list[str]:
    """The sentences of `text`, as the verifier's passage splitter cuts them."""
    return [text[a:b] for a, b in split_passage_sentences(text)]


_EXTRACTOR = SentenceClaimExtractor()


def claim_sentences(answer: str) -> list[str]:
    """The checkable sentences of a written answer: no preamble, note, question or fragment.

    Only sentences the default claim extractor reads as one claim, so an answer of 5 of
    them is 5 claims.
    """
    out = []
    for line in answer.splitlines():
        for s in sentences(_BULLET.sub("", line.strip().strip('"').strip())):
            s = s.strip().strip('"').strip()
            if _META.search(s) or s.endswith("?") or s.startswith("(") or "*" in s:
                continue
            s = s if s[-1] in ".!" else s + "."
            if not 5 <= len(s.split()) <= 45 or not re.search(r"[A-Za-z]{3}", s):
                continue
            if len(_EXTRACTOR.extract(s).claims) == 1:
                out.append(s)
    return out


def _own_wice(claim: str, parts: list[str]) -> tuple[str, tuple[str, ...]]:
    """The part of a WiCE page the claim shares most content with, and the other parts."""
    words = set(content_stems(claim))
    best = max(range(len(parts)), key=lambda i: (len(words & set(content_stems(parts[i]))), -i))
    own = parts[best]
    if len(own) > LONGEST_OWN:  # the sentences around the claim's best sentence
        cut = sentences(own)
        top = max(range(len(cut)), key=lambda i: (len(words & set(content_stems(cut[i]))), -i))
        lo = hi = top
        while hi - lo + 1 < len(cut):
            grow = cut[hi + 1] if hi + 1 < len(cut) else cut[lo - 1]
            if len(" ".join(cut[lo : hi + 1])) + len(grow) + 1 > PASSAGE_CHARS:
                break
            hi, lo = (hi + 1, lo) if hi + 1 < len(cut) else (hi, lo - 1)
        own = " ".join(cut[lo : hi + 1])
    order = sorted((i for i in range(len(parts)) if i != best), key=lambda i: abs(i - best))
    return own, tuple(s for i in order for s in sentences(parts[i]))


def load_records(data_dir: Path) -> dict[str, list[Record]]:
    """The usable records of each dev file, in file order."""
    out: dict[str, list[Record]] = {}
    for name, file in FILES.items():
        records = []
        with open(data_dir / file, encoding="utf-8") as fh:
            for line in fh:
                row = json.loads(line)
                parts = [p.strip() for p in row["context"] if p.strip()]
                claims = claim_sentences(row["answer"])
                if not claims or not parts:
                    continue
                if name == "wice":
                    own, rest = _own_wice(claims[0], parts)
                else:
                    own, rest = " ".join(parts), ()
                if len(own) <= LONGEST_OWN:
                    key = row["id"] if name == "wice" else own
                    records.append(Record(name, key, tuple(claims), own, rest))
        out[name] = records
    return out


def padded(record: Record, filler: Sequence[Record], rng: random.Random) -> str:
    """`record`'s own text padded to about `PASSAGE_CHARS`: its own context, then others'."""
    pad: list[str] = []
    size = len(record.own)
    others = (s for r in rng.sample(list(filler), min(len(filler), 40)) for s in sentences(r.own))
    for s in (*record.rest, *others):
        if size >= PASSAGE_CHARS - 100:
            break
        if s not in record.own and size + len(s) + 1 <= PASSAGE_CHARS + 100:
            pad.append(s)
            size += len(s) + 1
    at = rng.randint(0, len(pad))
    return " ".join([*pad[:at], record.own, *pad[at:]])


def one_answers(records: dict[str, list[Record]], n: int, seed: int) -> list[dict[str, Any]]:
    """`n` answers of 5 claims over 3 fresh passages (one WiCE, FaithBench and BEGIN record)."""
    rng = random.Random(seed)
    decks = {name: rng.sample(rs, len(rs)) for name, rs in records.items()}
    out = []
    for i in range(n):
        wice, fb, begin = (decks[name][i % len(decks[name])] for name in FILES)
        b = list(begin.claims[:2])
        f = list(fb.claims[: CLAIMS - 1 - len(b)])
        j = i
        while len(f) + len(b) < CLAIMS - 1:  # a short summary: more of another article's
            j += 1
            fb = decks["faithbench"][j % len(decks["faithbench"])]
            f = list(fb.claims[: CLAIMS - 1 - len(b)])
        blocks = [[wice.claims[0]], f, b]
        rng.shuffle(blocks)
        passages = [padded(r, records[r.dataset], rng) for r in (wice, fb, begin)]
        rng.shuffle(passages)
        claims = [c for block in blocks for c in block]
        out.append({"answer": " ".join(claims), "passages": passages, "claims": claims})
    return out


def recurring_sets(
    records: dict[str, list[Record]], n: int, seed: int
) -> list[tuple[list[str], list[str]]]:
    """`n` sets of 3 passages (one WiCE, FaithBench and BEGIN context) and their claims.

    The FaithBench and BEGIN contexts are those with the most claims written about them
    (every record sharing the context adds its claims), so a batch run can draw many
    claims it has not read over the same passages.
    """
    rng = random.Random(seed)
    groups: dict[str, dict[str, list[Record]]] = {}
    for name in ("faithbench", "begin"):
        by: dict[str, list[Record]] = defaultdict(list)
        for r in records[name]:
            by[r.context_id].append(r)
        groups[name] = by
    ranked = {
        name: sorted(
            by.values(), key=lambda rs: (-len({c for r in rs for c in r.claims}), rs[0].own)
        )
        for name, by in groups.items()
    }
    wice = rng.sample(records["wice"], n)
    out = []
    for i in range(n):
        fb, begin = ranked["faithbench"][i], ranked["begin"][i]
        claims = list(dict.fromkeys(c for r in (wice[i], *fb, *begin) for c in r.claims))
        passages = [padded(r, records[r.dataset], rng) for r in (wice[i], fb[0], begin[0])]
        rng.shuffle(passages)
        out.append((passages, claims))
    return out


def deal(
    sets: list[tuple[list[str], list[str]]], answers: int, rng: random.Random, skip: int = 0
) -> list[dict[str, Any]]:
    """`answers` answers of 5 claims, set after set in turn, each set's claims dealt in a
    seeded order from its `skip`-th on (so no claim recurs while a set has unread ones)."""
    decks = [rng.sample(claims[skip:], len(claims) - skip) for _, claims in sets]
    taken = [0] * len(sets)
    out = []
    for i in range(answers):
        s = i % len(sets)
        deck = decks[s]
        picked = [deck[(taken[s] + k) % len(deck)] for k in range(CLAIMS)]
        taken[s] += CLAIMS
        out.append({"answer": " ".join(picked), "passages": sets[s][0], "claims": picked})
    return out


def copy_share(items: Sequence[dict[str, Any]]) -> tuple[int, int]:
    """(claims copied word for word from a passage, claims) over answers of this module."""
    copied = total = 0
    for item in items:
        for claim in item["claims"]:
            total += 1
            copied += exact_copy(claim, item["passages"]) is not None
    return copied, total
