"""``lvf steps``: the evaluation steps criteria checks' judges wrote, shown, pinned or forgotten.

    lvf steps show [NAME_OR_KEY] [--json]
    lvf steps pin KEY --step "Find any dosage or treatment the answer recommends." --step "…"
    lvf steps pin KEY --file steps.txt          (one step a line)
    lvf steps forget KEY                        (the judge writes them again on the next run)

``--dir`` reads another store than ``$LVF_CACHE_DIR/criteria-steps`` (see checks/criteria_steps.py).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from ..errors import LVFError

__all__ = ["steps"]

_dir_option = click.option("--dir", "directory", type=click.Path(file_okay=False),
                           help="the steps store (default: $LVF_CACHE_DIR/criteria-steps, else the user cache)")


@click.group()
def steps() -> None:
    """Show, pin or forget the evaluation steps of criteria checks."""


@steps.command("show")
@click.argument("which", required=False, metavar="[NAME_OR_KEY]")
@click.option("--json", "as_json", is_flag=True, help="print them as JSON")
@_dir_option
def show(which: str | None, as_json: bool, directory: str | None) -> None:
    """Print every stored set of steps (or those of one criterion), with its key, judge and source."""
    from ..checks.criteria_steps import list_steps

    try:
        found = list_steps(which, directory)
    except LVFError as exc:
        _fail(exc)
    if as_json:
        click.echo(json.dumps([item.to_dict() for item in found], ensure_ascii=False, indent=2))
        return
    if not found:
        click.echo("no stored steps" + (f" for {which!r}" if which else "") + ": a criteria check without steps "
                   "stores its judge's the first time it runs")
        return
    for item in found:
        click.echo(f"{item.key}  ({item.name}, judge {item.judge}, {item.source})")
        click.echo(f"  criterion: {item.criteria}")
        for number, step in enumerate(item.steps, start=1):
            click.echo(f"  {number}. {step}")


@steps.command("pin")
@click.argument("key")
@click.option("--step", "given", multiple=True, help="a step (repeat it, in order)")
@click.option("--file", "path", type=click.Path(exists=True, dir_okay=False), help="a text file, one step a line")
@_dir_option
def pin(key: str, given: tuple[str, ...], path: str | None, directory: str | None) -> None:
    """Replace the stored steps under KEY with yours; every later run uses them."""
    from ..checks.criteria_steps import pin_steps

    chosen = list(given) + (Path(path).read_text(encoding="utf-8").splitlines() if path else [])
    try:
        stored = pin_steps(key, chosen, directory)
    except LVFError as exc:
        _fail(exc)
    click.echo(f"pinned {len(stored.steps)} steps for {stored.name} (judge {stored.judge})")


@steps.command("forget")
@click.argument("key")
@_dir_option
def forget(key: str, directory: str | None) -> None:
    """Delete the stored steps under KEY: the judge writes them again on the next run."""
    from ..checks.criteria_steps import forget_steps

    try:
        removed = forget_steps(key, directory)
    except LVFError as exc:
        _fail(exc)
    click.echo(f"forgot {key}" if removed else f"nothing stored under {key}")


def _fail(exc: BaseException) -> None:
    click.echo(f"error: {exc}", err=True)
    sys.exit(2)
