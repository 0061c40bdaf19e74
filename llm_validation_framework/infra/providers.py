"""Static facts about litellm providers, so choosing a judge never imports litellm (seconds to load).

``PROVIDERS`` is generated from ``litellm.provider_list`` of the installed litellm; a test
asserts it still matches. Regenerate after upgrading litellm with::

    python -m llm_validation_framework.infra.providers --write

``KEY_ENV_NAMES`` lists the standard environment variables holding each provider's API key
(the first is the one we name in error messages). Providers in ``KEYLESS`` (local servers,
cloud-credential providers) never need an API key from us; any other provider without a
key must be given an ``api_base`` (a local or self-hosted server) instead.
"""

from __future__ import annotations

import sys
from pathlib import Path

__all__ = ["KEYLESS", "KEY_ENV_NAMES", "LITELLM_VERSION", "PROVIDERS", "key_env_names", "needs_api_key",
           "suggest_provider"]

# --- generated: begin (python -m llm_validation_framework.infra.providers --write) ---
PROVIDERS: tuple[str, ...] = (
    "a2a", "a2a_agent", "abliteration", "ai21", "ai21_chat", "aiand", "aiml", "aiohttp_openai",
    "amazon_nova", "anthropic", "anthropic_text", "apertis", "assemblyai", "auto_router",
    "aws_polly", "aws_textract", "azure", "azure_ai", "azure_speech", "azure_text", "baseten",
    "bedrock", "bedrock_mantle", "bespoke", "bigmodel", "black_forest_labs", "bytez", "cerebras",
    "charity_engine", "chatgpt", "chutes", "clarifai", "clf_ai_gateway", "cloudflare", "codestral",
    "cognition", "cohere", "cohere_chat", "cometapi", "compactifai", "coralbricks", "cortecs",
    "cursor", "custom", "custom_openai", "darkbloom", "dashscope", "databricks", "databricks_agent",
    "datarobot", "deepgram", "deepinfra", "deepseek", "docker_model_runner", "dotprompt", "edenai",
    "elevenlabs", "empiriolabs", "empower", "eu_jev", "fal_ai", "featherless_ai", "fireworks_ai",
    "friendliai", "galadriel", "gdc", "gemini", "gigachat", "github", "github_copilot",
    "gradient_ai", "groq", "helicone", "heroku", "hosted_vllm", "hostinger_router", "huggingface",
    "humanloop", "hyperbolic", "inception", "inferenceapis", "infinity", "jina_ai", "kyma",
    "lambda_ai", "langflow", "langfuse", "langgraph", "laya", "lemonade", "libertai",
    "litellm_agent", "litellm_proxy", "llamafile", "lm_studio", "manus", "maritalk", "meta",
    "meta_llama", "microsoft_365_copilot", "milvus", "minimax", "mistral", "modelscope", "mongodb",
    "moonshot", "morph", "nace", "nadir", "nano-gpt", "nebius", "neosantara", "nlp_cloud", "novita",
    "nscale", "nvidia_nim", "nvidia_riva", "oci", "ollama", "ollama_chat", "oobabooga", "openai",
    "openai_like", "opencode_go", "openinfer", "openrouter", "opensearch", "ovhcloud",
    "parallel_ai", "parasail", "perplexity", "petals", "pg_vector", "pinstripes", "poe",
    "predibase", "prism", "publicai", "qwen_ai_platform", "qwencloud", "ragflow", "recraft",
    "reducto", "refuseless", "reka", "replicate", "runwayml", "s3_vectors", "sagemaker",
    "sagemaker_chat", "sagemaker_nova", "sail", "sambanova", "sap", "scaledown", "scaleway",
    "scx-ai", "snowflake", "soniox", "stability", "strands_decider", "streamlake", "synthetic",
    "tencent", "tensormesh", "text-completion-codestral", "text-completion-inception",
    "text-completion-openai", "together_ai", "topaz", "transcribe", "triton", "typesafe", "v0",
    "valkey", "vercel_ai_gateway", "vertex_ai", "vertex_ai_beta", "vllm", "volcengine", "voyage",
    "wally", "wandb", "watsonx", "watsonx_text", "xai", "xiaomi_mimo", "xinference", "zai",
    "zerogpu",
)
LITELLM_VERSION = "1.110.2"
# --- generated: end ---

#: standard environment variables holding a provider's API key (litellm reads the same names)
KEY_ENV_NAMES: dict[str, tuple[str, ...]] = {
    "ai21": ("AI21_API_KEY",),
    "anthropic": ("ANTHROPIC_API_KEY",),
    "azure": ("AZURE_API_KEY", "AZURE_OPENAI_API_KEY"),
    "cerebras": ("CEREBRAS_API_KEY",),
    "codestral": ("CODESTRAL_API_KEY",),
    "cohere": ("COHERE_API_KEY", "CO_API_KEY"),
    "cohere_chat": ("COHERE_API_KEY", "CO_API_KEY"),
    "dashscope": ("DASHSCOPE_API_KEY",),
    "deepinfra": ("DEEPINFRA_API_KEY",),
    "deepseek": ("DEEPSEEK_API_KEY",),
    "fireworks_ai": ("FIREWORKS_AI_API_KEY", "FIREWORKS_API_KEY"),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "groq": ("GROQ_API_KEY",),
    "huggingface": ("HUGGINGFACE_API_KEY", "HF_TOKEN"),
    "mistral": ("MISTRAL_API_KEY",),
    "moonshot": ("MOONSHOT_API_KEY",),
    "nebius": ("NEBIUS_API_KEY",),
    "novita": ("NOVITA_API_KEY",),
    "nvidia_nim": ("NVIDIA_NIM_API_KEY",),
    "openai": ("OPENAI_API_KEY",),
    "openrouter": ("OPENROUTER_API_KEY",),
    "perplexity": ("PERPLEXITYAI_API_KEY", "PERPLEXITY_API_KEY"),
    "replicate": ("REPLICATE_API_KEY", "REPLICATE_API_TOKEN"),
    "together_ai": ("TOGETHERAI_API_KEY", "TOGETHER_API_KEY"),
    "xai": ("XAI_API_KEY",),
}

#: providers that run without an API key from us (local servers; cloud SDK credentials)
KEYLESS = frozenset({
    "bedrock", "custom", "custom_openai", "docker_model_runner", "hosted_vllm", "lemonade", "llamafile",
    "lm_studio", "local", "ollama", "ollama_chat", "oobabooga", "openai_like", "petals", "sagemaker",
    "sagemaker_chat", "triton", "vertex_ai", "vertex_ai_beta", "vllm", "xinference",
})


def key_env_names(provider: str) -> tuple[str, ...]:
    """Environment variables that may hold ``provider``'s key (``<PROVIDER>_API_KEY`` if unlisted)."""
    return KEY_ENV_NAMES.get(provider, (provider.upper().replace("-", "_") + "_API_KEY",))


def needs_api_key(provider: str, api_base: str | None = None) -> bool:
    """Whether a call to ``provider`` must carry a key we resolve (no: keyless or an explicit server)."""
    return provider in KEY_ENV_NAMES and not api_base


def suggest_provider(name: str, n: int = 3) -> list[str]:
    """Known provider names close to ``name`` (for "did you mean …" errors)."""
    import difflib  # only for an error message

    return difflib.get_close_matches(name.lower(), ("local", *PROVIDERS), n=n, cutoff=0.6)


def render_generated_block() -> str:
    """The generated block above, computed from the installed litellm (imports litellm)."""
    import importlib.metadata
    import textwrap

    import litellm

    names = sorted({getattr(p, "value", str(p)) for p in litellm.provider_list})
    body = textwrap.fill(", ".join(f"\"{n}\"" for n in names), 100, initial_indent="    ",
                         subsequent_indent="    ",
                         break_on_hyphens=False, break_long_words=False)
    return (f"PROVIDERS: tuple[str, ...] = (\n{body},\n)\n"
            f"LITELLM_VERSION = \"{importlib.metadata.version('litellm')}\"\n")


def _write() -> None:  # pragma: no cover - maintenance helper
    path = Path(__file__)
    text = path.read_text()
    begin = text.index("# --- generated: begin")
    begin = text.index("\n", begin) + 1
    end = text.index("# --- generated: end")
    path.write_text(text[:begin] + render_generated_block() + text[end:])
    print(f"wrote {path}")


if __name__ == "__main__":  # pragma: no cover
    if "--write" in sys.argv:
        _write()
    else:
        print(render_generated_block(), end="")
