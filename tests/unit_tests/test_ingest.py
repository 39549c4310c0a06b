"""Ingestion: loading files, token chunking, the FAISS index and its scores."""

import itertools

import numpy as np
import pytest
from langchain_core.documents import Document

from langchain_reliable.ingest import (
    CHUNK_OVERLAP,
    CHUNK_SIZE,
    MANIFEST,
    build_index,
    chunk_documents,
    cosine_relevance,
    load_documents,
    load_index,
    token_counter,
)

pytest.importorskip("faiss")
pytest.importorskip("pypdf")
pytest.importorskip("bs4")
pytest.importorskip("langchain_text_splitters")


def make_pdf(pages: list[str]) -> bytes:
    """A real, minimal PDF (Helvetica text, one content stream per page) written by hand."""
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    font = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    contents = []
    for text in pages:
        ops = ["BT", "/F1 11 Tf", "14 TL", "50 760 Td"]
        for line in text.split("\n"):
            escaped = line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
            ops.append(f"({escaped}) Tj T*")
        ops.append("ET")
        stream = "\n".join(ops).encode("latin-1")
        contents.append(add(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream)))
    pages_id = len(objects) + len(pages) + 1
    kids = [
        add(
            b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
            b"/Resources << /Font << /F1 %d 0 R >> >> >>" % (pages_id, content, font)
        )
        for content in contents
    ]
    refs = b" ".join(b"%d 0 R" % k for k in kids)
    assert add(b"<< /Type /Pages /Kids [%s] /Count %d >>" % (refs, len(kids))) == pages_id
    catalog = add(b"<< /Type /Catalog /Pages %d 0 R >>" % pages_id)
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        catalog,
        xref,
    )
    return bytes(out)


TREATY = (
    "The Treaty of Versailles was signed on 28 June 1919 in the Hall of Mirrors. "
    "It came into force on 10 January 1920."
)
VOLCANO = "Mount Etna is an active stratovolcano on the east coast of Sicily."
BRIDGE = "The Golden Gate Bridge opened to traffic in May 1937 across the strait."
TOWER = "The Eiffel Tower is 330 metres tall.\nIt was finished in 1889 for the World's Fair."


@pytest.fixture
def corpus(tmp_path):
    root = tmp_path / "docs"
    (root / "history" / "deep").mkdir(parents=True)
    (root / "treaty.txt").write_text(TREATY, "utf-8")
    (root / "history" / "etna.md").write_text(f"# Etna\n\n{VOLCANO}\n", "utf-8")
    (root / "history" / "deep" / "bridge.html").write_text(
        "<html><head><title>Golden Gate</title><style>p {color: red}</style></head>"
        f"<body><script>var x = 'do not index';</script><h1>Bridges</h1><p>{BRIDGE}</p>"
        "</body></html>",
        "utf-8",
    )
    (root / "tower.pdf").write_bytes(make_pdf([TOWER, "Page two is about bridges and rivers."]))
    (root / "broken.pdf").write_bytes(b"%PDF-1.4\nthis is not really a pdf\n%%EOF")
    (root / "empty.txt").write_text("   \n", "utf-8")
    (root / "notes.docx").write_bytes(b"ignored: not a supported type")
    (root / ".hidden.txt").write_text("hidden files are ignored", "utf-8")
    return root


def test_load_documents_reads_each_type_and_reports_bad_files(corpus):
    docs, problems = load_documents(corpus)
    by_source = {}
    for doc in docs:
        by_source.setdefault(doc.metadata["source"], []).append(doc)
    assert set(by_source) == {
        "treaty.txt",
        "history/etna.md",
        "history/deep/bridge.html",
        "tower.pdf",
    }
    assert by_source["treaty.txt"][0].page_content == TREATY
    html = by_source["history/deep/bridge.html"][0]
    assert html.metadata["title"] == "Golden Gate"
    assert BRIDGE in html.page_content
    assert "do not index" not in html.page_content
    assert "color" not in html.page_content
    pdf = by_source["tower.pdf"]
    assert [d.metadata["page"] for d in pdf] == [1, 2]
    assert all(d.metadata["pages"] == 2 for d in pdf)
    assert "330 metres" in pdf[0].page_content
    assert "bridges and rivers" in pdf[1].page_content
    reported = {p.path: p.reason for p in problems}
    assert set(reported) == {"broken.pdf", "empty.txt"}
    assert reported["broken.pdf"]  # a reason is given
    assert "no extractable text" in reported["empty.txt"]


def test_load_documents_single_file_and_missing(corpus):
    docs, problems = load_documents(corpus / "treaty.txt")
    assert [d.metadata["source"] for d in docs] == ["treaty.txt"] and not problems
    with pytest.raises(FileNotFoundError):
        load_documents(corpus / "nope")


def test_unreadable_file_is_reported(corpus, monkeypatch):
    from langchain_reliable.ingest import load as ingest

    real = ingest._load_file

    def flaky(path, source):
        if path.name == "treaty.txt":
            raise PermissionError(13, "Permission denied")
        return real(path, source)

    monkeypatch.setattr(ingest, "_load_file", flaky)
    docs, problems = load_documents(corpus)
    assert "treaty.txt" in {p.path for p in problems}
    assert {d.metadata["source"] for d in docs} >= {"tower.pdf", "history/etna.md"}


def test_non_utf8_text_is_decoded(tmp_path):
    (tmp_path / "latin.txt").write_bytes("Café au lait, crème brûlée à Paris.".encode("cp1252"))
    docs, problems = load_documents(tmp_path)
    assert not problems
    assert "Caf" in docs[0].page_content


def test_binary_file_named_txt_is_skipped_with_a_reason(tmp_path):
    (tmp_path / "photo.txt").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    (tmp_path / "notes.md").write_bytes(b"\x7fELF\x02\x01\x01" + b"\x01\x02\x03" * 50)
    (tmp_path / "wide.txt").write_bytes("Etna is in Sicily.".encode("utf-16"))
    docs, problems = load_documents(tmp_path)
    assert [d.page_content for d in docs] == ["Etna is in Sicily."]
    assert sorted(str(p) for p in problems) == [
        "notes.md: binary file, not text (despite its .md name)",
        "photo.txt: binary file, not text (despite its .txt name)",
    ]


def test_defaults_in_the_usual_range():
    assert 500 <= CHUNK_SIZE <= 700
    assert 0.10 <= CHUNK_OVERLAP / CHUNK_SIZE <= 0.15


def test_token_counter_counts_word_pieces_without_truncation():
    count = token_counter()
    assert count("") == 0
    assert count("hello world") == 2
    long = "alpha beta gamma delta " * 300  # past the model's 256-token input
    assert count(long) == 1200


def _long_document() -> Document:
    sentences = [
        f"Fact {i}: the river station number {i} records a water level of {i * 3} "
        f"centimetres during the spring flood season."
        for i in range(400)
    ]
    paragraphs = ["  ".join(sentences[i : i + 8]) for i in range(0, 400, 8)]
    return Document(page_content="\n\n".join(paragraphs), metadata={"source": "river.txt"})


def test_chunks_respect_the_token_limit_and_overlap():
    count = token_counter()
    doc = _long_document()
    chunks = chunk_documents([doc], chunk_size=120, chunk_overlap=48)
    assert len(chunks) > 10
    sizes = [count(c.page_content) for c in chunks]
    assert max(sizes) <= 120
    assert sum(sizes) / len(sizes) > 60  # chunks are filled, not tiny
    for number, chunk in enumerate(chunks):
        assert chunk.metadata["source"] == "river.txt"
        assert chunk.metadata["chunk"] == number
        assert chunk.metadata["page"] is None
        start = chunk.metadata["start_index"]
        assert doc.page_content[start : start + len(chunk.page_content)] == chunk.page_content
        assert chunk.id == f"river.txt#c{number}"
    overlapping = 0
    for before, after in itertools.pairwise(chunks):
        end = before.metadata["start_index"] + len(before.page_content)
        if after.metadata["start_index"] < end:
            overlapping += 1
            shared = doc.page_content[after.metadata["start_index"] : end]
            assert count(shared) <= 48 + 2  # overlap is bounded by the setting
    assert overlapping >= len(chunks) // 2  # neighbours share text


def test_default_chunking_of_long_text():
    count = token_counter()
    chunks = chunk_documents([_long_document()])
    assert all(count(c.page_content) <= CHUNK_SIZE for c in chunks)
    assert max(count(c.page_content) for c in chunks) > CHUNK_SIZE * 0.7


def test_no_overlap_means_no_shared_text():
    doc = _long_document()
    chunks = chunk_documents([doc], chunk_size=100, chunk_overlap=0)
    for before, after in itertools.pairwise(chunks):
        end = before.metadata["start_index"] + len(before.page_content)
        assert after.metadata["start_index"] >= end


@pytest.mark.parametrize(("size", "overlap"), [(100, 100), (100, 150), (0, 0), (-5, 0), (100, -1)])
def test_bad_chunk_settings(size, overlap):
    with pytest.raises(ValueError):
        chunk_documents([Document(page_content="x")], chunk_size=size, chunk_overlap=overlap)


def test_pdf_chunks_keep_page_numbers(corpus):
    docs, _ = load_documents(corpus / "tower.pdf")
    chunks = chunk_documents(docs)
    assert [(c.metadata["page"], c.metadata["chunk"]) for c in chunks] == [(1, 0), (2, 0)]
    assert [c.id for c in chunks] == ["tower.pdf#p1#c0", "tower.pdf#p2#c0"]


@pytest.fixture
def index(corpus, tmp_path):
    docs, _ = load_documents(corpus)
    chunks = chunk_documents(docs)
    path = tmp_path / "index"
    build_index(chunks, path, progress=False)
    return path, chunks


def test_index_round_trip_and_retrieval(index):
    import faiss

    path, chunks = index
    assert {p.name for p in path.iterdir()} >= {"index.faiss", "index.pkl", MANIFEST}
    store = load_index(path)
    assert store.index.ntotal == len(chunks)
    assert store.index.metric_type == faiss.METRIC_INNER_PRODUCT
    assert store.distance_strategy.value == "MAX_INNER_PRODUCT"
    for question, source in [
        ("When was the Treaty of Versailles signed?", "treaty.txt"),
        ("Which volcano is active in Sicily?", "history/etna.md"),
        ("When did the Golden Gate Bridge open?", "history/deep/bridge.html"),
        ("How tall is the Eiffel Tower?", "tower.pdf"),
    ]:
        top = store.similarity_search(question, k=1)[0]
        assert top.metadata["source"] == source, question
    top = store.similarity_search("How tall is the Eiffel Tower?", k=1)[0]
    assert top.metadata["page"] == 1
    assert top.id == "tower.pdf#p1#c0"


def test_scores_are_inner_products_of_unit_vectors(index):
    path, _ = index
    store = load_index(path)
    embeddings = store.embeddings
    question = "When did the Golden Gate Bridge open?"
    query = np.asarray(embeddings.embed_query(question), dtype=np.float32)
    assert abs(np.linalg.norm(query) - 1) < 1e-3
    results = store.similarity_search_with_score(question, k=5)
    scores = [float(s) for _, s in results]
    assert scores == sorted(scores, reverse=True)  # higher = closer
    for doc, score in results:
        vector = np.asarray(embeddings.embed_documents([doc.page_content])[0], dtype=np.float32)
        assert abs(np.linalg.norm(vector) - 1) < 1e-3
        assert float(score) == pytest.approx(float(query @ vector), abs=1e-4)
        assert -1.0 - 1e-4 <= float(score) <= 1.0 + 1e-4
    # relevance scores keep the order (langchain-community's default would invert it)
    relevant = store.similarity_search_with_relevance_scores(question, k=5)
    assert [d.id for d, _ in relevant] == [d.id for d, _ in results]
    assert [r for _, r in relevant] == [cosine_relevance(s) for s in scores]


def test_score_threshold_keeps_close_chunks(index):
    path, _ = index
    store = load_index(path)
    question = "When did the Golden Gate Bridge open?"
    best = float(store.similarity_search_with_score(question, k=1)[0][1])
    kept = store.similarity_search_with_score(question, k=5, score_threshold=best - 1e-6)
    assert len(kept) == 1


def test_retriever_from_loaded_index(index):
    path, _ = index
    retriever = load_index(path).as_retriever(search_kwargs={"k": 2})
    docs = retriever.invoke("Mount Etna volcano in Sicily")
    assert docs[0].metadata["source"] == "history/etna.md"


def test_build_index_rejects_unnormalised_vectors():
    class Raw:
        def embed_documents(self, texts):
            return [[3.0, 4.0] for _ in texts]

        def embed_query(self, text):
            return [3.0, 4.0]

    with pytest.raises(ValueError, match="normalised"):
        build_index([Document(page_content="x")], embeddings=Raw(), progress=False)


def test_build_index_needs_chunks():
    with pytest.raises(ValueError):
        build_index([], progress=False)


def test_load_index_errors(tmp_path):
    with pytest.raises(FileNotFoundError):
        load_index(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError):
        load_index(tmp_path / "empty")


def test_load_index_rejects_other_dimensions(index):
    path, _ = index

    class Small:
        dimension = 8

        def embed_query(self, text):
            return [1.0] + [0.0] * 7

    with pytest.raises(ValueError, match="dimensions"):
        load_index(path, embeddings=Small())
