"""mkdocs hook: render the Sphinx cross-reference roles of the package's docstrings as code.

The docstrings use ``:class:`~pkg.mod.Name``` and ``:meth:`Agent.evaluate``` (read by ``help()``
and IDEs); Markdown renders them as a role name followed by inline code. The hook keeps the code
and drops the role, showing the last dotted part when the target starts with ``~``.
"""

from __future__ import annotations

import re

_ROLE = re.compile(r":(?:py:)?(?:class|meth|func|mod|attr|data|exc|obj|const):<code>(~?)([^<]*)</code>")


def _replace(match: re.Match[str]) -> str:
    short, target = match.groups()
    return f"<code>{target.rsplit('.', 1)[-1] if short else target}</code>"


def on_page_content(html: str, **kwargs: object) -> str:
    return _ROLE.sub(_replace, html)
