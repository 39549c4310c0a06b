"""Turn what users pass as `model` and `retriever` into a chat model and a retriever."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.documents import Document
from langchain_core.language_models import BaseChatModel
from langchain_core.retrievers import BaseRetriever
from langchain_core.vectorstores import InMemoryVectorStore, VectorStore

from langchain_reliable.errors import ConfigurationError, install_hint


def as_chat_model(model: BaseChatModel | str) -> BaseChatModel:
    """Accept a chat model or an `init_chat_model` string such as `"openai:gpt-4o-mini"`."""
    if isinstance(model, BaseChatModel):
        return model
    if isinstance(model, str):
        if not model.strip():
            raise ConfigurationError("model: empty model name; use e.g. 'openai:gpt-4o-mini'")
        from langchain.chat_models import init_chat_model

        try:
            return init_chat_model(model)
        except ImportError as exc:
            raise ImportError(
                f"model {model!r} needs its provider package: {exc}. "
                f"For OpenAI: {install_hint('openai')}"
            ) from exc
        except ValueError as exc:
            raise ConfigurationError(f"model {model!r}: {exc}") from exc
    raise TypeError(
        f"model must be a LangChain chat model or a 'provider:name' string, "
        f"got {type(model).__name__}"
    )


def as_retriever(retriever: Any, *, k: int = 4) -> BaseRetriever:
    """Accept a retriever, a vector store, or texts/Documents to index in memory.

    Texts and Documents are embedded with the package's offline model
    (`LocalEmbeddings`) into an `InMemoryVectorStore`.
    """
    if isinstance(retriever, BaseRetriever):
        return retriever
    if isinstance(retriever, VectorStore):
        return retriever.as_retriever(search_kwargs={"k": k})
    if isinstance(retriever, (str, Document)):
        retriever = [retriever]
    if isinstance(retriever, Sequence) and not isinstance(retriever, (bytes, bytearray)):
        docs = _as_documents(retriever)
        from langchain_reliable.evidence.embeddings import default_embeddings

        store = InMemoryVectorStore(embedding=default_embeddings())
        store.add_documents(docs)
        return store.as_retriever(search_kwargs={"k": k})
    raise TypeError(
        "retriever must be a BaseRetriever, a VectorStore, or a list of texts/Documents; "
        f"got {type(retriever).__name__}"
    )


def _as_documents(items: Sequence[Any]) -> list[Document]:
    if not items:
        raise ConfigurationError(
            "retriever: the list of texts/Documents is empty; nothing to search"
        )
    docs = []
    for i, item in enumerate(items):
        if isinstance(item, Document):
            docs.append(item)
        elif isinstance(item, str) and item.strip():
            docs.append(Document(page_content=item, metadata={"source": f"text-{i}"}))
        else:
            raise TypeError(
                f"retriever[{i}] must be a non-empty string or a Document, got {item!r:.60}"
            )
    return docs
