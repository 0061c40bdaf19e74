"""The judge's credentials: where they come from, how they are sent, and that no message shows them.

A server URL may carry ``user:password@`` (a proxy behind HTTP Basic authentication). litellm's
HTTP client refuses such a URL beside the ``Authorization`` header it always sends ("Cannot
combine AUTHORIZATION header with credentials encoded in URL"), so the credentials leave the
URL and travel as that header, which is what such a URL means. A URL password and an API key
together are a configuration error: only one ``Authorization`` header can be sent.
"""

from __future__ import annotations

import base64

from pydantic import SecretStr

from ...errors import ConfigError
from ...infra.hosts import split_userinfo

__all__ = ["redact_secrets", "url_credentials"]


def url_credentials(api_base: str | None, api_key: SecretStr | None
                    ) -> tuple[str | None, SecretStr | None, SecretStr | None]:
    """``(api_base without user:password@, that part as a Basic Authorization header, the password)``."""
    if not api_base:
        return None, None, None
    url, user, password = split_userinfo(api_base.rstrip("/"))
    if user is None:
        return url, None, None
    if api_key is not None and api_key.get_secret_value():
        raise ConfigError(
            "api_base has credentials in it (user:password@) and an API key is set too: the judge can send "
            "only one. Fix: remove the user:password@ part from api_base (--api-base, LVF_API_BASE or "
            "[judge] api_base), or unset the API key (api_keys / the provider's *_API_KEY variable)")
    token = base64.b64encode(f"{user}:{password or ''}".encode()).decode("ascii")
    return url, SecretStr(f"Basic {token}"), SecretStr(password) if password else None


def redact_secrets(text: str, *secrets: SecretStr | None) -> str:
    """``text`` with each secret (and a Basic header's token alone) replaced by ``[redacted]``."""
    for secret in secrets:
        value = secret.get_secret_value() if secret is not None else ""
        for shown in (value, value.removeprefix("Basic ")):
            if shown and len(shown) >= 4:
                text = text.replace(shown, "[redacted]")
    return text
