import langchain_reliable

EXPECTED_ALL = [
    "PRESETS",
    "AuditLog",
    "CascadeVerifier",
    "Claim",
    "ClaimExtractor",
    "ClaimVerdict",
    "ClaimVerifier",
    "Cost",
    "Evidence",
    "ExtractionResult",
    "ExtractiveAnswerer",
    "InputError",
    "LLMClaimExtractor",
    "LLMJudge",
    "Limits",
    "LocalEmbeddings",
    "LocalVerifier",
    "Passage",
    "Policy",
    "ReliabilityContext",
    "ReliabilityReport",
    "ReliableGuard",
    "SentenceClaimExtractor",
    "UnverifiedAnswerError",
    "VerificationResult",
    "__version__",
    "create_guard",
    "create_reliable_rag",
    "create_verifier",
    "get_verifier",
    "load_faiss_index",
    "render_html",
    "render_markdown",
]


def test_all_imports():
    assert sorted(langchain_reliable.__all__) == sorted(EXPECTED_ALL)
    for name in EXPECTED_ALL:
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
