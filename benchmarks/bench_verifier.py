"""Speed, memory and start-up of verification through `create_verifier`.

Inputs: answers of 5 claims against 3 passages of about 500 tokens each, built
from WiCE dev passages in ../shared/data (3 claims copied from the passages, 2
with a number or name changed). Prints medians over several runs, side by side
with the seed method (max cosine between claim and passage embeddings with
all-MiniLM-L6-v2, unsupported below 0.5) on the same inputs.

    python benchmarks/bench_verifier.py [--data ../shared/data] [--runs 5] [--answers 20]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

STARTUP = """
import resource, time
t0 = time.perf_counter()
from langchain_reliable import create_verifier
check = create_verifier()
check.invoke({"answer": "Paris is in France.", "context": ["Paris is the capital of France."]})
t1 = time.perf_counter()
print(t1 - t0, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""


def load_passage_sets(data_dir: Path, n: int, seed: int = 0) -> list[list[str]]:
    """`n` sets of 3 passages of about 500 tokens (~2,000 characters) each."""
    texts = []
    with open(data_dir / "wice_dev.jsonl", encoding="utf-8") as fh:
        for line in fh:
            record = json.loads(line)
            joined = " ".join(record["context"])
            for start in range(0, len(joined) - 2000, 2000):
                texts.append(joined[start : start + 2000])
    rng = random.Random(seed)
    rng.shuffle(texts)
    if len(texts) < 3 * n:
        raise SystemExit(f"not enough WiCE text for {n} passage sets")
    return [texts[3 * i : 3 * i + 3] for i in range(n)]


def make_answer(passages: list[str], rng: random.Random) -> str:
    """5 claims: 3 sentences copied from the passages, 2 with a number or a word changed."""
    sentences = [
        s.strip()
        for p in passages
        for s in re.split(r"(?<=[.!?])\s+", p)
        if 8 <= len(s.split()) <= 40
    ]
    picked = rng.sample(sentences, 5)
    for i in (3, 4):
        changed = re.sub(r"\d+", lambda m: str(int(m.group()) + 7), picked[i], count=1)
        if changed == picked[i]:
            words = picked[i].split()
            words[len(words) // 2] = "never"
            changed = " ".join(words)
        picked[i] = changed
    return " ".join(s if s.endswith((".", "!", "?")) else s + "." for s in picked)


def seed_method(embeddings, answer: str, passages: list[str]) -> bool:
    """The seed design's check: any claim whose best passage cosine is below 0.5."""

    claims = [s for s in re.split(r"(?<=[.!?])\s+", answer) if s]
    vectors = embeddings.encode(claims + passages)
    sims = vectors[: len(claims)] @ vectors[len(claims) :].T
    return bool((sims.max(axis=1) < 0.5).any()) if len(claims) else False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--answers", type=int, default=20)
    args = parser.parse_args()

    from langchain_reliable import create_verifier
    from langchain_reliable.embeddings import LocalEmbeddings
    from langchain_reliable.verifiers.local import LocalVerifier

    rng = random.Random(0)
    sets = load_passage_sets(args.data, args.answers * args.runs + 10)
    items = [(make_answer(p, rng), p) for p in sets]

    # 1. Nothing cached: each answer brings passages never seen, with the cache off.
    uncached = create_verifier(verifier=LocalVerifier(embeddings=LocalEmbeddings(cache_size=0)))
    seed_embeddings = LocalEmbeddings(cache_size=0)
    uncached.invoke({"answer": items[-1][0], "context": items[-1][1]})  # load the model
    seed_method(seed_embeddings, *items[-2])
    ours_ms, seed_ms = [], []
    for run in range(args.runs):
        chunk = items[run * args.answers : (run + 1) * args.answers]
        t0 = time.perf_counter()
        for answer, passages in chunk:
            uncached.invoke({"answer": answer, "context": passages})
        ours_ms.append((time.perf_counter() - t0) * 1000 / len(chunk))
        t0 = time.perf_counter()
        for answer, passages in chunk:
            seed_method(seed_embeddings, answer, passages)
        seed_ms.append((time.perf_counter() - t0) * 1000 / len(chunk))

    # 2. Batch where passages recur (10 passage sets shared by 100 answers), cache on.
    cached = create_verifier()
    pool = sets[:10]
    batch = [
        {"answer": make_answer(pool[i % 10], rng), "context": pool[i % 10]} for i in range(100)
    ]
    cached.batch(batch[:10])  # passages seen once, as in a running RAG system
    claims_per_s = []
    for _ in range(args.runs):
        t0 = time.perf_counter()
        outs = cached.batch(batch)
        claims = sum(len(o["claims"]) for o in outs)
        claims_per_s.append(claims / (time.perf_counter() - t0))

    # 3. Start-up and memory, in a fresh process each run.
    startup, rss = [], []
    for _ in range(args.runs):
        out = subprocess.run(
            [sys.executable, "-c", STARTUP], capture_output=True, text=True, check=True
        ).stdout.split()
        startup.append(float(out[0]))
        rss.append(float(out[1]))

    med = statistics.median
    print(f"inputs: {args.answers} answers x {args.runs} runs; 5 claims, 3 passages of ~500 tokens")
    print(f"{'figure':<44}{'ours':>10}{'seed':>10}{'ratio':>8}{'target':>12}")
    rows = [
        ("latency per answer, nothing cached (ms)", med(ours_ms), med(seed_ms), "<= 250"),
    ]
    for name, ours, seed, target in rows:
        print(f"{name:<44}{ours:>10.1f}{seed:>10.1f}{ours / seed:>8.2f}{target:>12}")
    print(
        f"{'batch, passages recur (claims/s)':<44}{med(claims_per_s):>10.1f}{'':>18}{'>= 100':>12}"
    )
    print(
        f"{'import + model load + first answer (s)':<44}{med(startup):>10.2f}{'':>18}{'<= 3':>12}"
    )
    print(f"{'peak RSS (MB)':<44}{med(rss):>10.0f}{'':>18}{'<= 500':>12}")


if __name__ == "__main__":
    main()
