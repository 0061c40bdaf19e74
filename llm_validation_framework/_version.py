"""The package version, in one place (read by packaging and written into results files)."""

__version__ = "0.1.0"
