"""What several test files share: the stub OpenAI-compatible server, the CLI probing helpers and
the Ray judges. Benchmarks that need the stub server import it from here too."""
