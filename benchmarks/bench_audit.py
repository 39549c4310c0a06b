"""The audit log under load and under `kill -9`: records written vs found, and time.

Two runs, in real processes writing to one log:

- contention: P processes x N records of S bytes each (8 x 200 x 200 KB by
  default), with the writer's default lock budget; records whose write returned
  vs records found in the chain and spill files, spilled count, verification, time;
- kill: R runs (20 by default) of W writers, K of which get SIGKILL at a random
  moment; every record whose write returned must be found, and verification may
  report only damage (torn lines, unfinished spills), never tampering.

    python benchmarks/bench_audit.py [--processes 8 --records 200 --size 200000]
        [--kill-runs 20] [--only contention|kill]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from langchain_reliable.audit import AuditLog, verify_chain

ROOT = Path(__file__).resolve().parents[1]


def writer_main(path: str, tag: str, count: int, size: int, lock_timeout: float | None) -> None:
    """One writer process: print each tag whose write returned True."""
    logging.getLogger("langchain_reliable.audit").setLevel(logging.ERROR)  # spills are expected
    log = AuditLog(path) if lock_timeout is None else AuditLog(path, lock_timeout=lock_timeout)
    pad = "x" * size
    for number in range(count):
        if log.write({"question": f"{tag}-{number}", "pad": pad}):
            sys.stdout.write(f"{tag}-{number}\n")
            sys.stdout.flush()


def spawn(path: Path, tag: str, count: int, size: int, lock_timeout: float | None):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, __file__, "--writer", str(path), tag, str(count), str(size)]
    if lock_timeout is not None:
        argv.append(str(lock_timeout))
    return subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, env=env)


def _records(*files: Path):
    """The whole JSON records of some JSONL files (torn lines skipped)."""
    for file in files:
        with open(file, "rb") as fh:
            for raw in fh:
                try:
                    yield json.loads(raw)
                except ValueError:
                    continue


def found_tags(path: Path) -> Counter[str]:
    """Tags of the whole records in the log and its spill files."""
    spills = path.parent.glob(f"{path.name}.spill-*.jsonl")
    return Counter(r["question"] for r in _records(path, *spills) if "question" in r)


def contention(processes: int, records: int, size: int, lock_timeout: float | None) -> bool:
    folder = Path(tempfile.mkdtemp(prefix="bench-audit-"))
    path = folder / "audit.jsonl"
    start = time.perf_counter()
    writers = [spawn(path, f"p{p}", records, size, lock_timeout) for p in range(processes)]
    returned = [tag for w in writers for tag in w.communicate()[0].split()]
    elapsed = time.perf_counter() - start
    found = found_tags(path)
    start = time.perf_counter()
    check = verify_chain(path)
    verify_s = time.perf_counter() - start
    AuditLog(path).fold()
    after = verify_chain(path)
    via_spill = sum(1 for r in _records(path) if "spill_id" in r)
    lost = set(returned) - set(found)
    print(
        f"contention: {processes} processes x {records} records x {size // 1000} KB, "
        f"lock budget {lock_timeout or 'default'} s"
    )
    print(f"  written (write returned): {len(returned)} of {processes * records}")
    print(
        f"  found: {sum(found.values())} (chain {check.records}, in spill files {check.spilled}; "
        f"{via_spill} went through a spill file)"
    )
    print(f"  lost: {len(lost)}  duplicated: {sum(1 for n in found.values() if n > 1)}")
    print(f"  write time {elapsed:.1f} s ({len(returned) / elapsed:.0f} records/s)")
    print(
        f"  verify: ok={check.ok}, {verify_s:.1f} s; after fold: ok={after.ok}, "
        f"{after.records} chained, {after.spilled} spilled"
    )
    for folder_file in folder.iterdir():
        folder_file.unlink()
    folder.rmdir()
    return not lost and len(returned) == processes * records and check.ok and after.ok


def kill_runs(runs: int, writers: int, killed: int, records: int, size: int, budget: float) -> bool:
    totals = Counter()
    kinds: Counter[str] = Counter()
    start = time.perf_counter()
    for run in range(runs):
        folder = Path(tempfile.mkdtemp(prefix="bench-audit-kill-"))
        path = folder / "audit.jsonl"
        procs = [spawn(path, f"r{run}w{w}", records, size, budget) for w in range(writers)]
        time.sleep(random.uniform(0.05, 0.5))
        for victim in random.sample(procs, killed):
            time.sleep(random.uniform(0, 0.2))
            victim.send_signal(signal.SIGKILL)
        returned = [tag for p in procs for tag in p.communicate()[0].split()]
        AuditLog(path, lock_timeout=budget).fold()  # a later writer folds what was spilled
        check = verify_chain(path)
        lost = set(returned) - set(found_tags(path))
        via_spill = sum(1 for r in _records(path) if "spill_id" in r)
        totals.update(
            returned=len(returned), lost=len(lost), chained=check.records, via_spill=via_spill
        )
        kinds.update(p.kind for p in check.problems)
        for file in folder.iterdir():
            file.unlink()
        folder.rmdir()
    elapsed = time.perf_counter() - start
    print(
        f"kill -9: {runs} runs of {writers} writers x {records} records x {size // 1000} KB, "
        f"{killed} killed per run, lock budget {budget} s"
    )
    print(
        f"  written (write returned): {totals['returned']}  found: {totals['chained']} chained "
        f"({totals['via_spill']} of them through a spill file)"
    )
    print(f"  lost: {totals['lost']}")
    print(f"  problems reported: {dict(kinds) or 'none'}  time {elapsed:.1f} s")
    return totals["lost"] == 0 and set(kinds) <= {"damaged"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=8)
    parser.add_argument("--records", type=int, default=200)
    parser.add_argument("--size", type=int, default=200_000)
    parser.add_argument("--lock-timeout", type=float, default=None)
    parser.add_argument("--kill-runs", type=int, default=20)
    parser.add_argument("--kill-writers", type=int, default=8)
    parser.add_argument("--killed", type=int, default=3)
    parser.add_argument("--kill-records", type=int, default=60)
    parser.add_argument("--kill-size", type=int, default=50_000)
    parser.add_argument("--kill-lock-timeout", type=float, default=0.05)
    parser.add_argument("--only", choices=["contention", "kill"])
    args = parser.parse_args()
    good = True
    if args.only in (None, "kill"):
        good &= kill_runs(
            args.kill_runs,
            args.kill_writers,
            args.killed,
            args.kill_records,
            args.kill_size,
            args.kill_lock_timeout,
        )
    if args.only in (None, "contention"):
        good &= contention(args.processes, args.records, args.size, args.lock_timeout)
    return 0 if good else 1


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--writer":
        path, tag, count, size, *budget = sys.argv[2:]
        writer_main(path, tag, int(count), int(size), float(budget[0]) if budget else None)
    else:
        sys.exit(main())
