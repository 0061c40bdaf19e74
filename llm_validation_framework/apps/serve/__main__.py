"""``python -m llm_validation_framework.apps.serve``: the ``lvf serve`` command, without the ``lvf`` script."""

from .command import serve

if __name__ == "__main__":  # pragma: no cover
    serve.main(prog_name="python -m llm_validation_framework.apps.serve")
