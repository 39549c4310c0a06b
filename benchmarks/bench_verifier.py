"""Speed, memory and start-up of verification through `create_verifier`.

Inputs: answers of 5 claims against 3 passages of about 500 tokens each, built
from WiCE dev passages in ../shared/data (3 claims copied from the passages, 2
with a number or a word changed). Every figure is a median over `--runs` runs,
printed side by side with the seed method (max cosine between claim and passage
embeddings with all-MiniLM-L6-v2, unsupported below 0.5) run on the same inputs
with the same embedded model, and the ratio ours / seed (for latency and start-up
lower is better; for claims/s higher is better).

1. nothing cached: each answer brings passages never seen, embedding cache off;
2. batch where passages recur: 100 new answers per run over 10 passage sets,
   cache on (passages seen once before, as retrieved chunks recur in a running
   system; the claims are new, so they are encoded);
3. start-up, in a fresh process each run: `import langchain_reliable` alone, and
   import + `create_verifier()` + model load + first answer; peak RSS of that process;
4. the cost sweep (`speed_worker.py`, one process per code base): 5 claims against
   1/3/10/30/100 passages of ~500 tokens and against 3 passages of 100/500/2,000/8,000
   tokens (input limits raised), fresh caches each run, every case once per round;
   batch throughput with recurring passages and new claims, one thread (`batch`), two
   (`abatch`), two worker processes, and the floor (encoding the claims alone, one
   process and two), all with the shipped default verifier (no entailment model), and
   beside the throughputs the quality `QUALITY.md` gives each method (the trade-off);
   and the start-up of a fresh process (import, `create_verifier()`, first answer;
   peak RSS after 10 answers; whether the entailment model was loaded), with the
   four speed targets. It runs this tree and, with `--base`, a checkout of the code
   before (`git worktree add /tmp/speed-base <commit>`) in the same run, and writes the
   tables to `SPEED.md`, with the load average before and after each side.

    .venv/bin/python benchmarks/bench_verifier.py [--data ../shared/data] [--runs 5]
        [--base /tmp/speed-base] [--sweep-only]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from speed_worker import STARTUP_ANSWERS, seed_method  # shared with the sweep

ROOT = Path(__file__).resolve().parents[1]

IMPORT_ONLY = """
import time
t0 = time.perf_counter()
import langchain_reliable
print(time.perf_counter() - t0)
"""

STARTUP = """
import resource, time
t0 = time.perf_counter()
from langchain_reliable import create_verifier
from langchain_reliable.verifiers.local import LocalVerifier
check = create_verifier(verifier=LocalVerifier(entailment=True))
check.invoke({"answer": "Paris is in France.", "passages": ["Paris is the capital of France."]})
t1 = time.perf_counter()
print(t1 - t0, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""

SEED_STARTUP = """
import resource, time
t0 = time.perf_counter()
from langchain_reliable.evidence.embeddings import LocalEmbeddings
emb = LocalEmbeddings()
v = emb.encode(["Paris is in France.", "Paris is the capital of France."])
bool((v[:1] @ v[1:].T).max() < 0.5)
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


def in_fresh_process(code: str) -> list[float]:
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout.split()
    return [float(x) for x in out]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--answers", type=int, default=20, help="answers per uncached run")
    parser.add_argument("--batch", type=int, default=100, help="answers per batch run (sweep)")
    parser.add_argument("--base", type=Path, help="checkout of the code to compare with")
    parser.add_argument("--sweep-only", action="store_true", help="only the cost sweep (4)")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "SPEED.md")
    parser.add_argument(
        "--render", action="store_true", help="re-write --out from the saved SPEED.json"
    )
    args = parser.parse_args()
    if args.sweep_only or args.render:
        sweep(args)
        return

    # 3. Start-up and memory first, while this process has loaded nothing.
    import_s, startup, rss, seed_startup, seed_rss = [], [], [], [], []
    for _ in range(args.runs):
        import_s.append(in_fresh_process(IMPORT_ONLY)[0])
        t, m = in_fresh_process(STARTUP)
        startup.append(t)
        rss.append(m)
        t, m = in_fresh_process(SEED_STARTUP)
        seed_startup.append(t)
        seed_rss.append(m)

    from langchain_reliable import create_verifier
    from langchain_reliable.evidence.embeddings import LocalEmbeddings
    from langchain_reliable.verifiers.local import LocalVerifier

    rng = random.Random(0)
    sets = load_passage_sets(args.data, args.answers * args.runs + 10)
    items = [(make_answer(p, rng), p) for p in sets]

    # 1. Nothing cached: each answer brings passages never seen, with the cache off.
    uncached = create_verifier(
        verifier=LocalVerifier(embeddings=LocalEmbeddings(cache_size=0), entailment=True)
    )
    lexical = create_verifier(
        verifier=LocalVerifier(embeddings=LocalEmbeddings(cache_size=0), entailment=False)
    )
    seed_embeddings = LocalEmbeddings(cache_size=0)
    uncached.invoke({"answer": items[-1][0], "passages": items[-1][1]})  # load the model
    lexical.invoke({"answer": items[-1][0], "passages": items[-1][1]})
    seed_method(seed_embeddings, *items[-2])
    ours_ms, lexical_ms, seed_ms = [], [], []
    for run in range(args.runs):
        chunk = items[run * args.answers : (run + 1) * args.answers]
        t0 = time.perf_counter()
        for answer, passages in chunk:
            uncached.invoke({"answer": answer, "context": passages})
        ours_ms.append((time.perf_counter() - t0) * 1000 / len(chunk))
        t0 = time.perf_counter()
        for answer, passages in chunk:
            lexical.invoke({"answer": answer, "context": passages})
        lexical_ms.append((time.perf_counter() - t0) * 1000 / len(chunk))
        t0 = time.perf_counter()
        for answer, passages in chunk:
            seed_method(seed_embeddings, answer, passages)
        seed_ms.append((time.perf_counter() - t0) * 1000 / len(chunk))

    # 2. Batch where passages recur (10 passage sets shared by 100 answers), cache on.
    verifier = LocalVerifier(embeddings=LocalEmbeddings(), entailment=True)
    cached = create_verifier(verifier=verifier)
    seed_cached = LocalEmbeddings()
    pool = sets[:10]
    warm = [{"answer": make_answer(p, rng), "context": p} for p in pool]
    cached.batch(warm)  # passages seen once, as in a running RAG system
    for b in warm:
        seed_method(seed_cached, b["answer"], b["context"])
    ours_cps, seed_cps = [], []
    for _ in range(args.runs):
        # New answers every run (claims never seen), over the same recurring passages.
        batch = [
            {"answer": make_answer(pool[i % 10], rng), "context": pool[i % 10]} for i in range(100)
        ]
        t0 = time.perf_counter()
        outs = cached.batch(batch)
        claims = sum(len(o["claims"]) for o in outs)
        ours_cps.append(claims / (time.perf_counter() - t0))
        t0 = time.perf_counter()
        seed_claims = sum(len(seed_method(seed_cached, b["answer"], b["context"])) for b in batch)
        seed_cps.append(seed_claims / (time.perf_counter() - t0))

    med = statistics.median
    print(
        f"inputs: {args.answers} answers x {args.runs} runs uncached; 100 answers x {args.runs} "
        "runs batched; 5 claims, 3 passages of ~500 tokens; medians over runs"
    )
    print(
        f"latency per answer without the entailment model (ms): {med(lexical_ms):.2f} "
        f"(the shipped verifier / it: {med(ours_ms) / med(lexical_ms):.2f})"
    )
    print(f"{'figure':<46}{'ours':>10}{'seed':>10}{'ratio':>8}{'target':>10}  met")
    rows = [
        ("latency per answer, nothing cached (ms)", med(ours_ms), med(seed_ms), "<=", 250),
        ("batch, passages recur (claims/s)", med(ours_cps), med(seed_cps), ">=", 100),
        ("import langchain_reliable (s)", med(import_s), None, "", None),
        ("import + model load + first answer (s)", med(startup), med(seed_startup), "<=", 3),
        ("peak RSS of that process (MB)", med(rss), med(seed_rss), "<=", 500),
    ]
    for name, ours, seed, op, target in rows:
        seed_text = f"{seed:>10.2f}" if seed is not None else f"{'':>10}"
        ratio = f"{ours / seed:>8.2f}" if seed else f"{'':>8}"
        goal = f"{op} {target}" if target is not None else ""
        met = ""
        if target is not None:
            met = "yes" if (ours <= target if op == "<=" else ours >= target) else "NO"
        print(f"{name:<46}{ours:>10.2f}{seed_text}{ratio}{goal:>10}  {met}")
    sweep(args)


def run_worker(
    code_root: Path, data: Path, runs: int, seed: bool = True, batch: int = 100
) -> dict[str, Any]:
    """The sweep of `speed_worker.py` with the package imported from `code_root`."""
    code_root = code_root.resolve()  # the worker runs there: a relative path would miss it
    env = {**os.environ, "PYTHONPATH": str(code_root)}
    imported = subprocess.run(
        [sys.executable, "-c", "import langchain_reliable; print(langchain_reliable.__file__)"],
        capture_output=True, text=True, check=True, env=env, cwd=code_root,
    ).stdout.strip()  # fmt: skip
    if not Path(imported).resolve().is_relative_to(code_root):
        raise SystemExit(f"the worker for {code_root} would import {imported}")
    out = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "speed_worker.py"),
            "--data",
            str(data.resolve()),  # the worker runs in `code_root`
            "--runs",
            str(runs),
            "--batch",
            str(batch),
            *([] if seed else ["--no-seed"]),
        ],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        cwd=code_root,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


QUALITY_COLUMNS = ("FaithBench bal. acc.", "WiCE dev, claim AUROC", "BEGIN dev, claim AUROC")
TRADEOFF_ROWS = (  # (batch row of this run, detector row of QUALITY.md)
    ("2 processes, 1 ONNX thread each", "langchain-reliable (local)"),
    ("seed", "Seed cosine (all-MiniLM-L6-v2)"),
    ("lexical baseline, no model, 1 thread", "Lexical baseline"),
)


def quality_rows(path: Path = ROOT / "benchmarks" / "QUALITY.md") -> dict[str, dict[str, str]]:
    """The detectors' figures in `QUALITY.md` (written by `scripts/quality_table.py`)."""
    rows: dict[str, dict[str, str]] = {}
    header: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        cells = [c.strip().strip("*") for c in line.strip().strip("|").split("|")]
        if cells[0] == "detector":
            header = cells
        elif header and len(cells) == len(header) and not cells[0].startswith("---"):
            rows[cells[0]] = dict(zip(header, cells, strict=True))
        elif header and not line.strip():
            break
    return rows


def tradeoff(batch: dict[str, dict[str, list[float]]]) -> list[str]:
    """Throughput beside quality: what the faster methods give up, and the floor's bound."""
    med = statistics.median
    ours = batch["ours"]
    quality = quality_rows()
    floor = ours.get("floor: encoding the claims alone, 2 processes")
    lines = [
        "",
        "Throughput against quality (claims/s from this run; quality from `QUALITY.md`, "
        "each method at its own threshold):",
        "",
        "| method | claims/s | " + " | ".join(QUALITY_COLUMNS) + " |",
        "| --- | ---: |" + " ---: |" * len(QUALITY_COLUMNS),
    ]
    for row, detector in TRADEOFF_ROWS:
        cells = [quality.get(detector, {}).get(c, "?") for c in QUALITY_COLUMNS]
        rate = f"{med(ours[row]):.0f}" if ours.get(row) else "?"
        lines.append(f"| {detector} ({row}) | {rate} | " + " | ".join(cells) + " |")
    if floor:
        lines += [
            "",
            f"Encoding each new claim once with the embedded model as the verifier runs it "
            f"(one text per model run, one thread per process), and nothing else, reaches "
            f"{med(floor):.0f} claims/s on both cores of this machine (`floor ... 2 processes`). "
            "The shipped verifier reaches "
            f"{med(ours['2 processes, 1 ONNX thread each']):.0f} claims/s, "
            f"{med(ours['2 processes, 1 ONNX thread each']) / med(floor):.0%} of that floor; the "
            "rest goes to the passage sentences a claim brings up for the first time, the "
            "meaning checks and claim extraction. The faster methods are the trade-off: the "
            "seed method (two ONNX threads) skips claim extraction, evidence selection and the "
            "checks, the lexical baseline the model too, and they lose the quality shown.",
        ]
    return lines


def commit_of(tree: Path) -> str:
    """The commit checked out in `tree` (short hash), or '' outside git."""
    found = subprocess.run(
        ["git", "-C", str(tree), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    return found.stdout.strip() if found.returncode == 0 else ""


def at(commits: dict[str, str], side: str) -> str:
    """' (at <commit>)' for a side whose commit was recorded, else ''."""
    return f" (at {commits[side]})" if commits.get(side) else ""


def _load(avg: list[float]) -> str:
    return "/".join(f"{x:.2f}" for x in avg)


TARGETS = (  # (figure, where the worker puts it, better when, target)
    ("one answer, nothing cached, 3 passages x 500 tokens (ms)", ("cases", "3x500"), "<=", 120),
    ("batch, 1 thread, passages recur, new claims (claims/s)", ("batch", "batch, 1 thread"),
     ">=", 120),
    ("cold start: import, create_verifier(), first answer (s)", ("startup", "cold start (s)"),
     "<=", 1.5),
    (f"peak RSS after {STARTUP_ANSWERS} answers (MB)", ("startup", "peak RSS (MB)"), "<=", 300),
)  # fmt: skip


def targets(sides: dict[str, dict[str, Any]]) -> list[str]:
    """The four speed targets, each side's median beside them, and each side's load."""
    med = statistics.median
    names = list(sides)
    lines = [
        "| target figure | " + " | ".join(names) + " | target | met (ours) |",
        "| --- |" + " ---: |" * len(names) + " ---: | --- |",
    ]
    for title, (part, key), op, goal in TARGETS:
        cells, ours = [], None
        for n in names:
            got = sides[n].get(part, {}).get(key)
            if isinstance(got, dict):
                got = got["ours"]
            value = med(got) * (1000 if part == "cases" else 1) if got else None
            cells.append(f"{value:.0f}" if value is not None and value >= 10 else
                         f"{value:.2f}" if value is not None else "?")  # fmt: skip
            ours = value if n == "ours" else ours
        met = "?" if ours is None else "NO"
        if ours is not None and (ours <= goal if op == "<=" else ours >= goal):
            met = "yes"
        lines.append(f"| {title} | " + " | ".join(cells) + f" | {op} {goal} | {met} |")
    cpu_rows = (
        ("one answer, nothing cached: CPU time (ms)", ("cases", "3x500", "cpu"), 1000),
        ("batch, 1 thread: claims per CPU second", ("batch cpu", "batch, 1 thread", None), 1),
        ("cold start: CPU time to the first verdicts (s)", ("startup", "cpu (s)", None), 1),
    )
    for title, (part, key, sub), scale in cpu_rows:
        cells = []
        for n in names:
            got = sides[n].get(part, {}).get(key)
            got = got.get(sub) if isinstance(got, dict) else got
            cells.append(f"{med(got) * scale:.2f}" if got else "?")
        lines.append(f"| {title} | " + " | ".join(cells) + " | | |")
    loaded = [sides[n].get("startup", {}).get("loaded") for n in names]
    lines.append(
        "| entailment model loaded in the start-up process (runs) | "
        + " | ".join(f"{sum(x)}/{len(x)}" if x else "?" for x in loaded)
        + " | | |"
    )
    loads = [
        f"`{n}` from {_load(sides[n]['load'][0])} to {_load(sides[n]['load'][1])}"
        for n in names
        if sides[n].get("load")
    ]
    if loads:
        lines += ["", "Load average (1/5/15 min) while each side ran: " + "; ".join(loads) + "."]
    return lines


def sweep(args: argparse.Namespace) -> None:
    """Run the cost sweep on this tree (and `--base`), print the tables, write `--out`."""
    raw = args.out.with_suffix(".json")
    if args.render:
        saved = json.loads(raw.read_text(encoding="utf-8"))
        sides, load_before, load_after = saved["sides"], saved["load_before"], saved["load_after"]
        commits = saved.get("commits", {})
    else:
        load_before = os.getloadavg()
        sides = {"ours": run_worker(ROOT, args.data, args.runs, batch=args.batch)}
        sides["ours"]["load"] = [load_before, os.getloadavg()]
        commits = {"ours": commit_of(ROOT)}
        if args.base is not None:
            started = os.getloadavg()
            sides["today"] = run_worker(args.base, args.data, args.runs, False, args.batch)
            sides["today"]["load"] = [started, os.getloadavg()]
            commits["today"] = commit_of(args.base)
        load_after = os.getloadavg()
        saved = {
            "sides": sides,
            "load_before": load_before,
            "load_after": load_after,
            "commits": commits,
        }
        raw.write_text(json.dumps(saved), encoding="utf-8")
    med = statistics.median
    names = list(sides)
    runs = len(next(iter(sides["ours"]["cases"].values()))["ours"])  # as saved, also on --render
    lines = [
        f"Medians of {runs} runs (every case once per round), fresh caches each run; "
        "5 claims per answer. "
        f"Load average (1/5/15 min) before: {_load(load_before)}, after: {_load(load_after)}"
        f"; {os.cpu_count()} cores.",
        "",
        *targets(sides),
        "",
        "| passages x tokens | " + " | ".join(f"{n} (ms)" for n in names) + " | seed (ms) |",
        "| --- | " + " | ".join("---:" for _ in names) + " | ---: |",
    ]
    cases = list(sides["ours"]["cases"])
    for case in cases:
        cells = [f"{med(sides[n]['cases'][case]['ours']) * 1000:.0f}" for n in names]
        seed = med(sides["ours"]["cases"][case]["seed"]) * 1000
        lines.append(f"| {case} | " + " | ".join(cells) + f" | {seed:.0f} |")
    lines += [
        "",
        "| ratio | " + " | ".join(names) + " | target |",
        "| --- |" + " ---: |" * (len(names) + 1),
    ]
    for label, num, den in (
        ("30 / 3 passages", "30x500", "3x500"),
        ("8,000 / 500 tokens", "3x8000", "3x500"),
    ):
        cells = [
            f"{med(sides[n]['cases'][num]['ours']) / med(sides[n]['cases'][den]['ours']):.2f}"
            for n in names
        ]
        lines.append(f"| {label} | " + " | ".join(cells) + " | <= 3 |")
    lines += ["", "| batch, passages recur, new claims (claims/s) | " + " | ".join(names) + " |"]
    lines.append("| --- |" + " ---: |" * len(names))
    for row in sides["ours"]["batch"]:
        cells = [
            f"{med(sides[n]['batch'][row]):.0f}" if sides[n]["batch"].get(row) else ""
            for n in names
        ]
        lines.append(f"| {row} | " + " | ".join(cells) + " |")
    lines += tradeoff({n: sides[n]["batch"] for n in names})
    table = "\n".join(lines)
    print(table)
    args.out.write_text(
        "# Verifier speed\n\nWritten by `benchmarks/bench_verifier.py` (section 4 of its "
        f"docstring).\n`ours` is this tree's shipped default verifier (`LocalVerifier()`)"
        f"{at(commits, 'ours')}; `today` is the tree given with `--base`{at(commits, 'today')}; "
        "`seed` is the seed method (max cosine of claim and "
        "whole-passage embeddings). Batch rows: `batch` runs answers one after another in one "
        "thread, `abatch` two at a time in threads, `2 processes` splits each run between two "
        "worker processes (as `reliable-rag batch` does); the floor is the ONNX encoding of the "
        "new claims alone, in one process or split between two.\n\n" + table + "\n",
        encoding="utf-8",
    )


if __name__ == "__main__":
    main()
