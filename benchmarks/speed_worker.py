"""One side of the verifier speed benchmark, run in its own process (see `bench_verifier.py`).

The package is imported from `PYTHONPATH`, so the same inputs (written by the driver:
paraphrased answers, `paraphrased.py`) run against this tree and against a checkout of an
earlier commit. `--verifier` names the verifier spec (`get_verifier`); empty: the tree's
default. Prints one JSON object:

- `startup`: fresh processes (import, `create_verifier(...)`, first answer), after one
  untimed start that builds the model where the tree builds one: seconds, CPU seconds,
  peak RSS after `startup` answers;
- `one`: per answer, nothing cached (a new verifier, every cache emptied): wall and CPU
  seconds, claims, claims the entailment model read, pairs it ran;
- `batch`: for each way of running a batch, per run, claims/s over passage sets that
  recur (seen once before the run by an answer copied from them) with claims that run has
  not read, and the claims the model read.

    PYTHONPATH=. python benchmarks/speed_worker.py --inputs INPUTS.json [--verifier fast]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import time
from typing import Any

COLD_START = """
import json, resource, sys, time
t0 = time.perf_counter()
from langchain_reliable import create_verifier
check = create_verifier(verifier=sys.argv[1]) if sys.argv[1] else create_verifier()
answers = json.loads(sys.stdin.read())
check.invoke(answers[0])
cold = time.perf_counter() - t0
used = resource.getrusage(resource.RUSAGE_SELF)
cpu = used.ru_utime + used.ru_stime
for item in answers[1:]:
    check.invoke(item)
hwm = next(line for line in open("/proc/self/status") if line.startswith("VmHWM"))
print(json.dumps([cold, int(hwm.split()[1]) / 1024, cpu]))
"""

READ: set[str] = set()
"""Claim texts the entailment model was asked about (by the verifier or its rules)."""


def inputs_of(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What the graph takes: the answer and its passages."""
    return [{"answer": i["answer"], "passages": i["passages"]} for i in items]


def new_verifier(spec: str) -> Any:
    """A verifier of `spec` with every cache the tree has emptied (the model stays loaded)."""
    from langchain_reliable.verifiers import get_verifier

    verifier = get_verifier(spec or None)
    verifier.selector.embeddings.clear_cache()
    model = getattr(verifier, "entailment", None)
    if model is not None:
        model.clear_cache()  # the pairs read so far
        if not getattr(model, "_counted", False):  # count the claims it is asked about
            judge = model.judge

            def counted(claims: Any, passages: Any) -> Any:
                READ.update(claims)
                return judge(claims, passages)

            model.judge, model._counted = counted, True
    from langchain_reliable.evidence.index import index_cache

    index_cache.clear()
    try:  # the parsed texts, where the tree parses (the pipeline itself stays loaded)
        from langchain_reliable.reading.parse import parsed
    except ImportError:  # a tree from before the parse
        pass
    else:
        parsed.cache_clear()
    return verifier


def pairs_run(verifier: Any) -> int:
    """Pairs the verifier's entailment model has run in this process (0 without a model)."""
    model = getattr(verifier, "entailment", None)
    return int(getattr(getattr(model, "reader", None), "pairs_run", 0))


def verify(graph: Any, verifier: Any, items: list[dict[str, Any]], **config: Any) -> dict:
    """Verify `items` in one `batch` call: wall and CPU seconds, claims, claims read, pairs."""
    READ.clear()
    pairs = pairs_run(verifier)
    gc.collect()  # no collection of earlier garbage inside the timed call
    t0, c0 = time.perf_counter(), time.process_time()
    if len(items) == 1:
        outs = [graph.invoke(inputs_of(items)[0])]
    else:
        outs = graph.batch(inputs_of(items), config=config or None)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    claims = [c["text"] for o in outs for c in o["claims"]]
    copies = sum(bool((c.get("keys") or {}).get("exact_copy")) for o in outs for c in o["claims"])
    return {
        "s": wall,
        "cpu": cpu,
        "claims": len(claims),
        "read": sum(c in READ for c in claims),
        "pairs": pairs_run(verifier) - pairs,
        "copies": copies,
        "verifier": outs[0].get("verifier"),
    }


_SIDE: dict[str, Any] = {}


def serve(spec: str) -> None:
    """A batch worker process (`--serve`): one onnxruntime thread, as it shares the cores.

    Reads one JSON request a line on stdin: `{"reset": items}` makes a new verifier with
    caches emptied and sees the recurring passages once (answers of other claims);
    `{"verify": items}` verifies them one after another. Answers one JSON line each.
    """
    os.environ["OMP_NUM_THREADS"] = "1"  # before the package is imported
    from langchain_reliable import create_verifier

    for line in sys.stdin:
        request = json.loads(line)
        if "reset" in request:
            verifier = new_verifier(spec)
            graph = create_verifier(verifier=verifier)
            graph.batch(inputs_of(request["reset"]), config={"max_concurrency": 1})
            _SIDE["verifier"], _SIDE["graph"] = verifier, graph
            got: dict[str, Any] = {}
        else:
            got = verify(_SIDE["graph"], _SIDE["verifier"], request["verify"], max_concurrency=1)
        print(json.dumps(got), flush=True)


def _ask(workers: list[subprocess.Popen], requests: list[dict[str, Any]]) -> list[dict]:
    """Send each worker its request, then wait for every answer."""
    for worker, request in zip(workers, requests, strict=True):
        worker.stdin.write(json.dumps(request) + "\n")
        worker.stdin.flush()
    return [json.loads(worker.stdout.readline()) for worker in workers]


def cold_start(spec: str, answers: list[dict[str, Any]]) -> tuple[float, float, float]:
    """(seconds to the first verdicts, peak RSS in MB, CPU seconds) of a fresh process."""
    out = subprocess.run(
        [sys.executable, "-c", COLD_START, spec],
        input=json.dumps(inputs_of(answers)),
        capture_output=True,
        text=True,
        check=True,
        env=os.environ,
    ).stdout
    cold, rss, cpu = json.loads(out.strip().splitlines()[-1])
    return float(cold), float(rss), float(cpu)


def in_processes(
    spec: str, n: int, warm: list[dict[str, Any]], batches: list[list[dict[str, Any]]]
) -> list[dict]:
    """Each run split between `n` worker processes (`serve`) of one onnxruntime thread each."""
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    command = [sys.executable, __file__, "--serve", "--verifier", spec]
    workers = [
        subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        for _ in range(n)
    ]
    runs = []
    try:
        for items in batches:
            _ask(workers, [{"reset": warm}] * n)
            t0 = time.perf_counter()
            got = _ask(workers, [{"verify": items[i::n]} for i in range(n)])
            wall = time.perf_counter() - t0
            runs.append({k: sum(g[k] for g in got) for k in ("claims", "read", "pairs", "cpu")})
            runs[-1]["s"] = wall
    finally:
        for worker in workers:
            worker.stdin.close()
            worker.wait()
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", help="the driver's inputs (JSON)")
    parser.add_argument("--verifier", default="", help="verifier spec; empty: the default")
    parser.add_argument("--serve", action="store_true", help="be a batch worker (stdin)")
    args = parser.parse_args()
    if args.serve:
        serve(args.verifier)
        return
    with open(args.inputs, encoding="utf-8") as fh:
        given = json.load(fh)
    spec = args.verifier
    out: dict[str, Any] = {"startup": [], "one": [], "batch": {}}
    cold_start(spec, given["startup"][:1])  # builds the model where needed; not counted
    for _ in range(len(given["one"])):  # first, before this process holds anything
        out["startup"].append(cold_start(spec, given["startup"]))

    from langchain_reliable import create_verifier

    warm = new_verifier(spec)  # loads the models: the first answer of a process is not timed
    create_verifier(verifier=warm).invoke(inputs_of(given["startup"][:1])[0])
    for run in given["one"]:
        times = []
        for item in run:
            verifier = new_verifier(spec)
            times.append(verify(create_verifier(verifier=verifier), verifier, [item]))
        out["one"].append(times)

    warm_items, batches = given["warm"], given["batches"]
    out["batch"]["one core: 1 process, 1 onnxruntime thread"] = in_processes(
        spec, 1, warm_items, batches
    )
    out["batch"]["all cores: 2 processes, 1 onnxruntime thread each"] = in_processes(
        spec, 2, warm_items, batches
    )
    runs = []
    for items in batches:  # as a user calls it: one process, LangChain's own thread pool
        verifier = new_verifier(spec)
        graph = create_verifier(verifier=verifier)
        graph.batch(inputs_of(warm_items), config={"max_concurrency": 1})
        runs.append(verify(graph, verifier, items))
    out["batch"]["graph.batch(), default config, one process"] = runs
    print(json.dumps(out))


if __name__ == "__main__":
    main()
