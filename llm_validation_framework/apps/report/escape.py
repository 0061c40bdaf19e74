"""The one way text from a results file reaches the HTML report: escaped, and cut when very long.

Every such text is adversarial (answers under test, retrieved passages, judge replies): it is
escaped for element content and for quoted attribute values alike, and never placed inside a
script, a URL attribute or an event handler.
"""

from __future__ import annotations

import html
from typing import Any

__all__ = ["MAX_TEXT", "escape"]

#: characters of one text shown in the report before it is cut (the full text stays in the file)
MAX_TEXT = 4000


def escape(value: Any, limit: int = MAX_TEXT) -> str:
    """``value`` as text safe in HTML content and quoted attributes, cut after ``limit`` characters."""
    text = "" if value is None else str(value)
    if len(text) > limit:
        text = text[:limit] + f"… ({len(text) - limit} more characters)"
    return html.escape(text, quote=True)
