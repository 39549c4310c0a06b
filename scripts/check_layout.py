"""Check the package's layout: layers, import cycles and module sizes.

Each module belongs to a layer (`LAYERS`, lowest first); a module may import from
its own layer and those below, never from a higher one. Module-level imports must
form no cycle. No module may exceed `MAX_LINES` lines. The rules import no model tier
(`MODEL_TIERS`): they read the model through `evidence.probe`.

    python scripts/check_layout.py          # prints every problem; exit 1 if any
"""

from __future__ import annotations

import argparse
import ast
import sys
from dataclasses import dataclass
from pathlib import Path

PACKAGE = "langchain_reliable"
ROOT = Path(__file__).resolve().parents[1] / PACKAGE
MAX_LINES = 450

LAYERS: tuple[tuple[str, ...], ...] = (
    # 0: data, text, glue with no knowledge of the rest
    (
        "decisions",
        "errors",
        "reading.lexicon",
        "schemas",
        "text",
        "grammar",
        "render_hazards",
        "_aio",
        "evidence._onnx",
        "_version",
        "prompts",
    ),
    # 1: settings, routing, scores, rendering, the audit log, formats; the parse
    (
        "reading",
        "_llm",
        "_stream",
        "local_chat",
        "state",
        "policy",
        "config",
        "report",
        "scale",
        "shown_texts",
        "coverage",
        "citations",
        "report_views",
        "frames",
        "answerers",
        "audit",
        "eval.metrics",
        "eval.datasets",
        "ingest.load",
        "graph.inputs",
        "server.offload",
        "server.docs",
        "server.auth",
        "server.guard",
        "verifiers.scorer",
        "verifiers.nli_labels",
    ),
    # 2: leaf detectors over text
    ("checks",),
    # 3: per-passage indexes and the embedded models
    (
        "evidence.index",
        "evidence.keys",
        "evidence.embeddings",
        "evidence.windows",
        "evidence.entailment",
        "evidence.accurate",
        "evidence.base_parts",
        "evidence.relevance",
        "retrieval",
        "ingest",
    ),
    # 4: what the passages say about one answer, and the model as the rules read it
    ("evidence",),
    # 5: the rules every verifier runs (checks detect, rules decide)
    ("rules",),
    # 6: the claim extractors (they read the rules, never a verifier)
    ("claims",),
    # 7: the verifiers (they may read the extractors' sentence readings)
    ("verifiers",),
    # 8: the graphs and the guard
    ("graph", "guard"),
    # 9: things built from the graphs
    ("batch", "eval", "demo", "defaults"),
    # 10: the package's public face
    ("",),
    # 11: entry points
    ("cli", "server"),
)


@dataclass(frozen=True)
class Module:
    name: str  # dotted, without the package prefix ("" for the package itself)
    path: Path
    lines: int
    imports: frozenset[str]  # every import of the package, anywhere in the module
    top_imports: frozenset[str]  # module-level imports (outside TYPE_CHECKING)


def layer_of(name: str) -> int:
    """The layer of module `name`: its longest matching prefix in `LAYERS`."""
    best, best_len = None, -1
    for n, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (name == prefix or name.startswith(prefix + ".") or prefix == "") and len(
                prefix
            ) > best_len:
                best, best_len = n, len(prefix)
    assert best is not None
    return best


def _target(node: ast.AST) -> list[str]:
    if (
        isinstance(node, ast.ImportFrom)
        and node.module
        and node.level == 0
        and (node.module == PACKAGE or node.module.startswith(PACKAGE + "."))
    ):
        base = node.module.removeprefix(PACKAGE).lstrip(".")
        # `from langchain_reliable.x import y` imports x, and the submodule x.y if there is one
        return [base, *(f"{base}.{a.name}".lstrip(".") for a in node.names)]
    if isinstance(node, ast.Import):
        return [
            a.name.removeprefix(PACKAGE).lstrip(".")
            for a in node.names
            if a.name == PACKAGE or a.name.startswith(PACKAGE + ".")
        ]
    return []


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def modules(root: Path = ROOT) -> dict[str, Module]:
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        name = ".".join(p for p in parts if p != "__init__")
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        everywhere = {t for node in ast.walk(tree) for t in _target(node)}
        top: set[str] = set()
        for node in tree.body:
            if isinstance(node, ast.If) and _is_type_checking(node):
                continue
            top.update(_target(node))
        out[name] = Module(
            name, path, len(text.splitlines()), frozenset(everywhere), frozenset(top)
        )
    return out


def upward_imports(mods: dict[str, Module]) -> list[str]:
    """Imports from a higher layer, as 'a (layer) -> b (layer)'."""
    problems = []
    for m in mods.values():
        for target in sorted(m.imports):
            if target not in mods and target.rpartition(".")[0] in mods:
                target = target.rpartition(".")[0]
            if target == m.name:
                continue
            if layer_of(target) > layer_of(m.name):
                problems.append(
                    f"{m.name or PACKAGE} ({layer_of(m.name)}) -> {target or PACKAGE} "
                    f"({layer_of(target)})"
                )
    return list(dict.fromkeys(problems))


def cycles(mods: dict[str, Module]) -> list[list[str]]:
    """Cycles among module-level imports (a package importing its own submodules excluded)."""
    graph = {
        m.name: {t for t in m.top_imports if t in mods and t != m.name and not _parent(m.name, t)}
        for m in mods.values()
    }
    found, state = [], {}

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                found.append([*stack[stack.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt, stack)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [])
    return found


def _parent(name: str, target: str) -> bool:
    """Whether `name` is a package importing one of its own submodules."""
    return target.startswith(name + ".") or name == ""


MODEL_TIERS = ("evidence.entailment", "evidence.accurate", "evidence.embeddings", "evidence._onnx")
"""The modules that load a model: the rules read the model only through `evidence.probe`."""


def model_tiers_reached(mods: dict[str, Module], package: str = "rules") -> list[str]:
    """Model tiers that `package`'s modules import at module level, directly or not."""
    reached: set[str] = set()
    todo = [name for name in mods if name == package or name.startswith(package + ".")]
    while todo:
        name = todo.pop()
        if name in reached:
            continue
        reached.add(name)
        todo.extend(t for t in mods[name].top_imports if t in mods and t not in reached)
    return sorted(reached & set(MODEL_TIERS))


def too_long(mods: dict[str, Module], limit: int = MAX_LINES) -> list[str]:
    return [f"{m.name or PACKAGE}: {m.lines} lines" for m in mods.values() if m.lines > limit]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args(argv)
    mods = modules()
    up, loops, long = upward_imports(mods), cycles(mods), too_long(mods)
    tiers = model_tiers_reached(mods)
    for title, items in (("imports up the layers", up), ("import cycles", loops),
                         (f"modules over {MAX_LINES} lines", long),
                         ("model tiers the rules import", tiers)):  # fmt: skip
        print(f"{title}: {len(items)}")
        for item in items:
            print(f"  {' -> '.join(item) if isinstance(item, list) else item}")
    return 1 if up or loops or long or tiers else 0


if __name__ == "__main__":
    sys.exit(main())
