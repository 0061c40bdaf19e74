"""ServedBackend: the local judge's model in a running ``lvf serve``, reached over HTTP.

Several processes (test workers, notebooks) can share one loaded model instead of
each loading its own. This client sends the very prompts an in-process judge would and reads
the same top-token probabilities back, so verdicts, calibration and usage do not change.

It uses the standard library only (urllib, imported on the first request): a process that
scores through ``lvf serve`` loads no model, no xllamacpp, no numpy, no pydantic and no litellm.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from typing import Any

from ...errors import ConfigError, JudgeCallError
from ...infra.hosts import hide_userinfo, is_loopback
from .backend import Completion, completion_from_reply

__all__ = ["ServedBackend"]


class ServedBackend:
    """The model of an ``lvf serve`` process, reached over HTTP (stdlib only: no litellm, no model here).

    It sends the very prompts an in-process LocalJudge would, to ``POST {api_base}/completions``,
    and reads the same top-token probabilities back, so verdicts, calibration and usage match
    the in-process judge while one loaded model serves many processes. Requests are not
    serialised here: the server schedules them over its slots.
    """

    def __init__(self, api_base: str, *, api_key: str | None = None, timeout_s: float = 600.0,
                 model: str | None = None) -> None:
        if not isinstance(api_base, str) or not api_base.startswith(("http://", "https://")):
            raise ConfigError(f"api_base must be the server's URL such as 'http://127.0.0.1:8765/v1', got {api_base!r}")
        if isinstance(timeout_s, bool) or not isinstance(timeout_s, (int, float)) or not timeout_s > 0:
            raise ConfigError(f"timeout_s must be a positive number of seconds, got {timeout_s!r}")
        import urllib.parse

        parts = urllib.parse.urlsplit(api_base.rstrip("/"))
        #: ``user:password@`` in the URL (a server behind a proxy asking for basic auth) goes in a header:
        #: urllib would take it for part of the host name
        self._basic_auth = None
        if parts.username is not None:
            if api_key:
                raise ConfigError("api_base has user:password@ and an api_key (or LVF_SERVE_API_KEY) is set too: "
                                  "give one of them "
                                  "(api_key is sent as a Bearer token, user:password as basic auth)")
            import base64

            userinfo = f"{urllib.parse.unquote(parts.username)}:{urllib.parse.unquote(parts.password or '')}"
            self._basic_auth = base64.b64encode(userinfo.encode()).decode()
            parts = parts._replace(netloc=parts.netloc.rpartition("@")[2])
        self.api_base = urllib.parse.urlunsplit(parts)  # requests go here; never the credentials
        self.display_base = hide_userinfo(api_base.rstrip("/"))  # what messages show: no user:password@
        self.timeout_s = float(timeout_s)
        self._api_key = api_key
        #: the server schedules concurrent requests itself (one slot or several)
        self.lock = contextlib.nullcontext()
        self.name = model or self._served_model()

    def __repr__(self) -> str:  # never the key
        return f"ServedBackend(api_base={self.display_base!r}, model={self.name!r})"

    def _served_model(self) -> str:
        reply = self._request("GET", "/models", None, timeout_s=min(self.timeout_s, 10.0))
        try:
            return str(reply["data"][0]["id"]).lower()
        except (KeyError, IndexError, TypeError):
            raise JudgeCallError(f"{self.display_base}/models lists no model: is this an `lvf serve` server?") from None

    def complete(self, prompt: str, *, max_tokens: int, n_probs: int, stop: Sequence[str] = ()) -> Completion:
        body: dict[str, Any] = {"model": self.name, "prompt": prompt, "max_tokens": max_tokens, "n_probs": n_probs,
                                "temperature": 0.0}
        if stop:
            body["stop"] = list(stop)
        return completion_from_reply(self._request("POST", "/completions", body, timeout_s=self.timeout_s),
                                     f"the model server at {self.display_base}")

    def _request(self, method: str, path: str, body: dict[str, Any] | None, *, timeout_s: float) -> Any:
        import urllib.error
        import urllib.parse
        import urllib.request

        headers = {"Content-Type": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        elif self._basic_auth:
            headers["Authorization"] = f"Basic {self._basic_auth}"
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.api_base + path, data=data, method=method, headers=headers)
        # a server on this machine is reached directly, whatever http_proxy says
        loopback = is_loopback(urllib.parse.urlsplit(self.api_base).hostname or "")
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({})) if loopback else None
        try:
            with (opener.open if opener else urllib.request.urlopen)(request, timeout=timeout_s) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as exc:
            try:
                detail = json.loads(exc.read()).get("error", {}).get("message")
            except Exception:  # noqa: BLE001 - the status alone then
                detail = None
            hint = (" (the server predates text completions: upgrade llm_validation_framework there)"
                    if exc.code == 404 and path == "/completions" else "")
            raise JudgeCallError(f"the model server at {self.display_base} answered {method} {path} with HTTP "
                                 f"{exc.code}: {detail or exc.reason}{hint}") from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            if isinstance(reason, TimeoutError) or isinstance(exc, TimeoutError):
                raise JudgeCallError(f"the model server at {self.display_base} did not answer {method} {path} within "
                                     f"{timeout_s:g}s") from None
            raise JudgeCallError(f"no model server answers at {self.display_base} ({reason}). Fix: start one with "
                                 "`lvf serve` (it prints its URL), or drop api_base to load the model in this "
                                 "process") from None
        except ValueError as exc:  # not JSON
            raise JudgeCallError(f"the model server at {self.display_base} sent a reply that is not JSON: "
                                 f"{exc}") from None
