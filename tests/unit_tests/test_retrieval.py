import pytest
from langchain_core.documents import Document
from langchain_core.vectorstores import InMemoryVectorStore
from langchain_openai import ChatOpenAI

from langchain_reliable.evidence.embeddings import default_embeddings
from langchain_reliable.retrieval import as_chat_model, as_retriever

TEXTS = [
    "Metformin lowers glucose production in the liver.",
    "Aspirin inhibits the COX-1 and COX-2 enzymes.",
    "The Treaty of Versailles was signed in 1919.",
]


def test_model_string_goes_through_init_chat_model(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")
    model = as_chat_model("openai:gpt-4o-mini")
    assert isinstance(model, ChatOpenAI)
    assert model.model_name == "gpt-4o-mini"


@pytest.mark.parametrize(
    ("spec", "error", "match"),
    [
        ("", ValueError, "empty model name"),
        ("nosuchprovider:model", ValueError, "nosuchprovider"),
        (42, TypeError, "chat model"),
    ],
)
def test_bad_models_are_clear_errors(spec, error, match):
    with pytest.raises(error, match=match):
        as_chat_model(spec)


def test_texts_are_indexed_in_memory_with_the_embedded_model():
    retriever = as_retriever(TEXTS, k=1)
    [doc] = retriever.invoke("What does aspirin inhibit?")
    assert doc.page_content == TEXTS[1]


def test_vector_stores_and_retrievers_are_accepted():
    store = InMemoryVectorStore(embedding=default_embeddings())
    store.add_documents([Document(page_content=t) for t in TEXTS])
    assert as_retriever(store, k=2).invoke("treaty signed")[0].page_content == TEXTS[2]
    retriever = store.as_retriever()
    assert as_retriever(retriever) is retriever


def test_faiss_vector_store_is_accepted():
    from langchain_community.vectorstores import FAISS

    store = FAISS.from_texts(TEXTS, default_embeddings())
    assert as_retriever(store, k=1).invoke("liver glucose")[0].page_content == TEXTS[0]


@pytest.mark.parametrize(
    ("value", "error", "match"),
    [
        ([], ValueError, "empty"),
        (["ok", ""], TypeError, r"retriever\[1\]"),
        (3.5, TypeError, "retriever must be"),
    ],
)
def test_bad_retrievers_are_clear_errors(value, error, match):
    with pytest.raises(error, match=match):
        as_retriever(value)
