"""Every word class is defined once: no two word lists of the package repeat each other.

The test walks every module of the package for its module- and class-level constants
that are lists of words (a set, tuple or list of lowercase word strings, or a string
`.split()`). A list that writes out three words of one of the lexicon's classes
(`reading.lexicon`) writes that class again: it must name the class instead. Two other
lists may share a few words (a verb two vocabularies both need), never four. The values
of the package's own `Literal` types (labels, routes, kinds) are names, not English, and
are not compared.
"""

from __future__ import annotations

import ast
import re
from itertools import combinations
from pathlib import Path

import langchain_reliable

PACKAGE = Path(langchain_reliable.__file__).parent
WORD = re.compile(r"[a-z][a-z'’ -]*")
LEXICON = "reading/lexicon.py"
OF_A_CLASS_AT_MOST = 2
SHARED_AT_MOST = 3


def written_words(node: ast.AST) -> list[str]:
    """The words written out in `node`: collections of words only, and `"...".split()`."""
    out: list[str] = []
    for n in ast.walk(node):
        if isinstance(n, ast.Set | ast.List | ast.Tuple):
            strings = [e.value for e in n.elts if isinstance(e, ast.Constant)]
            if len(strings) == len(n.elts) and all(
                isinstance(s, str) and WORD.fullmatch(s) for s in strings
            ):
                out += strings
        elif (
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute)
            and n.func.attr == "split"
            and isinstance(n.func.value, ast.Constant)
            and isinstance(n.func.value.value, str)
        ):
            out += n.func.value.value.split()
    return [w for w in out if WORD.fullmatch(w)]


def literal_values(tree: ast.AST) -> set[str]:
    """The string values of every `Literal[...]` in `tree`."""
    out = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Subscript) and getattr(n.value, "id", None) == "Literal":
            out |= {c.value for c in ast.walk(n.slice) if isinstance(c, ast.Constant)}
    return out


def word_lists(root: Path = PACKAGE) -> dict[str, frozenset[str]]:
    """Each module- or class-level constant holding three or more written words."""
    trees = {p: ast.parse(p.read_text(encoding="utf-8")) for p in sorted(root.rglob("*.py"))}
    names = set().union(*(literal_values(t) for t in trees.values()))
    out = {}
    for path, tree in trees.items():
        bodies = [tree.body, *(c.body for c in tree.body if isinstance(c, ast.ClassDef))]
        for statement in (s for body in bodies for s in body):
            if not isinstance(statement, ast.Assign | ast.AnnAssign) or statement.value is None:
                continue
            target = statement.targets[0] if isinstance(statement, ast.Assign) else statement.target
            name = getattr(target, "id", "")
            words = frozenset(written_words(statement.value)) - names
            if name != "__all__" and len(words) > OF_A_CLASS_AT_MOST:
                where = f"{path.relative_to(root.parent)}:{statement.lineno} {name}"
                out[where] = words
    return out


def repeats(lists: dict[str, frozenset[str]]) -> list[str]:
    """The pairs of lists that write one word class twice (see the module's rules)."""
    out = []
    for a, b in combinations(lists, 2):
        bar = OF_A_CLASS_AT_MOST if LEXICON in f"{a} {b}" else SHARED_AT_MOST
        if len(lists[a] & lists[b]) > bar:
            out.append(f"{a} ~ {b}: {sorted(lists[a] & lists[b])}")
    return out


def test_no_two_word_lists_repeat_each_other() -> None:
    found = repeats(word_lists())
    assert not found, "\n".join(found)


def test_the_walk_finds_a_repeated_list(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "a.py").write_text('PRONOUNS = frozenset({"he", "she", "it", "they"})\n')
    (package / "b.py").write_text(
        'from typing import Literal\nKind = Literal["count", "money", "measure"]\n'
        'class C:\n    _MINE = "she it they them".split()\n'
        'KINDS = ("count", "money", "measure")\n'
    )
    (package / "c.py").write_text("from a import PRONOUNS\nMORE = PRONOUNS | {'him', 'her'}\n")
    (package / "reading").mkdir()
    (package / "reading" / "lexicon.py").write_text('MODALS = {"can", "may", "might"}\n')
    (package / "d.py").write_text('HEDGES = {"may", "might", "can", "likely"}\n')
    lists = word_lists(package)
    assert set(lists) == {
        "pkg/a.py:1 PRONOUNS", "pkg/b.py:4 _MINE", "pkg/reading/lexicon.py:1 MODALS",
        "pkg/d.py:1 HEDGES",
    }  # fmt: skip
    assert repeats(lists) == [
        "pkg/d.py:1 HEDGES ~ pkg/reading/lexicon.py:1 MODALS: ['can', 'may', 'might']"
    ]  # three of a lexicon class are the class again; two other lists may share three
