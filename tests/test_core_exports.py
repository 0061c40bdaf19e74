"""Guarantees about the public surface: sorted __all__, every name resolves, import stays light."""

import subprocess
import sys

import llm_validation_framework as lvf


def test_all_is_sorted_and_unique():
    assert lvf.__all__ == sorted(set(lvf.__all__))


def test_all_equals_the_public_names():
    public = {name for name in dir(lvf) if not name.startswith("_")} | {"__version__"}
    assert set(lvf.__all__) == public


def test_every_exported_name_resolves():
    for name in lvf.__all__:
        assert getattr(lvf, name) is not None, name


def test_import_does_not_load_heavy_dependencies():
    code = (
        "import sys; from llm_validation_framework import AccuracyAgent, RelevancyAgent, RAGProvider; "
        "heavy = [m for m in ('litellm', 'chromadb', 'langchain_core', 'xllamacpp', 'onnxruntime') "
        "if m in sys.modules]; "
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_subpackages_resolve_their_lazy_names_and_refuse_others():
    import pytest

    from llm_validation_framework import citations, judges

    for package, names in ((citations, citations.__all__), (judges, ("LiteLLMJudge", "ScriptedJudge"))):
        for name in names:
            assert getattr(package, name) is not None, (package.__name__, name)
        with pytest.raises(AttributeError, match="no attribute 'nope'"):
            package.nope  # noqa: B018
    assert sorted(dir(citations)) == citations.__all__  # the written-out __all__ matches the lazy map
