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
    "LLMClaimExtractor",
    "LLMJudge",
    "Limits",
    "LocalVerifier",
    "Passage",
    "Policy",
    "ReliabilityContext",
    "ReliabilityReport",
    "SentenceClaimExtractor",
    "VerificationResult",
    "__version__",
    "create_reliable_rag",
    "create_verifier",
    "get_verifier",
]


def test_all_imports():
    assert sorted(langchain_reliable.__all__) == sorted(EXPECTED_ALL)
    for name in EXPECTED_ALL:
        assert getattr(langchain_reliable, name) is not None


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
