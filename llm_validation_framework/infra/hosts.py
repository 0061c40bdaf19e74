"""Hosts and URLs: which hosts are this machine, and URLs safe to show (stdlib only; used by the server,
its clients and the results file)."""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import unquote, urlsplit, urlunsplit

__all__ = ["hide_userinfo", "is_loopback", "split_userinfo"]

_URL_USERINFO = re.compile(r"(?P<scheme>[a-z][a-z0-9+.-]*://)[^/@\s]+@", re.I)


def is_loopback(host: str) -> bool:
    """``localhost`` or a loopback IP address (127.0.0.0/8, ::1)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def hide_userinfo(text: str, mask: str = "**********") -> str:
    """``text`` with the ``user:password@`` part of every URL in it replaced by ``mask``."""
    return _URL_USERINFO.sub(lambda m: m.group("scheme") + mask + "@", text)


def split_userinfo(url: str) -> tuple[str, str | None, str | None]:
    """``http://user:pass@host/v1`` → ``("http://host/v1", "user", "pass")`` (percent-decoded);
    a URL without credentials → ``(url, None, None)``."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url, None, None
    userinfo, _, hostport = parts.netloc.rpartition("@")
    user, colon, password = userinfo.partition(":")
    return (urlunsplit(parts._replace(netloc=hostport)), unquote(user),
            unquote(password) if colon else None)
