import langchain_reliable


def test_all_imports():
    """`__all__` is every lazy export and `__version__`, and each one imports."""
    exports = set(langchain_reliable._EXPORTS)
    assert sorted(langchain_reliable.__all__) == sorted(exports | {"__version__"})
    for name in langchain_reliable.__all__:
        assert getattr(langchain_reliable, name) is not None


def test_root_exports_are_the_package_objects():
    from langchain_reliable.answerers import ExtractiveAnswerer
    from langchain_reliable.evidence.embeddings import LocalEmbeddings
    from langchain_reliable.ingest.index import load_faiss_index

    assert langchain_reliable.LocalEmbeddings is LocalEmbeddings
    assert langchain_reliable.load_faiss_index is load_faiss_index
    assert langchain_reliable.ExtractiveAnswerer is ExtractiveAnswerer
    assert {"LocalEmbeddings", "load_faiss_index"} <= set(dir(langchain_reliable))


def test_import_loads_no_heavy_backend():
    import subprocess
    import sys

    code = (
        "import sys, langchain_reliable\n"
        "heavy = ('torch', 'transformers', 'onnxruntime', 'faiss')\n"
        "heavy = [m for m in heavy if m in sys.modules]\n"
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
