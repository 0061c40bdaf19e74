"""Settings: precedence, config.ini discovery, keys as secrets, clear errors; make_judge."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from llm_validation_framework.errors import ConfigError, MissingAPIKeyError
from llm_validation_framework.infra.config import Settings
from llm_validation_framework.infra.config_file import read_config_ini
from llm_validation_framework.judges import make_judge

SECRET = "sk-ant-very-secret-0000"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    """No provider keys from the developer's shell; an empty working directory (no ./config.ini)."""
    for name in list(os.environ):
        if name.upper().endswith(("_API_KEY", "_API_TOKEN")) or name.upper() in ("HF_TOKEN",):
            monkeypatch.delenv(name, raising=False)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return work


def write_ini(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults():
    settings = Settings()
    assert (settings.provider, settings.model) == ("anthropic", "claude-haiku-4-5-20251001")
    assert (settings.timeout_s, settings.max_retries, settings.api_base) == (60.0, 4, None)
    assert all(row.source == "default" for row in settings.report() if row.name != "config_file")
    assert settings.config_file.path is None


def test_precedence_argument_over_env_over_ini_over_default(tmp_path, monkeypatch):
    ini = write_ini(tmp_path / "c.ini", "[judge]\nprovider = openai\nmodel = from-ini\ntimeout_s = 7\n"
                                        "max_retries = 2\n")
    monkeypatch.setenv("LVF_MODEL", "from-env")
    monkeypatch.setenv("LVF_TIMEOUT_S", "9")
    settings = Settings(config_path=ini, timeout_s=11)

    assert settings.timeout_s == 11 and settings.origin("timeout_s") == "argument"
    assert settings.model == "from-env" and settings.origin("model") == "environment (LVF_MODEL)"
    assert settings.provider == "openai" and settings.origin("provider") == f"config.ini {ini.resolve()}:2"
    assert settings.max_retries == 2
    assert settings.concurrency == 8 and settings.origin("concurrency") == "default"


def test_key_precedence_argument_env_ini(tmp_path, monkeypatch):
    ini = write_ini(tmp_path / "c.ini", "[api_keys]\nanthropic = ini-key\nOPENAI_API_KEY = ini-openai\n"
                                        "gemini = ini-gemini\n")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "env-key")
    monkeypatch.setenv("OPENAI_API_KEY", "env-openai")
    monkeypatch.setenv("LVF_OPENAI_API_KEY", "lvf-openai")
    settings = Settings(config_path=ini, api_keys={"anthropic": "arg-key"})

    assert settings.api_key_for("anthropic").get_secret_value() == "arg-key"
    assert settings.api_key_for("openai").get_secret_value() == "lvf-openai"  # LVF_ name beats the standard one
    assert settings.api_key_for("gemini").get_secret_value() == "ini-gemini"
    assert settings.origin("api_keys.anthropic") == "argument"
    assert settings.origin("api_keys.openai") == "environment (LVF_OPENAI_API_KEY)"
    assert settings.origin("api_keys.gemini").startswith("config.ini ")


def test_standard_env_name_beats_config_ini(tmp_path, monkeypatch):
    ini = write_ini(tmp_path / "c.ini", "[api_keys]\nanthropic = ini-key\n")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "env-key")
    settings = Settings(config_path=ini)
    assert settings.require_api_key("anthropic").get_secret_value() == "env-key"
    assert settings.origin("api_keys.anthropic") == "environment (ANTHROPIC_API_KEY)"


def test_discovery_order_argument_then_env_var_then_working_directory(tmp_path, monkeypatch, clean_env):
    explicit = write_ini(tmp_path / "explicit.ini", "[judge]\nmodel = explicit\n")
    from_env = write_ini(tmp_path / "from_env.ini", "[judge]\nmodel = env-var\n")
    write_ini(clean_env / "config.ini", "[judge]\nmodel = cwd\n")

    assert Settings().model == "cwd"
    assert Settings().config_file.found_by == "working directory"
    monkeypatch.setenv("LVF_CONFIG", str(from_env))
    assert Settings().model == "env-var"
    assert Settings().config_file.found_by == "$LVF_CONFIG"
    assert Settings(config_path=explicit).model == "explicit"
    assert Settings(config_path=explicit).config_file.path == explicit.resolve()


def test_missing_config_files_are_errors(tmp_path, monkeypatch):
    with pytest.raises(ConfigError, match="config_path .*nope.ini.* does not exist"):
        Settings(config_path=tmp_path / "nope.ini")
    monkeypatch.setenv("LVF_CONFIG", str(tmp_path / "gone.ini"))
    with pytest.raises(ConfigError, match=r"\$LVF_CONFIG points to .*gone.ini"):
        Settings()


def test_missing_key_says_which_key_where_and_the_offline_alternative(tmp_path):
    ini = write_ini(tmp_path / "c.ini", "[judge]\nprovider = anthropic\n")
    settings = Settings(config_path=ini)
    with pytest.raises(MissingAPIKeyError) as caught:
        settings.require_api_key()
    message = str(caught.value)
    assert "ANTHROPIC_API_KEY" in message
    assert "LVF_ANTHROPIC_API_KEY" in message
    assert str(ini.resolve()) in message and "[api_keys]" in message
    assert 'provider="local"' in message
    assert isinstance(caught.value, ConfigError)


@pytest.mark.parametrize("name, closest", [("opnai", "openai"), ("OPNAI_API_KEY", "openai"), ("antropic", "anthropic"),
                                           ("my_secret_service", None)])
def test_a_typo_under_api_keys_is_an_error_naming_the_key_and_the_providers(tmp_path, name, closest):
    ini = write_ini(tmp_path / "c.ini", f"[judge]\nprovider = openai\n\n[api_keys]\n{name} = sk-typo-0123456789\n")
    with pytest.raises(ConfigError) as caught:
        Settings(config_path=ini)
    message = str(caught.value)
    assert f"{ini}:5: unknown provider {name!r} under [api_keys]" in message
    assert (f"did you mean {closest!r}?" in message) if closest else "did you mean" not in message
    assert "anthropic, " in message and "openai" in message  # the providers whose keys we know
    assert "sk-typo" not in message


def test_api_keys_accept_provider_names_their_variables_and_their_other_variables(tmp_path):
    ini = write_ini(tmp_path / "c.ini", "[api_keys]\nopenai = k-1-0123456789\nANTHROPIC_API_KEY = k-2-0123456789\n"
                                        "LVF_GROQ_API_KEY = k-3-0123456789\nGOOGLE_API_KEY = k-4-0123456789\n"
                                        "HF_TOKEN = k-5-0123456789\nvllm = k-6-0123456789\n")
    keys = Settings(config_path=ini).api_keys
    assert {name: key.get_secret_value() for name, key in keys.items()} == {
        "openai": "k-1-0123456789", "anthropic": "k-2-0123456789", "groq": "k-3-0123456789",
        "gemini": "k-4-0123456789", "huggingface": "k-5-0123456789", "vllm": "k-6-0123456789"}


def test_missing_key_without_any_config_file_lists_the_search():
    with pytest.raises(MissingAPIKeyError, match=r"none found: .*LVF_CONFIG.*config\.ini"):
        make_judge()


def test_secrets_redacted_everywhere(tmp_path, monkeypatch, caplog):
    caplog.set_level(logging.DEBUG)
    ini = write_ini(tmp_path / "c.ini", f"[api_keys]\nopenai = {SECRET}-ini\n")
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    settings = Settings(config_path=ini)
    shown = [repr(settings), str(settings), settings.model_dump_json(), repr(settings.report()),
             repr(settings.api_keys), str(settings.model_dump())]
    for text in shown:
        assert SECRET not in text
    rows = {row.name: row for row in settings.report()}
    assert rows["api_keys.anthropic"].value == "********** (set)"
    assert rows["api_keys.openai"].source.startswith("config.ini ")
    judge = make_judge(settings=settings)
    assert SECRET not in repr(judge) and SECRET not in str(judge.describe())
    assert SECRET not in caplog.text


@pytest.mark.parametrize("text, expected", [
    ("provider = anthropic\n", r"c\.ini:1: expected a section header"),
    ("[judge]\nmodle = x\n", r"c\.ini:2: unknown key 'modle' in \[judge\] \(did you mean 'model'\?\)"),
    ("[judgee]\nmodel = x\n", r"c\.ini:1: unknown section \[judgee\] \(did you mean 'judge'\?\)"),
    ("[judge]\nmodel = a\nmodel = b\n", r"c\.ini:3: .*model"),
    ("[judge]\nthis line has no equals sign\n", r"c\.ini:2: cannot parse"),
])
def test_bad_ini_names_file_and_line(tmp_path, text, expected):
    ini = write_ini(tmp_path / "c.ini", text)
    with pytest.raises(ConfigError, match=expected):
        Settings(config_path=ini)


def test_bad_value_in_ini_names_field_file_and_line(tmp_path):
    ini = write_ini(tmp_path / "c.ini", "[judge]\n\ntimeout_s = soon\n")
    with pytest.raises(ConfigError, match=r"timeout_s: .*'soon'.*c\.ini:3"):
        Settings(config_path=ini)


@pytest.mark.parametrize("overrides, field", [
    ({"timeout_s": 0}, "timeout_s"), ({"max_retries": -1}, "max_retries"), ({"concurrency": 0}, "concurrency"),
    ({"api_base": "localhost:11434"}, "api_base"), ({"provider": "  "}, "provider"),
])
def test_bad_arguments_name_the_field(overrides, field):
    with pytest.raises(ConfigError, match=field):
        Settings(**overrides)


def test_a_misspelt_argument_is_named():
    with pytest.raises(TypeError, match="modle"):
        Settings(modle="x")


def test_the_constructor_names_every_setting():
    """Settings' keyword parameters are its fields, so help() and IDEs list every setting."""
    import inspect

    parameters = inspect.signature(Settings).parameters
    assert [name for name, p in parameters.items() if p.kind is p.KEYWORD_ONLY] == list(Settings.model_fields)
    assert all(p.default is None for p in parameters.values())


def test_empty_ini_values_mean_unset(tmp_path):
    ini = write_ini(tmp_path / "c.ini", "[judge]\napi_base =\nmodel =\n[api_keys]\nanthropic =\n")
    settings = Settings(config_path=ini)
    assert settings.api_base is None and settings.model == "claude-haiku-4-5-20251001"
    assert settings.api_key_for("anthropic") is None


def test_example_file_documents_every_key():
    example = Path(__file__).resolve().parents[1] / "config.ini.example"
    values, _ = read_config_ini(example)
    text = example.read_text()
    shown = {name for name in Settings.model_fields if name != "api_keys"}
    for name in shown:
        assert f"\n{name} =" in text, f"config.ini.example does not document {name}"
    assert "[api_keys]" in text
    assert Settings(config_path=example).provider == values["provider"]


# -- make_judge ----------------------------------------------------------------------------
def test_make_judge_unknown_provider_suggests_close_names():
    with pytest.raises(ConfigError, match=r"provider 'antropic'.*Did you mean 'anthropic'"):
        make_judge(provider="antropic")


def test_make_judge_key_from_settings_and_model_prefix(monkeypatch):
    from llm_validation_framework.judges.litellm.judge import LiteLLMJudge

    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    judge = make_judge()
    assert isinstance(judge, LiteLLMJudge)
    assert judge.name == "anthropic/claude-haiku-4-5-20251001"
    assert judge._api_key.get_secret_value() == SECRET
    assert make_judge(model="anthropic/claude-sonnet-4-5").name == "anthropic/claude-sonnet-4-5"


def test_make_judge_local_server_needs_no_key():
    judge = make_judge(provider="ollama", model="llama3.2", api_base="http://localhost:11434")
    assert (judge.name, judge.api_base) == ("ollama/llama3.2", "http://localhost:11434")
    judge = make_judge(provider="openai", model="qwen", api_base="http://127.0.0.1:8080/v1")
    assert judge.name == "openai/qwen"


def test_make_judge_other_provider_needs_a_model():
    with pytest.raises(ConfigError, match="model is required for provider 'openai'"):
        make_judge(provider="openai", api_base="http://127.0.0.1:8080/v1")


def test_make_judge_model_with_provider_prefix_picks_the_provider(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    assert make_judge(model="openai/gpt-4o-mini").name == "openai/gpt-4o-mini"
    # an explicit provider keeps its meaning: OpenRouter model names start with the vendor
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-y")
    assert make_judge(provider="openrouter", model="anthropic/claude-3.5").name == "openrouter/anthropic/claude-3.5"


def test_make_judge_arguments_override_given_settings(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    settings = Settings(provider="anthropic")
    judge = make_judge(provider="openai", model="gpt-4o-mini", settings=settings)
    assert judge.name == "openai/gpt-4o-mini"
    assert settings.provider == "anthropic" and settings.origin("model") == "default"  # not mutated


def test_make_judge_local_delegates_to_local_judge(monkeypatch):
    from llm_validation_framework.judges.local import judge as local

    seen = {}

    def fake_from_settings(cls, settings):
        seen["settings"] = settings
        return "local judge"

    monkeypatch.setattr(local.LocalJudge, "from_settings", classmethod(fake_from_settings))
    assert make_judge(provider="local") == "local judge"
    assert seen["settings"].provider == "local"
