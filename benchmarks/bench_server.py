"""Load and liveness of the LangServe app, served by uvicorn on loopback.

Starts `uvicorn langchain_reliable.server:app` in a subprocess on a free port
(offline demo graphs, embedded verifier), then measures:

- load: `--clients` concurrent clients each send `--requests` requests to
  `/verify/invoke` (realistic answers of one to five sentences, some with an
  unsupported claim); errors, throughput and p50/p99 latency;
- liveness: `/health` latency, polled every 50 ms while `--heavy` pathological
  answers (``"a. " * 7000``, 21 KB each; 8 by default) are verified at once;
  target p99 < 200 ms.

Timings on a shared machine vary; the load average is printed alongside.

    python benchmarks/bench_server.py [--clients 8] [--requests 50] [--json out.json]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"
TIMEOUT = httpx.Timeout(120.0, connect=5.0)

PASSAGES = [
    "The Treaty of Versailles was signed on 28 June 1919 in the Hall of Mirrors. "
    "It came into force on 10 January 1920.",
    "Aspirin (acetylsalicylic acid) irreversibly inhibits the enzymes COX-1 and COX-2. "
    "It is used to reduce pain, fever and inflammation, and in low doses to prevent "
    "heart attacks.",
    "Metformin is a first-line medication for type 2 diabetes. The maximum daily dose "
    "is 2550 mg, taken in divided doses with meals.",
    "The Eiffel Tower is 330 metres tall. It was completed in 1889 for the World's Fair "
    "and was designed by the engineering company of Gustave Eiffel.",
]
ANSWERS = [
    "The Treaty of Versailles was signed on 28 June 1919.",
    "The Treaty of Versailles was signed on 28 June 1919 in the Hall of Mirrors. "
    "It came into force on 10 January 1920. Germany paid $442 billion in reparations.",
    "Aspirin inhibits the enzymes COX-1 and COX-2. It is used to reduce pain, fever and "
    "inflammation. In low doses it helps prevent heart attacks.",
    "Metformin is a first-line medication for type 2 diabetes. The maximum daily dose is 5000 mg.",
    "The Eiffel Tower is 330 metres tall. It was completed in 1889 for the World's Fair. "
    "It was designed by the company of Gustave Eiffel. It is painted gold every year. "
    "About seven million people visit it each year.",
]
QUESTIONS = ["When was it signed?", "", "How does aspirin work?", "What is the dose?", ""]
PATHOLOGICAL = "a. " * 7000


def free_port() -> int:
    """A TCP port on loopback that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def start(port: int, log: Path) -> subprocess.Popen:
    """Start the server and wait (90 s at most) until `/health` answers."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RELIABLE_RAG_")}
    env.update(
        LANGSMITH_TRACING="false",
        LANGCHAIN_TRACING_V2="false",
        NO_PROXY="127.0.0.1,localhost",
        PYTHONPATH=os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p),
    )
    cmd = [sys.executable, "-m", "uvicorn", "langchain_reliable.server:app"]
    cmd += ["--host", HOST, "--port", str(port), "--log-level", "warning"]
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            cmd, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    deadline = time.monotonic() + 90
    with httpx.Client(trust_env=False, timeout=5.0) as http:
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"server exited: {log.read_text()[-2000:]}")
            try:
                if http.get(f"http://{HOST}:{port}/health").status_code == 200:
                    return proc
            except httpx.HTTPError:
                pass
            time.sleep(0.25)
    stop(proc)
    raise RuntimeError(f"server not up after 90 s: {log.read_text()[-2000:]}")


def stop(proc: subprocess.Popen) -> None:
    """Stop the server's process group: SIGTERM, then SIGKILL after 15 s."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=15)


def percentile(values: list[float], q: float) -> float:
    """The `q`-th percentile (0-100) by nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))]


def load(base: str, clients: int, requests: int) -> dict[str, Any]:
    """`clients` threads, each with its own connection, send `requests` verify calls."""
    inputs = [
        {"answer": a, "passages": PASSAGES, "question": q}
        for a, q in zip(ANSWERS, QUESTIONS, strict=True)
    ]

    def client(index: int) -> tuple[list[float], list[str]]:
        latencies, errors = [], []
        cycle = itertools.islice(itertools.cycle(inputs), index, None)
        with httpx.Client(base_url=base, timeout=TIMEOUT, trust_env=False) as http:
            for body in itertools.islice(cycle, requests):
                begin = time.perf_counter()
                try:
                    r = http.post("/verify/invoke", json={"input": body})
                    if r.status_code != 200 or "claims" not in r.json()["output"]:
                        errors.append(f"{r.status_code}: {r.text[:200]}")
                except (httpx.HTTPError, ValueError, KeyError) as exc:
                    errors.append(f"{type(exc).__name__}: {exc}")
                latencies.append((time.perf_counter() - begin) * 1000)
        return latencies, errors

    begin = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        results = list(pool.map(client, range(clients)))
    wall = time.perf_counter() - begin
    latencies = [x for lat, _ in results for x in lat]
    errors = [e for _, errs in results for e in errs]
    return {
        "requests": len(latencies),
        "errors": len(errors),
        "first_errors": errors[:3],
        "requests_per_s": round(len(latencies) / wall, 1),
        "p50_ms": round(percentile(latencies, 50), 1),
        "p99_ms": round(percentile(latencies, 99), 1),
        "max_ms": round(max(latencies), 1),
    }


def liveness(base: str, heavy: int = 8) -> dict[str, Any]:
    """Poll `/health` every 50 ms while `heavy` pathological answers are verified at once."""
    outcomes: list[dict[str, Any]] = []

    def one() -> None:
        begin = time.perf_counter()
        with httpx.Client(base_url=base, timeout=TIMEOUT, trust_env=False) as http:
            body = {"answer": PATHOLOGICAL, "passages": PASSAGES[:1]}
            r = http.post("/verify/invoke", json={"input": body})
        outcomes.append({"status": r.status_code, "seconds": time.perf_counter() - begin})

    workers = [threading.Thread(target=one) for _ in range(heavy)]
    health: list[float] = []
    with httpx.Client(base_url=base, timeout=TIMEOUT, trust_env=False) as http:
        http.get("/health")  # open the connection first
        for worker in workers:
            worker.start()
        time.sleep(0.2)  # let the requests reach the verifier
        while any(worker.is_alive() for worker in workers):
            begin = time.perf_counter()
            http.get("/health").raise_for_status()
            health.append((time.perf_counter() - begin) * 1000)
            time.sleep(0.05)
    for worker in workers:
        worker.join()
    return {
        "pathological_requests": heavy,
        "pathological_status": sorted({o["status"] for o in outcomes}),
        "pathological_s_max": round(max(o["seconds"] for o in outcomes), 2),
        "health_polls": len(health),
        "health_p50_ms": round(statistics.median(health), 1) if health else None,
        "health_p99_ms": round(percentile(health, 99), 1) if health else None,
        "health_max_ms": round(max(health), 1) if health else None,
    }


def main() -> None:
    """Run both measurements and print them (and write `--json`)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--requests", type=int, default=50, help="per client")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    parser.add_argument(
        "--heavy", type=int, default=8, help="pathological answers verified at once (liveness)"
    )
    args = parser.parse_args()
    port = free_port()
    with tempfile.TemporaryDirectory() as work:
        proc = start(port, Path(work) / "server.log")
        try:
            base = f"http://{HOST}:{port}"
            figures = {
                "load_average": [round(x, 2) for x in os.getloadavg()],
                "cpus": os.cpu_count(),
                "load": load(base, args.clients, args.requests),
                "liveness": liveness(base, args.heavy),
            }
        finally:
            stop(proc)
    text = json.dumps(figures, indent=2)
    print(text)
    if args.json is not None:
        args.json.write_text(text + "\n", "utf-8")


if __name__ == "__main__":
    main()
