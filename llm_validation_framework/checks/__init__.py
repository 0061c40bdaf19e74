"""Checks: one sub-check per module (prompt constant + verdict options + scoring)."""
