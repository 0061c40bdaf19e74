"""The one error of ``lvf serve``: a request refused, answered in OpenAI's error shape."""

from __future__ import annotations

from typing import Any

__all__ = ["ServeError"]


class ServeError(Exception):
    """A request the server refuses or the backend could not answer; carries the HTTP status.

    ``param`` names the request field at fault (OpenAI's ``param``); ``kind`` is OpenAI's error
    ``type`` (``invalid_request_error``, ``authentication_error``, ``not_found``, ``model_error``,
    ``server_error``).
    """

    def __init__(self, message: str, *, status: int = 400, param: str | None = None,
                 kind: str = "invalid_request_error") -> None:
        super().__init__(message)
        self.status = status
        self.param = param
        self.kind = kind

    def body(self) -> dict[str, Any]:
        """The reply body: ``{"error": {"message", "type", "param", "code"}}``."""
        return {"error": {"message": str(self), "type": self.kind, "param": self.param, "code": self.status}}
