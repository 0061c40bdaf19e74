"""Agents: weighted combinations of checks with a pass threshold."""
