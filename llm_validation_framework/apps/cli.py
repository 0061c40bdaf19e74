"""``lvf``: the command line, thin over :func:`~llm_validation_framework.runner.run_dataset` (built with click).

    lvf run CASES.jsonl --agent accuracy,citation [--provider P --model M --api-base URL]
            [--concurrency N] [--out results.jsonl] [--html report.html] [--resume] [--limit N]
            [--no-cache] [--map question=prompt ...] [--ray [ADDRESS]]
    lvf check --agent relevancy --question "…" --answer "…"
    lvf run CASES.jsonl --suite suite.toml        (an agent declared in a suite file; also lvf check --suite)
    lvf config show
    lvf report results.jsonl --html report.html
    lvf compare BASE.jsonl NEW.jsonl [--html diff.html] [--fail-on-regression]
    lvf calibrate results.jsonl --label FIELD [--write suite.toml]
    lvf steps show|pin|forget [KEY]            (the evaluation steps of criteria checks)
    lvf serve [--port 8765 --model m.gguf]        (the local model over an OpenAI-compatible API)

Exit codes: 0 every case passed; 1 some case failed, was unscored or errored; 2 usage or
configuration error; 130 interrupted (the results so far are kept: re-run with --resume).
``--judge module:attr`` uses any Judge object (or a zero-argument callable returning one)
instead of provider/model: custom judges, and the ScriptedJudge the tests inject.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

from ..errors import ConfigError, LVFError
from .calibrate import calibrate as _calibrate
from .compare.command import compare as _compare
from .serve.command import serve as _serve
from .steps import steps as _steps
from .suites import check_suites, suite_agents
from .terminal import console as _console
from .terminal import echo, printable

if TYPE_CHECKING:
    from ..infra.config import Settings
    from ..judges.base import Judge

__all__ = ["main"]

#: a click command function the shared judge options decorate
F = TypeVar("F", bound=Callable[..., Any])

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130

_judge_options = [
    click.option("--provider", help="litellm provider (anthropic, openai, ollama …) or 'local' for the offline judge"),
    click.option("--model", help="judge model name"),
    click.option("--api-base", help="server URL for Ollama / vLLM / llama.cpp / a proxy"),
    click.option("--config", "config_path", type=click.Path(dir_okay=False), help="config.ini to read"),
    click.option("--judge", "judge_path", metavar="MODULE:ATTR",
                 help="use this Judge object (or a callable returning one) instead of --provider/--model"),
    click.option("--no-cache", is_flag=True, help="do not read or write the judge-response cache"),
    click.option("--cache-path", type=click.Path(dir_okay=False), help="sqlite file of the judge-response cache"),
]


def judge_options(func: F) -> F:
    for option in reversed(_judge_options):
        func = option(func)
    return func


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="llm_validation_framework", message="lvf %(version)s")
def main() -> None:
    """Check LLM answers with LLM-as-a-judge agents."""


# ---------------------------------------------------------------------------------------
@main.command()
@click.argument("cases", type=click.Path(dir_okay=False))
@click.option("--agent", "-a", "agents", multiple=True,
              help="agent name(s), comma separated: accuracy, relevancy, citation, answer_accuracy, "
                   "context_relevance, groundedness (or your own as module:Class, module:function or "
                   "module:agent, found in the current directory first)")
@click.option("--suite", "suites", multiple=True, type=click.Path(dir_okay=False), metavar="SUITE.toml",
              help="an agent declared in a suite file: checks, weights, vetoes, threshold (repeatable; "
                   "with or instead of --agent)")
@judge_options
@click.option("--concurrency", "-j", type=click.IntRange(min=1), help="cases in flight at once (default: settings, 8)")
@click.option("--ray", "ray_address", is_flag=False, flag_value="local", default=None, metavar="[ADDRESS]",
              help="evaluate the cases in Ray actors: alone, a local Ray instance; auto, HOST:PORT or "
                   "ray://HOST:10001 joins a cluster (needs the [ray] extra; see docs/distributed.md)")
@click.option("--ray-actors", type=click.IntRange(min=1), help="Ray actors (default: the cluster's CPUs / --ray-cpus)")
@click.option("--ray-cpus", type=click.FloatRange(min=0, min_open=True), default=1.0, show_default=True,
              help="CPUs per Ray actor (a local judge uses that many threads)")
@click.option("--out", "-o", type=click.Path(dir_okay=False), help="results JSONL (default: <cases>.results.jsonl)")
@click.option("--html", type=click.Path(dir_okay=False), help="also write a self-contained HTML report here")
@click.option("--resume", is_flag=True, help="keep the cases already in --out, run the rest")
@click.option("--overwrite", is_flag=True, help="replace an existing --out file")
@click.option("--limit", type=click.IntRange(min=1), help="only the first N cases")
@click.option("--map", "field_map", multiple=True, metavar="OURS=THEIRS",
              help="read our field from another column, e.g. --map question=prompt (repeatable)")
@click.option("--threshold", type=click.FloatRange(0, 1), help="pass threshold for every agent")
@click.option("--repeats", type=click.IntRange(min=1), help="ask each check N times (odd) and keep the median")
@click.option("--no-inputs", is_flag=True, help="leave the cases' inputs (question, answer, passages …) out of the "
              "results file, for private data")
@click.option("--quiet", "-q", is_flag=True, help="no progress bar")
def run(cases: str, agents: tuple[str, ...], suites: tuple[str, ...], provider: str | None, model: str | None, api_base: str | None,
        config_path: str | None, judge_path: str | None, no_cache: bool, cache_path: str | None,
        concurrency: int | None, ray_address: str | None, ray_actors: int | None, ray_cpus: float,
        out: str | None, html: str | None, resume: bool, overwrite: bool,
        limit: int | None, field_map: tuple[str, ...], threshold: float | None, repeats: int | None,
        no_inputs: bool, quiet: bool) -> None:
    """Evaluate every case of a JSONL file; write results as they finish."""
    from ..runner import default_out_path, parse_field_map, render_summary, run_dataset
    from ..runner.registry import agent_target, split_agent_names
    from .interrupts import announcing_stop, resume_command, sigterm_as_interrupt
    from .progress_bar import RunProgressBar

    out_path = Path(out) if out else default_out_path(cases)
    bar = RunProgressBar(enabled=False if quiet else None)
    try:
        check_suites(suites, agents)  # cheap mistakes first, before any judge is built
        for name in split_agent_names(list(agents)) if agents else ():
            agent_target(name)
        parse_field_map(list(field_map))
        _no_conflict(judge_path, provider, model, api_base)
        settings = _settings(config_path, provider, model, api_base) if judge_path is None else None
        judge = _load_judge(judge_path) if judge_path else _make_judge(settings)
        cache = _cache_choice(no_cache, cache_path, settings)
        if concurrency is None:
            concurrency = settings.concurrency if settings is not None else 8
        chosen = [*agents, *suite_agents(suites, judge, threshold=threshold, repeats=repeats)]
        with bar, sigterm_as_interrupt():  # SIGTERM (CI, kill, Kubernetes) ends the run as Ctrl-C does
            summary = run_dataset(
                cases, chosen, concurrency=concurrency, out=out_path, resume=resume, overwrite=overwrite,
                limit=limit, field_map=list(field_map), cache=cache,
                on_progress=announcing_stop(bar.update, out_path), judge=judge,
                provider=provider, model=model, api_base=api_base, config_path=config_path, threshold=threshold,
                repeats=repeats, ray=_ray_choice(ray_address, ray_actors, ray_cpus), inputs=not no_inputs, settings={"config_file": str(settings.config_file.path) if settings and settings.config_file.path
                          else None, "judge_path": judge_path})
    except KeyboardInterrupt:
        done = bar.last.done if bar.last else 0
        echo(f"\ninterrupted: {done} result(s) of this run are in {out_path}. Continue with:\n  "
             + resume_command(sys.argv[1:]), err=True)
        if html:  # the report of what finished: a long run stopped is still worth reading
            _write_html(out_path, html, "HTML report of the cases finished so far")
        sys.exit(EXIT_INTERRUPTED)
    except LVFError as exc:  # ConfigError, RunAbortedError …
        _fail(exc)
    except OSError as exc:  # unwritable --out, disk full …
        _fail(f"{exc.strerror or exc}: {exc.filename or out_path}")
    render_summary(summary, _console())
    if html:
        _write_html(out_path, html, "HTML report")
    sys.exit(summary.exit_code)


def _write_html(results: Path, html: str, what: str) -> None:
    from .report import write_report

    try:
        write_report(results, html)
    except (LVFError, OSError) as exc:  # no results line yet, an unwritable path: said, the exit code kept
        echo(f"no {what}: {exc}", err=True)
        return
    echo(f"{what}: {html}")


# ---------------------------------------------------------------------------------------
@main.command()
@click.option("--agent", "-a", "agent_name", help="agent name, e.g. relevancy or accuracy")
@click.option("--suite", type=click.Path(dir_okay=False), metavar="SUITE.toml",
              help="instead of --agent: the agent a suite file declares")
@click.option("--question")
@click.option("--answer")
@click.option("--reference")
@click.option("--context", "contexts", multiple=True, help="a passage (repeatable)")
@click.option("--case", "case_json", help="the whole case as a JSON object instead of the options above")
@judge_options
@click.option("--threshold", type=click.FloatRange(0, 1))
@click.option("--json", "as_json", is_flag=True, help="print the full result as JSON")
def check(agent_name: str | None, suite: str | None, question: str | None, answer: str | None, reference: str | None,
          contexts: tuple[str, ...], case_json: str | None, provider: str | None, model: str | None,
          api_base: str | None, config_path: str | None, judge_path: str | None, no_cache: bool,
          cache_path: str | None, threshold: float | None, as_json: bool) -> None:
    """Evaluate one case given on the command line."""
    from ..infra.secrets import known_secrets, scrub
    from ..runner.registry import agent_target, build_agents

    known = None  # the environment's secrets until the judge's are known
    try:
        if (agent_name is None) == (suite is None):
            raise ConfigError("give one agent: --agent NAME or --suite suite.toml")
        check_suites([suite] if suite else [], [agent_name] if agent_name else [])
        if agent_name:
            agent_target(agent_name)  # a mistaken name is told before any judge is built
        data = _case_from_options(question, answer, reference, contexts, case_json)
        _no_conflict(judge_path, provider, model, api_base)
        settings = _settings(config_path, provider, model, api_base) if judge_path is None else None
        judge = _load_judge(judge_path) if judge_path else _make_judge(settings)
        known = known_secrets([judge])  # a judge may echo its key: none of it is printed
        cache = _cache_choice(no_cache, cache_path, settings)
        if cache is not False:
            from ..judges.cache import CachedJudge

            judge = CachedJudge(judge, None if cache is True else cache)
        if suite:
            agent = suite_agents([suite], judge, threshold=threshold)[0]
        else:
            assert agent_name is not None  # exactly one of --agent and --suite, checked above
            agent = build_agents([agent_name], judge, threshold=threshold)[0][1]
        result = agent.evaluate(data)
    except LVFError as exc:
        _fail(exc, known)
    if as_json:
        echo(json.dumps(scrub(result.to_dict(), known), ensure_ascii=False, indent=2, default=str), secrets=known)
    else:
        _print_result(result, known)
    sys.exit(EXIT_OK if result.passed else EXIT_FAILED)


# ---------------------------------------------------------------------------------------
@main.group()
def config() -> None:
    """Inspect the resolved settings."""


@config.command("show")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help="config.ini to read")
@click.option("--provider")
@click.option("--model")
@click.option("--api-base")
def config_show(config_path: str | None, provider: str | None, model: str | None, api_base: str | None) -> None:
    """Print every setting, its value (secrets redacted) and where it came from."""
    from rich.table import Table

    try:
        settings = _settings(config_path, provider, model, api_base)
    except LVFError as exc:
        _fail(exc)
    table = Table(title="lvf settings (precedence: argument > environment > config.ini > default)",
                  title_justify="left")
    table.add_column("setting")
    table.add_column("value")
    table.add_column("from")
    for row in settings.report():
        table.add_row(row.name, row.value, row.source)
    _console().print(table)


# ---------------------------------------------------------------------------------------
@main.command()
@click.argument("results", type=click.Path(exists=True, dir_okay=False))
@click.option("--html", required=True, type=click.Path(dir_okay=False), help="where to write the report")
def report(results: str, html: str) -> None:
    """Write the HTML report of an existing results file."""
    from .report import write_report

    try:
        write_report(results, html)
    except LVFError as exc:
        _fail(exc)
    echo(f"HTML report: {html}")


main.add_command(_compare)  # lvf compare BASE.jsonl NEW.jsonl (apps/compare/)
main.add_command(_calibrate)  # lvf calibrate results.jsonl --label FIELD (apps/calibrate.py)
main.add_command(_steps)  # lvf steps show|pin|forget (apps/steps.py)


# ---------------------------------------------------------------------------------------
main.add_command(_serve)  # lvf serve (apps/serve/command.py)


# ---------------------------------------------------------------------------------------
def _no_conflict(judge_path: str | None, provider: str | None, model: str | None, api_base: str | None) -> None:
    if judge_path and (provider or model or api_base):
        raise ConfigError("--judge replaces --provider/--model/--api-base: give one or the other")


def _settings(config_path: str | None, provider: str | None, model: str | None, api_base: str | None) -> Settings:
    from ..infra.config import Settings

    return Settings(config_path=config_path, provider=provider, model=model, api_base=api_base)


def _make_judge(settings: Settings | None) -> Judge:
    from ..judges import make_judge

    return make_judge(settings=settings)


def _load_judge(path: str) -> Judge:
    """``package.module:attr`` → a Judge (``attr`` may be a Judge or a zero-argument callable returning one)."""
    from ..judges.base import Judge

    module_name, _, attr = path.partition(":")
    if not module_name or not attr:
        raise ConfigError(f"--judge {path!r}: write MODULE:ATTR, e.g. --judge my_project.judges:make_judge")
    from ..runner.registry import import_user_module

    try:
        module = import_user_module(module_name)
    except ImportError as exc:
        raise ConfigError(f"--judge {path!r}: cannot import {module_name} ({exc})") from exc
    target = getattr(module, attr, None)
    if target is None:
        raise ConfigError(f"--judge {path!r}: {module_name} has no attribute {attr!r}")
    judge = target if isinstance(target, Judge) else target() if callable(target) else target
    if not isinstance(judge, Judge):
        raise ConfigError(f"--judge {path!r} gave {type(judge).__name__}, not a Judge")
    return judge


def _cache_choice(no_cache: bool, cache_path: str | None, settings: Settings | None) -> bool | Path:
    if no_cache:
        return False
    if cache_path:
        return Path(cache_path)
    cache_dir = settings.cache_dir if settings is not None else None
    if cache_dir:
        return Path(cache_dir) / "judge-cache.sqlite"
    return True


def _ray_choice(address: str | None, actors: int | None, cpus: float) -> Any:
    """--ray [ADDRESS] and its options as run_dataset's ``ray=`` (None: in this process)."""
    if address is None:
        if actors is not None:
            raise ConfigError("--ray-actors needs --ray")
        return None
    from ..runner import RayOptions

    return RayOptions(address=address, actors=actors, cpus_per_actor=cpus)


def _case_from_options(question: str | None, answer: str | None, reference: str | None,
                       contexts: tuple[str, ...], case_json: str | None) -> dict[str, Any]:
    data: dict[str, Any] = {}
    if case_json:
        try:
            data = json.loads(case_json)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"--case is not valid JSON: {exc.msg} at column {exc.colno}") from None
        if not isinstance(data, dict):
            raise ConfigError("--case must be a JSON object like '{\"question\": …, \"answer\": …}'")
    for key, value in (("question", question), ("answer", answer), ("reference", reference)):
        if value is not None:
            data[key] = value
    if contexts:
        data["contexts"] = list(contexts)
    if not data:
        raise ConfigError("give the case with --question/--answer (and --reference, --context) or --case JSON")
    return data


def _print_result(result: Any, secrets: frozenset[str]) -> None:
    from rich.markup import escape
    from rich.table import Table

    def shown(text: Any) -> str:  # a check's reason may quote the judge's reply: secrets masked, controls escaped
        return escape(printable(text, secrets=secrets))

    console = _console(secrets=secrets)
    score = "-" if result.score is None else f"{result.score:.3f}"
    colour = {"PASS": "green", "FAIL": "red"}.get(result.status, "yellow")
    console.print(f"[bold {colour}]{result.status}[/]  {shown(result.agent)}  score {score}  "
                  f"threshold {result.threshold}")
    table = Table(show_header=True)
    for column in ("check", "score", "method", "weight", "reason"):
        table.add_column(column, overflow="fold")
    for item in result.checks:
        table.add_row(shown(item.name), "-" if item.score is None else f"{item.score:.3f}", item.method,
                      "-" if item.weight is None else f"{item.weight:g}", shown(item.reason))
    console.print(table)
    usage = result.usage
    cost = "unknown" if usage.cost_usd is None else f"${usage.cost_usd:.5f}"
    console.print(f"judge {shown(result.judge)}: {usage.calls} call(s), {usage.cached_calls} cached, "
                  f"{usage.total_tokens} tokens, cost {cost}, {result.duration_s:.2f}s")


def _fail(exc: BaseException | str, secrets: frozenset[str] | None = None) -> NoReturn:
    echo(f"error: {exc}", err=True, secrets=secrets)
    sys.exit(EXIT_USAGE)


if __name__ == "__main__":  # pragma: no cover
    main()
