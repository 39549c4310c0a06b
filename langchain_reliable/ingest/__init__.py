"""Ingestion: load files, chunk them in tokens, embed them and save a FAISS index.

```
load_documents(DIR) -> (documents, problems)     .txt .md .pdf .html .htm, recursively
chunk_documents(documents)                       600-token chunks, 72-token overlap
build_index(chunks, PATH)                        FAISS, inner product on L2-normalised vectors
load_index(PATH)                                 the same store back, ready to search
```

Files that cannot be read (corrupt, encrypted, no text) are reported as
`Problem(path, reason)` and skipped; they never stop the others.

Chunk sizes are counted in tokens of the embedded model's tokenizer (word pieces
of all-MiniLM-L6-v2, special tokens not counted). The defaults (600 tokens, 12 %
overlap) follow the usual RAG range of 500-700 tokens with 10-15 % overlap. The
embedded model reads at most its own input length (256 word pieces for
all-MiniLM-L6-v2); text past it in a chunk is kept for the answer and the
verifier but does not shape that chunk's vector, so use smaller chunks where
retrieval must see every word.

Scores: the embedded model's vectors are L2-normalised, so the index is a
`faiss.IndexFlatIP` (``DistanceStrategy.MAX_INNER_PRODUCT``, no extra
normalisation) and a search score is the cosine similarity of query and chunk,
higher is closer. langchain-community's default relevance function for inner
product turns high similarities into low relevance, so the stores built and
loaded here use `cosine_relevance` (the similarity clipped to 0-1) instead.

Security: ``index.pkl`` is a pickle and unpickling runs code. `load_index` loads
only folders you name (built by `build_index` or otherwise trusted).

Modules: `load` (files to Documents), `chunk` (token chunks), `index` (FAISS).

Example:
    >>> from langchain_reliable.ingest import load_documents, chunk_documents, build_index
    >>> docs, problems = load_documents("docs/")  # doctest: +SKIP
    >>> store = build_index(chunk_documents(docs), "index/")  # doctest: +SKIP
    >>> store.similarity_search_with_score("When was the treaty signed?", k=2)  # doctest: +SKIP

"""

from langchain_reliable.ingest.chunk import (
    CHUNK_OVERLAP,
    CHUNK_SIZE,
    chunk_documents,
    token_counter,
)
from langchain_reliable.ingest.index import (
    MANIFEST as MANIFEST,
)
from langchain_reliable.ingest.index import (
    build_index,
    cosine_relevance,
    load_index,
    save_index,
)
from langchain_reliable.ingest.load import SUFFIXES, Problem, load_documents

__all__ = [
    "CHUNK_OVERLAP",
    "CHUNK_SIZE",
    "SUFFIXES",
    "Problem",
    "build_index",
    "chunk_documents",
    "cosine_relevance",
    "load_documents",
    "load_index",
    "save_index",
    "token_counter",
]
