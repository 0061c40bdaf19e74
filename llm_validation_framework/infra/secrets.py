"""The secrets a run or an evaluation knows, so that none of them is ever written: not in settings, not in
a trace, and not where a judge echoes one back (a reply quoting the key lands in ``raw_replies``, a reason,
an error).

Known secrets are the values of the judges' ``SecretStr`` attributes (the API key, a server URL's
password), the passwords of URLs they were given, and the environment's key-like variables
(``*_API_KEY``, ``*_TOKEN``, ``*_SECRET``, ``*_PASSWORD``: ``LVF_<PROVIDER>_API_KEY`` and the
providers' standard names) and the passwords in its URLs.
:class:`~llm_validation_framework.runner.results_file.ResultsWriter`
replaces each of them, and any URL's ``user:password@``, in every string of every line it writes;
the HTML report is made from that file; span attributes get the same masking
(:mod:`~llm_validation_framework.infra.tracing`). A judge is recognised by its ``verdict`` method, so this
module needs nothing above the infra layer. Values shorter than :data:`MIN_SECRET_CHARS` are not
treated as secrets: masking every ``"abc"`` would garble the results, and such a value is no key.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

from .hosts import hide_userinfo, split_userinfo
from .secret_forms import mask_secrets

__all__ = ["MIN_SECRET_CHARS", "known_secrets", "scrub"]

MIN_SECRET_CHARS = 8
_SECRET_ENV = re.compile(r"(API_?KEY|_KEY|TOKEN|SECRET|PASSWORD|PASSWD)$", re.I)
_WALK_DEPTH = 4


def known_secrets(holders: Iterable[Any] = (), environ: Mapping[str, str] | None = None) -> frozenset[str]:
    """Secret values held by ``holders`` (judges, or agents and the judges they hold) and the environment."""
    found: set[str] = set()
    for name, value in (os.environ if environ is None else environ).items():
        if _SECRET_ENV.search(name):
            found.add(value.strip())
        _url_password(value, found)
    seen: set[int] = set()
    for holder in holders:
        _walk(holder, found, seen, _WALK_DEPTH)
    return frozenset(value for value in found if len(value) >= MIN_SECRET_CHARS)


def scrub(value: Any, secrets: frozenset[str], mask: str = "**********") -> Any:
    """``value`` (a record: mappings, lists, strings …) with every secret and URL password in its strings masked;
    a secret also in the forms an echo gives it (another letter case, cut by line breaks, base64 …: see
    :mod:`.secret_forms`)."""
    if isinstance(value, str):
        value = hide_userinfo(value, mask) if "@" in value else value
        return mask_secrets(value, secrets, mask)
    if isinstance(value, Mapping):
        return {key: scrub(item, secrets, mask) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [scrub(item, secrets, mask) for item in value]
    return value


def _walk(obj: Any, found: set[str], seen: set[int], depth: int) -> None:
    """The secrets of a judge (its SecretStr attributes, URL passwords) and of the judges it wraps; an agent
    is walked for its judge and its sub-agents' judges."""
    if depth < 0 or id(obj) in seen:
        return
    seen.add(id(obj))
    if type(obj).__name__ in ("SecretStr", "SecretBytes"):
        secret = obj.get_secret_value()
        found.add(secret.decode(errors="replace") if isinstance(secret, bytes) else str(secret))
        if isinstance(secret, str) and secret.startswith("Basic "):  # a header made from URL credentials
            found.add(secret.removeprefix("Basic "))
        return
    if isinstance(obj, str):
        _url_password(obj, found)
        return
    if isinstance(obj, (list, tuple)):
        for item in obj:
            _walk(item, found, seen, depth - 1)
        return
    if isinstance(obj, Mapping):
        for item in obj.values():
            _walk(item, found, seen, depth - 1)
        return
    if not _is_judge(obj) and getattr(obj, "judge", None) is None:
        return  # neither a judge nor something holding one: nothing of ours to find
    for item in getattr(obj, "__dict__", {}).values():
        if isinstance(item, (str, list, tuple, Mapping)) or _is_judge(item) or type(item).__name__ == "SecretStr" \
                or getattr(item, "judge", None) is not None:
            _walk(item, found, seen, depth - 1)


def _is_judge(obj: Any) -> bool:
    return callable(getattr(obj, "verdict", None)) and hasattr(obj, "describe")


def _url_password(text: str, found: set[str]) -> None:
    if "://" in text and "@" in text:
        _, _, password = split_userinfo(text.strip())
        if password:
            found.add(password)
