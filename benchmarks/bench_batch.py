"""Batch verification at scale: flat memory, throughput, resume after kill -9, Ray 2 vs 1 worker.

Synthetic answers are built from the records in ``../shared/data/*.jsonl`` (never copied
into the repo): row i takes record i's answer and question and sets them against that
record's passages plus one passage of another record, at a random place (seeded), so
passages recur across rows as they do in real corpora while no two contexts need match.

    PYTHONPATH=. python benchmarks/bench_batch.py --answers 100000 --kill-at 5000 \
        --ray-answers 10000 --ray-runs 3 [--base /tmp/batch-base] --work /tmp/bench-batch

`--base` runs a checkout of earlier code (`git worktree add /tmp/batch-base <commit>`)
beside this tree in the Ray comparison, every run of each in turn (`ray_base` in the
results).

Before each Ray round, `machine_ceiling` measures what two cores of this machine give
this workload with no engine at all: the same answers verified from empty caches by
one process alone, then by two processes at once (each one model thread, models
loaded beforehand). Two busy cores run slower each than one busy core does (shared
caches and memory bandwidth, or a host's hyperthreads), so 2× is out of reach on any
engine; the Ray speed-up is given beside that ceiling.

Peak RSS is sampled every 0.25 s (Ray runs: every second) over the job's process tree
(the CLI and its workers, or the Ray driver, raylet and actors: every process started
under the job), summed;
`peak_rss_mb_at` gives the peak up to the moment the output reached 1k, 10k and 100k
lines (a resumed run counts the lines written before the kill).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from itertools import islice
from multiprocessing import get_context
from pathlib import Path

import psutil

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
REPO = Path(__file__).resolve().parents[1]


def build_input(path: Path, answers: int, seed: int = 0) -> None:
    records = []
    for file in sorted(DATA.glob("*.jsonl")):
        with file.open(encoding="utf-8") as handle:
            records.extend(json.loads(line) for line in handle if line.strip())
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8") as out:
        for i in range(answers):
            base = records[i % len(records)]
            other = rng.choice(records)["context"]
            context = list(base["context"])
            if other:
                context.insert(rng.randint(0, len(context)), rng.choice(other))
            row = {"id": f"syn-{i}", "question": base.get("question", ""), "answer": base["answer"]}
            out.write(json.dumps({**row, "context": context}) + "\n")


def tree_rss(proc: psutil.Process) -> int:
    total = 0
    try:
        procs = [proc, *proc.children(recursive=True)]
    except psutil.NoSuchProcess:
        return 0
    for p in procs:
        try:
            total += p.memory_info().rss
        except psutil.NoSuchProcess:
            continue
    return total


def lines(path: Path) -> int:
    if not path.exists():
        return 0
    with path.open("rb") as handle:
        return sum(chunk.count(b"\n") for chunk in iter(lambda: handle.read(1 << 20), b""))


class LineCounter:
    """Lines of a growing file, reading only what was appended since the last look."""

    def __init__(self, path: Path) -> None:
        self.path, self.offset, self.count = path, 0, 0

    def __call__(self) -> int:
        if not self.path.exists():
            return self.count
        with self.path.open("rb") as handle:
            handle.seek(self.offset)
            while chunk := handle.read(1 << 20):
                self.count += chunk.count(b"\n")
                self.offset += len(chunk)
        return self.count


def run_job(
    args: list[str],
    out: Path,
    *,
    kill_at: int = 0,
    marks: tuple[int, ...] = (),
    tree: Path = REPO,
    every: float = 0.25,
) -> dict:
    """Run `reliable-rag batch` of `tree`; RSS every `every` s; kill -9 at `kill_at` lines."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    cmd = [sys.executable, "-m", "langchain_reliable.cli", "batch", *args, "--no-progress"]
    start = time.perf_counter()
    job = subprocess.Popen(
        cmd, cwd=tree, env=env, start_new_session=True, stdout=subprocess.PIPE, text=True
    )
    proc = psutil.Process(job.pid)
    peak, at_mark, killed = 0, {}, False
    count = LineCounter(out)
    marks = tuple(m for m in marks if m > count())  # a resumed run: only marks still ahead
    while job.poll() is None:
        peak = max(peak, tree_rss(proc))
        done = count()
        for mark in marks:
            if done >= mark and mark not in at_mark:
                at_mark[mark] = peak
        if kill_at and done >= kill_at:
            os.killpg(job.pid, signal.SIGKILL)
            killed = True
            break
        time.sleep(every)
    job.wait()
    summary = job.stdout.read().strip() if job.stdout else ""
    if not killed:
        for mark in marks:
            at_mark.setdefault(mark, peak)  # reached between the last sample and the exit
    return {
        "seconds": round(time.perf_counter() - start, 1),
        "peak_rss_mb": round(peak / 2**20),
        "peak_rss_mb_at": {str(k): round(v / 2**20) for k, v in at_mark.items()},
        "killed": killed,
        "lines": lines(out),
        "summary": summary,
        "exit": job.returncode,
    }


_CHECK = None


def _ceiling_init() -> None:
    """A ceiling worker: one model thread, the default verifier built once."""
    global _CHECK
    os.environ["OMP_NUM_THREADS"] = "1"
    from langchain_reliable.batch.work import GraphRecipe

    _CHECK = GraphRecipe().build()


def _ceiling_pass(rows: list[dict]) -> int:
    """Verify `rows` from empty caches, so that every pass does the same work; the claims."""
    from langchain_reliable.evidence.embeddings import default_embeddings
    from langchain_reliable.evidence.index import index_cache

    default_embeddings().clear_cache()
    index_cache.clear()
    return sum(len(_CHECK.invoke(row)["claims"]) for row in rows)


def machine_ceiling(pools: list[ProcessPoolExecutor], rows: list[dict]) -> dict:
    """Two processes at once against one alone on the same rows: what this machine allows."""
    alone = []
    for pool in pools:
        start = time.perf_counter()
        pool.submit(_ceiling_pass, rows).result()
        alone.append(time.perf_counter() - start)
    start = time.perf_counter()
    for future in [pool.submit(_ceiling_pass, rows) for pool in pools]:
        future.result()
    both = time.perf_counter() - start
    return {"alone_s": [round(a, 2) for a in alone], "both_s": round(both, 2),
            "speedup": round(2 * statistics.mean(alone) / both, 3)}  # fmt: skip


def check_output(out: Path, answers: int) -> dict:
    ids, claims, errors = set(), 0, 0
    repeated = 0
    with out.open(encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            repeated += record["id"] in ids
            ids.add(record["id"])
            claims += len(record.get("claims") or [])
            errors += "error" in record
    return {"ids": len(ids), "all_ids_once": len(ids) == answers and not repeated,
            "claims": claims, "errors": errors}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--answers", type=int, default=10000)
    parser.add_argument("--kill-at", type=int, default=0, help="kill -9 at this many lines")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--ray-answers", type=int, default=0, help="Ray 1 vs 2 workers on N")
    parser.add_argument("--ray-runs", type=int, default=3, help="runs of each, for medians")
    parser.add_argument(
        "--ceiling-answers", type=int, default=200, help="answers per machine-ceiling pass"
    )
    parser.add_argument(
        "--base", type=Path, default=None, help="a checkout of earlier code, run beside this one"
    )
    parser.add_argument("--work", type=Path, default=Path("/tmp/bench-batch"))
    parser.add_argument("--results", type=Path, default=None)
    opts = parser.parse_args()
    opts.work.mkdir(parents=True, exist_ok=True)
    results: dict = {"cpus": os.cpu_count(), "answers": opts.answers}
    report = opts.results or opts.work / f"results-{opts.answers}.json"

    def save() -> None:
        report.write_text(json.dumps(results, indent=2))
        print(json.dumps(results, indent=2), flush=True)

    source = opts.work / f"in-{opts.answers}.jsonl"
    if not source.exists():
        build_input(source, opts.answers)
    out = opts.work / f"out-{opts.answers}.jsonl"
    out.unlink(missing_ok=True)
    common = [str(source), str(out), "--workers", str(opts.workers)]
    marks = tuple(m for m in (1000, 10000, 100000) if m <= opts.answers)
    runs = []
    if opts.kill_at:
        runs.append(run_job(common, out, kill_at=opts.kill_at, marks=marks))
    runs.append(run_job(common, out, marks=marks))
    results["local"] = {"runs": runs, **check_output(out, opts.answers)}
    seconds = sum(r["seconds"] for r in runs)
    results["local"]["answers_per_s"] = round(opts.answers / seconds, 1)
    results["local"]["claims_per_s"] = round(results["local"]["claims"] / seconds, 1)
    save()
    if opts.ray_answers:
        ray_in = opts.work / f"in-{opts.ray_answers}.jsonl"
        if not ray_in.exists():
            build_input(ray_in, opts.ray_answers)
        trees = {"ray": REPO, **({"ray_base": opts.base.resolve()} if opts.base else {})}
        runs: dict = {
            name: {"runs": opts.ray_runs, "tree": str(tree)} for name, tree in trees.items()
        }
        with ray_in.open(encoding="utf-8") as handle:
            probe = [
                {k: row[k] for k in ("question", "answer", "context")}
                for row in map(json.loads, islice(handle, opts.ceiling_answers))
            ]
        spawn = get_context("spawn")
        pools = [ProcessPoolExecutor(1, spawn, _ceiling_init) for _ in range(2)]
        for pool in pools:  # models loaded, code warm
            pool.submit(_ceiling_pass, probe[:20]).result()
        ceilings = []
        for _ in range(opts.ray_runs):  # every tree and worker count in turn: drift hits all alike
            ceilings.append(machine_ceiling(pools, probe))
            for name, tree in trees.items():
                for workers in (1, 2):
                    ray_out = opts.work / f"{name}-{opts.ray_answers}-{workers}.jsonl"
                    ray_out.unlink(missing_ok=True)
                    args = [str(ray_in), str(ray_out), "--engine", "ray", "--workers", str(workers)]
                    # RSS each second: sampling a dozen Ray processes takes CPU from the job
                    job = run_job(args, ray_out, tree=tree, every=1.0)
                    job["all_ids_once"] = check_output(ray_out, opts.ray_answers)["all_ids_once"]
                    runs[name].setdefault(f"workers_{workers}", []).append(job)
        for pool in pools:
            pool.shutdown()
        ceiling = statistics.median(c["speedup"] for c in ceilings)
        results["machine_ceiling"] = {"answers": len(probe), "runs": ceilings,
                                      "median_speedup": round(ceiling, 2)}  # fmt: skip
        for name, ray in runs.items():
            seconds = {w: [job["seconds"] for job in ray[f"workers_{w}"]] for w in (1, 2)}
            ray["median_seconds"] = {w: statistics.median(s) for w, s in seconds.items()}
            ray["speedup_2_vs_1"] = round(ray["median_seconds"][1] / ray["median_seconds"][2], 2)
            ray["speedup_per_run"] = [
                round(a / b, 2) for a, b in zip(seconds[1], seconds[2], strict=True)
            ]
            ray["share_of_ceiling"] = round(ray["speedup_2_vs_1"] / ceiling, 2)
            results[name] = ray
        save()


if __name__ == "__main__":
    main()
