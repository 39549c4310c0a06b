"""One side of the verifier speed sweep, run in its own process (see `bench_verifier.py`).

The package is imported from `PYTHONPATH`, so the same sweep runs against this
tree and against a checkout of an earlier commit. Prints one JSON object: for
each case, the per-run seconds of one answer of 5 claims (fresh caches each run, a
garbage collection before each timed call, the cases taken in turn in each round),
the batch throughputs (claims/s) with recurring passages and new claims, and the
start-up of a fresh process (`COLD_START`: import, `create_verifier()`, first answer;
peak RSS after `STARTUP_ANSWERS` answers; whether the entailment model was loaded).

    PYTHONPATH=. python benchmarks/speed_worker.py --data ../shared/data --runs 5
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import multiprocessing
import os
import random
import re
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

PASSAGE_COUNTS = (1, 3, 10, 30, 100)
PASSAGE_TOKENS = (100, 500, 2000, 8000)
CHARS_PER_TOKEN = 4


def load_text(data_dir: Path) -> list[str]:
    """WiCE dev passages joined per record, shuffled deterministically."""
    texts = []
    with open(data_dir / "wice_dev.jsonl", encoding="utf-8") as fh:
        for line in fh:
            texts.append(" ".join(json.loads(line)["context"]))
    random.Random(0).shuffle(texts)
    return texts


class Source:
    """Cuts fresh passages of a given size from the WiCE text, never the same twice."""

    def __init__(self, texts: list[str]) -> None:
        self.stream = " ".join(texts)
        self.at = 0

    def passage(self, tokens: int) -> str:
        size = tokens * CHARS_PER_TOKEN
        if self.at + size > len(self.stream):
            self.at = 0
        start = self.stream.find(" ", self.at) + 1
        self.at = start + size
        return self.stream[start : start + size]


def sentences_of(passages: list[str]) -> list[str]:
    return [
        s.strip()
        for p in passages
        for s in re.split(r"(?<=[.!?])\s+", p)
        if 8 <= len(s.split()) <= 40
    ]


def make_answer(passages: list[str], rng: random.Random, fresh: bool = False) -> str:
    """5 claims from the passages' sentences, 2 of them altered; `fresh`: all 5 altered.

    An altered claim has a number shifted or one word replaced by a random word of
    the passages, so its text is new (never cached) while it stays on topic.
    """
    pool = sentences_of(passages) or [" ".join(p.split()[:20]) + "." for p in passages]
    picked = rng.sample(pool, 5) if len(pool) >= 5 else [rng.choice(pool) for _ in range(5)]
    vocab = [w for s in pool for w in s.split() if w.isalpha()]
    for i in range(5) if fresh else (3, 4):
        words = picked[i].split()
        j = rng.randrange(len(words))
        words[j] = rng.choice(vocab)
        picked[i] = re.sub(
            r"\d+", lambda m: str(int(m.group()) + rng.randrange(1, 9)), " ".join(words), count=1
        )
    return " ".join(s if s.endswith((".", "!", "?")) else s + "." for s in picked)


def seed_method(embeddings: Any, answer: str, passages: list[str]) -> list[bool]:
    """The seed design: unsupported when the best claim-passage cosine is below 0.5."""
    claims = [s for s in re.split(r"(?<=[.!?])\s+", answer) if s]
    vectors = embeddings.encode(claims + passages)
    sims = vectors[: len(claims)] @ vectors[len(claims) :].T
    return [bool(x < 0.5) for x in sims.max(axis=1)]


def make_verifier(cls: Any, embeddings: Any, entailment: bool = False) -> Any:
    """The shipped default verifier, or with `entailment` its opt-in model (where code has it)."""
    if not entailment:
        return cls(embeddings=embeddings)
    try:
        return cls(embeddings=embeddings, entailment=True)
    except TypeError:
        return cls(embeddings=embeddings)


_GRAPH: Any = None


def _worker_init(warm: list[dict[str, Any]], entailment: bool) -> None:
    """A batch worker process: one ONNX thread, the recurring passages seen once."""
    global _GRAPH
    from langchain_reliable import create_verifier
    from langchain_reliable.evidence.embeddings import LocalEmbeddings
    from langchain_reliable.verifiers.local import LocalVerifier

    verifier = make_verifier(LocalVerifier, LocalEmbeddings(intra_op_num_threads=1), entailment)
    _GRAPH = create_verifier(verifier=verifier)
    _GRAPH.batch(warm)


def _worker_claims(inputs: list[dict[str, Any]]) -> int:
    """Verify `inputs` one after another, as a `reliable-rag batch` worker does."""
    return sum(len(o["claims"]) for o in _GRAPH.batch(inputs, config={"max_concurrency": 1}))


_ENCODER: Any = None


def _encoder_init() -> None:
    """A floor worker process: the embedding model alone, one ONNX thread, no cache."""
    global _ENCODER
    from langchain_reliable.evidence.embeddings import LocalEmbeddings

    _ENCODER = LocalEmbeddings(intra_op_num_threads=1, cache_size=0)
    _ENCODER.encode(["warm", "up"])


def _encode_answers(claims: list[list[str]]) -> int:
    """Encode each answer's claims in one call, as the verifier does; the claims encoded."""
    for answer in claims:
        _ENCODER.encode(answer)
    return sum(len(answer) for answer in claims)


STARTUP_ANSWERS = 10
COLD_START = """
import json, resource, sys, time
t0 = time.perf_counter()
from langchain_reliable import create_verifier
check = create_verifier()
answers = json.loads(sys.stdin.read())
check.invoke(answers[0])
cold = time.perf_counter() - t0
used = resource.getrusage(resource.RUSAGE_SELF)
cpu = used.ru_utime + used.ru_stime
for item in answers[1:]:
    check.invoke(item)
from langchain_reliable.evidence.entailment import default_entailment_model
model = default_entailment_model()
reader = getattr(model, "reader", model)  # the shared session, or the model's own (older code)
loaded = getattr(reader, "_session", None) is not None
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps([cold, rss, loaded, cpu]))
"""


def cold_start(answers: list[dict[str, Any]]) -> tuple[float, float, bool, float]:
    """(seconds to the first verdicts, peak RSS in MB, model loaded, CPU seconds to the
    first verdicts) of a fresh process."""
    out = subprocess.run(
        [sys.executable, "-c", COLD_START],
        input=json.dumps(answers),
        capture_output=True,
        text=True,
        check=True,
        env=os.environ,
    ).stdout
    cold, rss, loaded, cpu = json.loads(out.strip().splitlines()[-1])
    return float(cold), float(rss), bool(loaded), float(cpu)


def clear_caches(verifier: Any) -> None:
    """Empty every cache the verifier's code has (embeddings; passage indexes, read pairs)."""
    verifier.selector.embeddings.clear_cache()
    model = getattr(verifier, "entailment", None)
    if hasattr(model, "clear_cache"):  # the pairs the entailment model has read
        model.clear_cache()
    try:
        from langchain_reliable.evidence.index import index_cache
    except ImportError:  # code from before the passage index
        return
    index_cache.clear()


def median(values: list[float]) -> float:
    values = sorted(values)
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--batch", type=int, default=100, help="answers per batch run")
    parser.add_argument("--no-seed", action="store_true", help="skip the seed method")
    parser.add_argument(
        "--entailment", action="store_true", help="the verifier with its opt-in entailment model"
    )
    args = parser.parse_args()

    from langchain_reliable import create_verifier
    from langchain_reliable.config import Limits
    from langchain_reliable.evidence.embeddings import LocalEmbeddings
    from langchain_reliable.verifiers.local import LocalVerifier

    rng = random.Random(1)
    source = Source(load_text(args.data))
    out: dict[str, Any] = {
        "startup": {"cold start (s)": [], "peak RSS (MB)": [], "loaded": [], "cpu (s)": []}
    }
    for _ in range(args.runs):  # first, while the machine's caches hold nothing of ours
        sets = [[source.passage(500) for _ in range(3)] for _ in range(STARTUP_ANSWERS)]
        cold, rss, loaded, cpu = cold_start(
            [{"answer": make_answer(p, rng), "context": p} for p in sets]
        )
        out["startup"]["cold start (s)"].append(cold)
        out["startup"]["peak RSS (MB)"].append(rss)
        out["startup"]["loaded"].append(loaded)
        out["startup"]["cpu (s)"].append(cpu)
    limits = Limits(max_passages=1000, max_passage_chars=10**6)
    verifier = make_verifier(LocalVerifier, LocalEmbeddings(), args.entailment)
    graph = create_verifier(verifier=verifier, limits=limits)
    seed_emb = LocalEmbeddings(cache_size=0)
    graph.invoke({"answer": "Paris is in France.", "context": ["Paris is in France."]})
    seed_emb.encode(["warm", "up"])

    cases = [(n, 500) for n in PASSAGE_COUNTS] + [(3, t) for t in PASSAGE_TOKENS if t != 500]
    out["cases"] = {f"{n}x{t}": {"ours": [], "seed": [], "cpu": []} for n, t in cases}
    out["batch"] = {}
    for _ in range(args.runs):  # every case once per round: drift in load hits all cases alike
        for n, tokens in cases:
            times = out["cases"][f"{n}x{tokens}"]
            passages = [source.passage(tokens) for _ in range(n)]
            answer = make_answer(passages, rng)
            clear_caches(verifier)
            gc.collect()  # no collection of earlier garbage inside the timed call
            t0, c0 = time.perf_counter(), time.process_time()
            report = graph.invoke({"answer": answer, "context": passages})
            times["ours"].append(time.perf_counter() - t0)
            times["cpu"].append(time.process_time() - c0)  # all threads: robust to load
            assert len(report["claims"]) >= 1
            if not args.no_seed:
                gc.collect()  # no collection of earlier garbage inside the timed call
                t0 = time.perf_counter()
                seed_method(seed_emb, answer, passages)
                times["seed"].append(time.perf_counter() - t0)

    # Batch: 10 passage sets of 3 x ~500 tokens recur; every claim is new.
    pool = [[source.passage(500) for _ in range(3)] for _ in range(10)]
    clear_caches(verifier)
    graph.batch([{"answer": make_answer(p, rng, True), "context": p} for p in pool])
    seed_cached = LocalEmbeddings()
    for p in pool:
        seed_method(seed_cached, make_answer(p, rng, True), p)

    def draw() -> list[dict[str, Any]]:
        return [
            {"answer": make_answer(pool[i % 10], rng, True), "context": pool[i % 10]}
            for i in range(args.batch)
        ]

    single = make_verifier(LocalVerifier, LocalEmbeddings(intra_op_num_threads=1), args.entailment)
    graph_1 = create_verifier(verifier=single)
    graph_1.batch([{"answer": make_answer(p, rng, True), "context": p} for p in pool])
    runs = (
        ("batch, 1 thread", 1, graph),
        ("abatch, 2 threads", 2, graph),
        ("abatch, 2 threads, 1 ONNX thread each", 2, graph_1),
    )
    cpu_rates: list[float] = []
    for name, threads, chosen in runs:
        rates = []
        for _ in range(args.runs):
            inputs = draw()
            config = {"max_concurrency": threads}
            gc.collect()  # no collection of earlier garbage inside the timed call
            t0 = time.perf_counter()
            c0 = time.process_time()
            if threads == 1:
                outs = chosen.batch(inputs, config=config)
            else:
                outs = asyncio.run(chosen.abatch(inputs, config=config))
            claims = sum(len(o["claims"]) for o in outs)
            rates.append(claims / (time.perf_counter() - t0))
            if threads == 1:
                cpu_rates.append(claims / (time.process_time() - c0))
        out["batch"][name] = rates
    out["batch cpu"] = {"batch, 1 thread": cpu_rates}
    # Two worker processes of one ONNX thread each (what `reliable-rag batch` runs).
    warm = [{"answer": make_answer(p, rng, True), "context": p} for p in pool]
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(
        2, mp_context=context, initializer=_worker_init, initargs=(warm, args.entailment)
    ) as workers:
        list(workers.map(_worker_claims, [warm[:1], warm[1:2]]))  # both started and warm
        rates = []
        for _ in range(args.runs):
            inputs = draw()
            gc.collect()  # no collection of earlier garbage inside the timed call
            t0 = time.perf_counter()
            claims = sum(workers.map(_worker_claims, [inputs[0::2], inputs[1::2]]))
            rates.append(claims / (time.perf_counter() - t0))
        out["batch"]["2 processes, 1 ONNX thread each"] = rates
    # The floor: encoding the new claims alone, one ONNX thread (no checks, no graph).
    encoder = LocalEmbeddings(intra_op_num_threads=1, cache_size=0)
    encoder.encode(["warm", "up"])
    rates = []
    for _ in range(args.runs):
        claims = [c for b in draw() for c in re.split(r"(?<=[.!?])\s+", b["answer"]) if c.strip()]
        gc.collect()  # no collection of earlier garbage inside the timed call
        t0 = time.perf_counter()
        for i in range(0, len(claims), 5):  # one answer's claims per call, as the verifier does
            encoder.encode(claims[i : i + 5])
        rates.append(len(claims) / (time.perf_counter() - t0))
    out["batch"]["floor: encoding the claims alone, 1 thread"] = rates
    # The same floor on both cores: what any design that embeds each claim could reach.
    with ProcessPoolExecutor(2, mp_context=context, initializer=_encoder_init) as workers:
        list(workers.map(_encode_answers, [[["warm"]], [["up"]]]))  # both started and warm
        rates = []
        for _ in range(args.runs):
            answers = [
                [c for c in re.split(r"(?<=[.!?])\s+", b["answer"]) if c.strip()] for b in draw()
            ]
            gc.collect()  # no collection of earlier garbage inside the timed call
            t0 = time.perf_counter()
            claims = sum(workers.map(_encode_answers, [answers[0::2], answers[1::2]]))
            rates.append(claims / (time.perf_counter() - t0))
    out["batch"]["floor: encoding the claims alone, 2 processes"] = rates
    # What giving up the model costs in quality buys in speed: the lexical baseline.
    from langchain_reliable.eval.detectors import LexicalBaseline

    lexical, rates = LexicalBaseline(), []
    for _ in range(args.runs):
        items = [
            (c, b["context"])
            for b in draw()
            for c in re.split(r"(?<=[.!?])\s+", b["answer"])
            if c.strip()
        ]
        gc.collect()  # no collection of earlier garbage inside the timed call
        t0 = time.perf_counter()
        lexical.score(items)
        rates.append(len(items) / (time.perf_counter() - t0))
    out["batch"]["lexical baseline, no model, 1 thread"] = rates
    seed_rates = []
    for _ in range(0 if args.no_seed else args.runs):
        inputs = draw()
        gc.collect()  # no collection of earlier garbage inside the timed call
        t0 = time.perf_counter()
        claims = sum(len(seed_method(seed_cached, b["answer"], b["context"])) for b in inputs)
        seed_rates.append(claims / (time.perf_counter() - t0))
    out["batch"]["seed"] = seed_rates
    print(json.dumps(out))


if __name__ == "__main__":
    main()
