"""Build the entailment model's training pairs: stage 1 (general NLI), stage 2 (grounding).

Stage 1 is the NLI pairs of `../shared/data/train/nli/train.jsonl` (SNLI capped,
FEVER-NLI, Breaking NLI and MED whole). Stage 2 teaches what a grounded answer gets
wrong: label-free pairs cut from real passages (FEVER evidence, HaluEval QA
knowledge, HaluEval news documents; never the three human-labelled dev files),
each a minimal edit of one passage sentence read against the passage window that
holds it, so a pair and its true control share nearly every word:

- hard negatives: numbers and dates, frequencies and rates, units and their
  scale, percent and percentage points, scope and quantifiers, prefix and
  sentential negation, modality and tense, a dropped condition, "at least",
  antonyms, swapped names and roles, an added detail, the sentence cut out;
- hard positives: synonyms, a moved opening phrase, two sentences joined,
  rounding ("about 1.5 %"), a dropped parenthesis or appositive, a hedge;

plus HaluEval QA answers (right: entailed; hallucinated: not entailed) and a
replay of stage-1 pairs. Labels: 0 entailment, 1 neutral, 2 contradiction,
-1 "not entailed" (neutral or contradiction).

    python scripts/entailment_data.py --nli ../shared/data/train/nli \
        --halueval .cache/halueval --out .cache/entailment
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
from collections import Counter
from pathlib import Path

from langchain_reliable.evidence.entailment import as_answer_to, passage_windows
from langchain_reliable.text import split_passage_sentences

SEED = 0
LABEL = {"entailment": 0, "neutral": 1, "contradiction": 2, "not_entailment": -1}
E, N, C, NOT = 0, 1, 2, -1
SNLI_CAP = 24_000
STAGE2_PER_KIND = 900
REPLAY = 6_000
HALUEVAL_QA = 1_500


def _pairs(text: str) -> dict[str, str]:
    """'a/b c/d' -> {'a': 'b', 'c': 'd'}."""
    return dict(pair.split("/") for pair in text.split())


ANTONYMS = _pairs(
    """
    increase/decrease increases/decreases increased/decreased raise/lower raises/lowers
    raised/lowered reduce/increase reduces/increases reduced/increased higher/lower
    more/less larger/smaller largest/smallest before/after first/last earliest/latest
    won/lost win/lose wins/loses allowed/prohibited approved/rejected north/south east/west
    northern/southern eastern/western maximum/minimum begins/ends began/ended older/younger
    oldest/youngest rise/fall rose/fell above/below inside/outside strong/weak
    stronger/weaker include/exclude includes/excludes included/excluded gained/lost
    major/minor success/failure male/female accepted/refused highest/lowest
    activates/inhibits activating/inhibiting improves/worsens improved/worsened early/late
    long/short longest/shortest heavy/light cheap/expensive
    """
)
ANTONYMS |= {v: k for k, v in list(ANTONYMS.items()) if v not in ANTONYMS}
SYNONYMS = _pairs(
    """
    reduces/lowers reduce/lower approximately/about around/roughly began/started begin/start
    purchased/bought buy/purchase large/big big/large helps/aids shows/demonstrates
    showed/demonstrated uses/employs used/employed located/situated received/got
    received/obtained famous/well-known known/recognised often/frequently usually/typically
    died/perished created/made founded/established established/founded produced/made
    film/movie movie/film city/town children/kids married/wed people/persons quickly/rapidly
    rapid/fast major/significant production/output output/production hepatic/liver
    increases/raises decreased/fell needed/required needs/requires required/needed
    released/issued stated/said said/stated told/informed killed/slain attempt/try
    attempted/tried however/but also/additionally
    """
)
FREQUENCIES = ["hourly", "daily", "weekly", "monthly", "yearly", "annually", "every day",
               "every week", "every month", "every year", "twice a day", "once a week"]  # fmt: skip
UNITS = {
    "mg": "g", "g": "mg", "kg": "g", "km": "m", "m": "km", "ml": "l", "million": "billion",
    "billion": "million", "thousand": "million", "hours": "days", "days": "weeks",
    "weeks": "months", "months": "years", "years": "months", "minutes": "hours",
    "per hour": "per day", "per day": "per week", "per week": "per month", "per year": "per month",
    "a day": "a week", "a week": "a month", "a year": "a month", "percent": "percentage points",
}  # fmt: skip
QUANT_UP = {
    "some": "all", "many": "all", "most": "all", "several": "all", "few": "no",
    "often": "always", "sometimes": "always", "usually": "always", "may": "must",
    "can": "must", "might": "will", "likely": "certain", "one of the": "the only",
}  # fmt: skip
PREFIXED = {
    "safe": "unsafe", "likely": "unlikely", "known": "unknown", "able": "unable",
    "common": "uncommon", "successful": "unsuccessful", "official": "unofficial",
    "popular": "unpopular", "profitable": "unprofitable", "toxic": "non-toxic",
    "fatal": "non-fatal", "legal": "illegal", "possible": "impossible", "correct": "incorrect",
    "complete": "incomplete", "effective": "ineffective", "active": "inactive",
    "stable": "unstable", "married": "unmarried", "natural": "unnatural",
    "necessary": "unnecessary", "usual": "unusual", "related": "unrelated",
    "profit": "non-profit", "independent": "dependent", "visible": "invisible",
    "available": "unavailable", "armed": "unarmed", "aware": "unaware", "fair": "unfair",
    "regular": "irregular", "responsible": "irresponsible", "smoker": "non-smoker",
    "resident": "non-resident", "fiction": "non-fiction", "professional": "amateur",
}  # fmt: skip
PREFIXED |= {v: k for k, v in list(PREFIXED.items())}
AUX = re.compile(r"\b(is|are|was|were|has|have|had|can|will|would|could|should|does|did)\b")
NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?![\w.]*\d)(?![A-Za-z])")
MONTH = re.compile(
    r"(January|February|March|April|May|June|July|August|September|October|November|December)\s*$"
)
YEAR = re.compile(r"\b(1[5-9]\d\d|20[0-2]\d)\b")
NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][a-z]+(?:\s[A-Z][a-z]+)*)")
SCOPES = ["in children", "in all patients", "only in winter", "in most cases", "for everyone",
          "in the United States", "worldwide", "in every case", "for the first time",
          "only", "in adults over 65", "exclusively"]  # fmt: skip
ADDED = ["because of a funding shortfall", "after a long legal dispute", "with government support",
         "despite strong opposition", "as part of a merger", "according to a 2019 survey",
         "under a new law", "for the second time", "at the request of the board",
         "following an investigation"]  # fmt: skip
HEDGES = ["It has been reported that", "According to the text,", "Reportedly,", "It is said that"]


def words_sub(sentence: str, table: dict[str, str], rng: random.Random) -> str | None:
    """Replace one whole-word (or phrase) occurrence of a key of `table` with its value."""
    keys = [k for k in table if re.search(rf"\b{re.escape(k)}\b", sentence)]
    if not keys:
        return None
    k = rng.choice(sorted(keys))
    hits = list(re.finditer(rf"\b{re.escape(k)}\b", sentence))
    m = rng.choice(hits)
    return sentence[: m.start()] + table[k] + sentence[m.end() :]


def change_number(sentence: str, rng: random.Random) -> str | None:
    hits = list(NUMBER.finditer(sentence))
    if not hits:
        return None
    m = rng.choice(hits)
    raw = m.group(1).replace(",", "")
    value = float(raw)
    if YEAR.fullmatch(m.group(1)):
        new = str(int(value) + rng.choice([-10, -3, -2, -1, 1, 2, 5, 11]))
    elif "." in raw:
        scaled = value * rng.choice([0.5, 2, 1.4, 0.7]) + rng.choice([0.1, 0.3])
        new = f"{scaled:.{len(raw.split('.')[1])}f}"
    else:
        new = str(int(value) * rng.choice([2, 3, 10]) + rng.choice([1, 3, 7]) if value else 5)
    if new == raw:
        return None
    return sentence[: m.start(1)] + new + sentence[m.end(1) :]


def frequency(sentence: str, rng: random.Random) -> str | None:
    keys = [f for f in FREQUENCIES if re.search(rf"\b{f}\b", sentence)]
    if keys:
        k = rng.choice(keys)
        other = rng.choice([f for f in FREQUENCIES if f != k])
        return re.sub(rf"\b{k}\b", other, sentence, count=1)
    return None


def negate(sentence: str, rng: random.Random) -> str | None:
    """Sentential negation: 'not' after the first auxiliary, or an 'It is false that' frame."""
    body = sentence.rstrip(".")
    if rng.random() < 0.4 and body:
        frame = rng.choice(["It is false that", "It is not true that", "It is not the case that"])
        return f"{frame} {body[0].lower()}{body[1:]}."
    m = AUX.search(sentence)
    if not m or re.match(r"\s+(not|never|no)\b", sentence[m.end() :]):
        return None
    word = rng.choice(["not", "never"]) if m.group(1) in ("has", "have", "had", "was") else "not"
    return sentence[: m.end()] + f" {word}" + sentence[m.end() :]


def undo_negation(sentence: str) -> str | None:
    m = re.search(r"\b(is|are|was|were|has|have|had|can|does|did|will) (not|never) ", sentence)
    if m:
        return sentence[: m.start(2)] + sentence[m.end(2) + 1 :]
    m = re.search(r"\b(isn't|wasn't|doesn't|didn't|can't|cannot|won't)\b", sentence)
    if not m:
        return None
    plain = {"isn't": "is", "wasn't": "was", "doesn't": "does", "didn't": "did", "can't": "can",
             "cannot": "can", "won't": "will"}[m.group(1)]  # fmt: skip
    return sentence[: m.start()] + plain + sentence[m.end() :]


def modality_tense(sentence: str, rng: random.Random) -> str | None:
    m = re.search(r"\b(is|are)\b", sentence)
    if m and rng.random() < 0.5:
        new = rng.choice(["used to be", "was once", "will be", "may be", "could be"])
        return sentence[: m.start()] + new + sentence[m.end() :]
    m = re.search(r"\b(was|were)\b", sentence)
    if m:
        new = rng.choice(["is still", "will be", "is no longer", "would have been"])
        return sentence[: m.start()] + new + sentence[m.end() :]
    return words_sub(sentence, QUANT_UP, rng)


def _amounts(sentence: str) -> list[re.Match]:
    """Numbers that are amounts: not years, not the day of a date."""
    return [
        m
        for m in NUMBER.finditer(sentence)
        if not YEAR.fullmatch(m.group(1))
        and not MONTH.search(sentence[: m.start()])
        and not re.match(r",? \d{4}", sentence[m.end() :])
    ]


def at_least(sentence: str, rng: random.Random) -> tuple[str, int] | None:
    """'5' -> 'more than 5', 'fewer than 5' (contradiction) or 'at least 5' (entailed)."""
    hits = _amounts(sentence)
    if not hits:
        return None
    m = rng.choice(hits)
    before = sentence[max(0, m.start() - 14) : m.start()].lower()
    if any(w in before for w in ("about", "around", "least", "than", "up to", "nearly", "almost")):
        return None
    qualifier, label = rng.choice([("more than", C), ("fewer than", C), ("at least", E),
                                   ("over", C), ("under", C), ("exactly", E)])  # fmt: skip
    return sentence[: m.start()] + f"{qualifier} " + sentence[m.start() :], label


def rounding(sentence: str, rng: random.Random) -> str | None:
    """Entailed restatements of a number: 'about 1.5' for '1.52', 'about 120' for '120'."""
    hits = _amounts(sentence)
    if not hits:
        return None
    m = rng.choice(hits)
    raw = m.group(1).replace(",", "")
    before = sentence[max(0, m.start() - 14) : m.start()].lower()
    if any(w in before for w in ("more", "fewer", "less", "least", "most", "than", "over")):
        return None
    new = f"{float(raw):.1f}" if "." in raw and len(raw.split(".")[1]) >= 2 else m.group(1)
    return (
        sentence[: m.start()]
        + f"{rng.choice(['about', 'around', 'approximately', 'roughly'])} {new}"
        + sentence[m.end() :]
    )


def swap_names(sentence: str, passage: str, rng: random.Random) -> str | None:
    """Two names of the sentence traded (roles), or one replaced by another name of the passage."""
    mine = list(dict.fromkeys(m.group(1) for m in NAME.finditer(sentence)))
    if len(mine) >= 2 and rng.random() < 0.5:
        a, b = rng.sample(mine, 2)
        if a in b or b in a:
            return None
        return sentence.replace(a, "\0").replace(b, a).replace("\0", b)
    others = [n for n in dict.fromkeys(m.group(1) for m in NAME.finditer(passage))
              if n not in sentence and not any(n in x or x in n for x in mine)]  # fmt: skip
    if not mine or not others:
        return None
    return re.sub(rf"\b{re.escape(rng.choice(mine))}\b", rng.choice(others), sentence, count=1)


def scope(sentence: str, rng: random.Random) -> str | None:
    new = words_sub(sentence, QUANT_UP, rng)
    if new is not None and rng.random() < 0.5:
        return new
    body = sentence.rstrip(".")
    phrase = rng.choice(SCOPES)
    if phrase in ("only", "exclusively"):
        m = AUX.search(body)
        if not m:
            return None
        return body[: m.end()] + f" {phrase}" + body[m.end() :] + "."
    return f"{body} {phrase}."


def drop_condition(sentence: str) -> str | None:
    """'If X, Y.' -> 'Y.'; 'Y unless X.' -> 'Y.' (not entailed: the condition is gone)."""
    m = re.match(r"(?i)(if|when|unless|provided that|only if)\s[^,]{3,80},\s*(.+)", sentence)
    if m:
        rest = m.group(2)
        return rest[0].upper() + rest[1:]
    m = re.search(r"\s(?:only if|unless|provided that|if)\s[^,.]{3,80}[.]?$", sentence)
    if m:
        return sentence[: m.start()].rstrip(",") + "."
    return None


def join_two(a: str, b: str) -> str | None:
    if not (8 <= len(a.split()) <= 30 and 4 <= len(b.split()) <= 30):
        return None
    return a.rstrip(".!?") + ", and " + b[0].lower() + b[1:]


def move_opening(sentence: str) -> str | None:
    """'In 1990, X did Y.' -> 'X did Y in 1990.'"""
    m = re.match(r"((?:In|On|At|During|After|Before|By|Since)\s[^,]{2,40}),\s+(.+?)[.]?$", sentence)
    if not m:
        return None
    rest, opening = m.group(2), m.group(1)
    return rest[0].upper() + rest[1:] + " " + opening[0].lower() + opening[1:] + "."


def drop_aside(sentence: str) -> str | None:
    new = re.sub(r"\s*\([^()]{2,80}\)", "", sentence)
    if new != sentence:
        return new
    m = re.search(r", (?:who|which) [^,]{3,80},", sentence)
    if m:
        return sentence[: m.start()] + sentence[m.end() - 1 :].lstrip(",")
    return None


def add_detail(sentence: str, rng: random.Random) -> str:
    return sentence.rstrip(".") + f" {rng.choice(ADDED)}."


def passage_units(text: str) -> list[tuple[str, list[str], str]]:
    """(window, the window's sentences, passage) for every window of a passage."""
    out = []
    for a, b in passage_windows(text):
        window = text[a:b]
        sents = [window[x:y] for x, y in split_passage_sentences(window)]
        out.append((window, sents, text))
    return out


def edits(window: str, sents: list[str], passage: str, rng: random.Random) -> list[dict]:
    """Every edit this window's sentences allow: (kind, hypothesis, label), premise = window."""
    out: list[dict] = []

    def add(kind: str, hyp: str | None, label: int, premise: str = window) -> None:
        if hyp and hyp.strip() and hyp != premise:
            out.append(
                {"premise": premise, "hyp": hyp.strip(), "label": label, "source": f"edit_{kind}"}
            )

    usable = [s for s in sents if 6 <= len(s.split()) <= 45]
    for i, s in enumerate(usable):
        add("number", change_number(s, rng), C)
        add("frequency", frequency(s, rng), C)
        add("unit", words_sub(s, UNITS, rng), C)
        add("antonym", words_sub(s, ANTONYMS, rng), C)
        add("prefix_negation", words_sub(s, PREFIXED, rng), C)
        add("negation", negate(s, rng), C)
        add("negation_removed", undo_negation(s), C)
        add("modality_tense", modality_tense(s, rng), NOT)
        add("scope", scope(s, rng), NOT)
        add("condition", drop_condition(s), NOT)
        q = at_least(s, rng)
        if q:
            add("at_least" if q[1] != E else "at_least_true", q[0], q[1])
        add("names_roles", swap_names(s, passage, rng), NOT)
        add("added_detail", add_detail(s, rng), N)
        if len(sents) > 1:
            rest = " ".join(x for x in sents if x != s)
            add("cut_out", s, N, premise=rest)
        add("synonym", words_sub(s, SYNONYMS, rng), E)
        add("reorder", move_opening(s), E)
        add("aside_dropped", drop_aside(s), E)
        add("rounding", rounding(s, rng), E)
        add("hedge", f"{rng.choice(HEDGES)} {s[0].lower()}{s[1:]}", E)
        add("restated", s, E)
        if i + 1 < len(usable):
            add("joined", join_two(s, usable[i + 1]), E)
    return out


def read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def stage1(nli: Path, rng: random.Random, snli_cap: int | None = SNLI_CAP) -> list[dict]:
    """The NLI pairs, SNLI capped at `snli_cap` (None: all)."""
    rows = read_jsonl(nli / "train.jsonl")
    snli = [r for r in rows if r["source"] == "snli"]
    rng.shuffle(snli)
    keep = snli[:snli_cap] + [r for r in rows if r["source"] != "snli"]
    pairs = [{"premise": r["premise"], "hyp": r["hypothesis"], "label": LABEL[r["label"]],
              "source": r["source"]} for r in keep]  # fmt: skip
    rng.shuffle(pairs)
    return pairs


def passages(nli: Path, halueval: Path, rng: random.Random) -> list[str]:
    """Passages to cut edits from: FEVER evidence, HaluEval QA knowledge, HaluEval news."""
    fever = sorted(
        {r["premise"] for r in read_jsonl(nli / "train.jsonl") if r["source"] == "fever_nli"}
    )
    fever = [
        re.sub(r"\s+([,.;:)'])", r"\1", re.sub(r"-LRB-|-LSB-", "(", p)).replace("( ", "(")
        for p in fever
    ]
    fever = [
        p.replace("-RRB-", ")").replace("-RSB-", ")").replace("``", '"').replace("''", '"')
        for p in fever
    ]
    out = [p for p in fever if not p.startswith((",", "("))]
    for task in ("qa", "summarization"):
        items = read_jsonl(halueval / f"halueval_{task}.jsonl")
        texts = sorted(
            {r["context"][0] for r in items if r["meta"]["item"] % 25}
        )  # held out: % 25 == 0
        rng.shuffle(texts)
        out += texts[:2500]
    return out


def halueval_qa(halueval: Path, rng: random.Random, per_label: int = HALUEVAL_QA) -> list[dict]:
    """Right answers (as 'question answer') entailed by the knowledge; hallucinated ones not."""
    rows = [r for r in read_jsonl(halueval / "halueval_qa.jsonl") if r["meta"]["item"] % 25]
    rng.shuffle(rows)
    out = []
    counts = Counter()
    for r in rows:
        label = NOT if r["hallucinated"] else E
        if counts[label] >= per_label:
            continue
        if label == E and r["answer"].lower() not in r["context"][0].lower():
            continue
        counts[label] += 1
        hyp = as_answer_to(r["question"], r["answer"])
        out.append(
            {"premise": r["context"][0], "hyp": hyp, "label": label, "source": "halueval_qa"}
        )
    return out


def stage2(
    nli_pairs: list[dict], texts: list[str], halueval: Path, rng: random.Random, scale: int = 1
) -> list[dict]:
    """Edits (at most `STAGE2_PER_KIND * scale` a kind), HaluEval QA and an NLI replay."""
    by_kind: dict[str, list[dict]] = {}
    for text in texts:
        for window, sents, passage in passage_units(text):
            for pair in edits(window, sents, passage, rng):
                by_kind.setdefault(pair["source"], []).append(pair)
    out = []
    for kind in sorted(by_kind):
        rows = by_kind[kind]
        rng.shuffle(rows)
        cap = STAGE2_PER_KIND * scale
        cap = cap // 3 if kind in ("edit_restated", "edit_hedge") else cap
        out += rows[:cap]
    out += halueval_qa(halueval, rng, HALUEVAL_QA * scale)
    out += rng.sample(nli_pairs, REPLAY * scale)
    rng.shuffle(out)
    return out


def write(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    counts = Counter((r["source"], r["label"]) for r in rows)
    print(f"{path}: {len(rows)} pairs")
    for (source, label), n in sorted(counts.items()):
        print(f"  {source:24s} {label:3d} {n}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nli", type=Path, default=Path("../shared/data/train/nli"))
    ap.add_argument("--halueval", type=Path, default=Path(".cache/halueval"))
    ap.add_argument("--out", type=Path, default=Path(".cache/entailment"))
    ap.add_argument(
        "--snli-cap", type=int, default=SNLI_CAP, help="SNLI pairs kept in stage 1 (0: all)"
    )
    ap.add_argument(
        "--scale", type=int, default=1, help="multiply the stage-2 sizes (edits a kind, QA, replay)"
    )
    args = ap.parse_args()
    rng = random.Random(SEED)
    first = stage1(args.nli, rng, args.snli_cap or None)
    write(args.out / "stage1.jsonl.gz", first)
    write(
        args.out / "stage2.jsonl.gz",
        stage2(first, passages(args.nli, args.halueval, rng), args.halueval, rng, args.scale),
    )


if __name__ == "__main__":
    main()
