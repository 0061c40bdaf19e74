"""The API reference shows what its docstrings point to."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_a_docstring_that_points_to_its_module_docstring_has_it_on_the_page():
    """"See the module docstring" must not send a reader of the API reference to a text the page
    does not show: such a name is documented through its module's entry (`::: module` with
    `members: [Name]`), which renders the module docstring above it."""
    reference = "\n".join(path.read_text(encoding="utf-8") for path in (ROOT / "docs" / "api").glob("*.md"))
    pointing = []
    for target in re.findall(r"^::: ([\w.]+)\s*$", reference, re.MULTILINE):
        try:
            importlib.import_module(target)
            continue  # a module entry: its docstring is on the page
        except ImportError:
            module_name, name = target.rsplit(".", 1)
        value = getattr(importlib.import_module(module_name), name)
        texts = [inspect.getdoc(value) or ""]
        if inspect.isclass(value):
            texts += [inspect.getdoc(member) or "" for attribute, member in vars(value).items()
                      if not attribute.startswith("_") or attribute == "__init__"]
        if any("module docstring" in text for text in texts):
            pointing.append(target)
    assert pointing == [], "document these through their module (`::: module` with `members: [Name]`)"


# -- the judge protocol page's labels table, read from the requests the checks really send ---------
PROTOCOL_PAGE = ROOT / "docs" / "judge-protocol.md"
TABLE_START, TABLE_END = "<!-- labels table: start -->", "<!-- labels table: end -->"
CASE = {"question": "Where is the Eiffel Tower?",
        "answer": "The Eiffel Tower is in Paris [1]. See https://www.toureiffel.paris/en.",
        "contexts": ["The Eiffel Tower stands on the Champ de Mars in Paris."], "reference": "Paris"}


def _modes() -> list[tuple[object, dict, tuple[str, ...]]]:
    """(check, the case's changes, when each of its request shapes is sent) for every shipped check."""
    from llm_validation_framework.checks.answer_accuracy import AnswerAccuracyCheck
    from llm_validation_framework.checks.citation_accuracy import CitationAccuracyCheck
    from llm_validation_framework.checks.citation_faithfulness import CitationFaithfulnessCheck
    from llm_validation_framework.checks.citation_relevancy import CitationRelevancyCheck
    from llm_validation_framework.checks.context_relevance import ContextRelevanceCheck
    from llm_validation_framework.checks.criteria import Criteria
    from llm_validation_framework.checks.factual import FactualCheck
    from llm_validation_framework.checks.relevancy import RelevancyCheck
    from llm_validation_framework.checks.response_groundedness import ResponseGroundednessCheck
    from llm_validation_framework.checks.support import SupportCheck

    return [
        (SupportCheck(), {}, ("each claim",)),
        (FactualCheck(), {}, ("with passages",)),
        (FactualCheck(), {"contexts": None}, ("without passages",)),
        (RelevancyCheck(), {}, ("the answer",)),
        (AnswerAccuracyCheck(), {}, ("the answer against the reference",)),
        (ContextRelevanceCheck(passage_verdict="rating"), {},
         ('all passages; each passage with `passage_verdict="rating"`',)),
        (ContextRelevanceCheck(passage_verdict="yes_no"), {},
         ("", 'each passage with `passage_verdict="yes_no"` (the local judge\'s choice)')),
        (ResponseGroundednessCheck(), {},
         ("the answer", "each sentence, when the score is low and the judge listed nothing")),
        (CitationAccuracyCheck(), {}, ("each cited sentence",)),
        (CitationFaithfulnessCheck(), {}, ('each claim (`granularity="sentence"` or `"marker"`)',)),
        (CitationFaithfulnessCheck(granularity="answer"), {}, ('the whole answer (`granularity="answer"`)',)),
        (CitationRelevancyCheck(), {}, ("each external citation",)),
        (Criteria("polite", "Is the answer polite?"), {},
         ("writing the evaluation steps, when none are given", "the default scale (`Scale` sets your own)")),
    ]


def _labels(options: dict[str, float]) -> str:
    return ", ".join(f"`{label}` ({score:g})" for label, score in options.items())


def labels_table() -> str:
    """The page's table, one row per distinct request shape of every shipped check."""
    import asyncio

    from llm_validation_framework.judges.scripted import ScriptedJudge
    from llm_validation_framework.types.inputs import parse_sample

    rows = ["| check | asked on | labels (score) | negative | reply keys |", "|---|---|---|---|---|"]
    listed: set[tuple[str, ...]] = set()
    for check, changes, whens in _modes():
        judge = ScriptedJudge(lambda request: {"verdict": request.labels[0], "reason": "r"})
        data = {key: value for key, value in {**CASE, **changes}.items() if value is not None}
        asyncio.run(check.run(parse_sample(data), judge))
        shapes: list[tuple[str, ...]] = []
        for request in judge.requests:
            shape = (request.check.split(":")[0], _labels(request.options),
                     ", ".join(f"`{label}`" for label in request.negative_labels),
                     ", ".join(f"`{key}`" for key in (["reason"] if request.prefer_reason else [])
                               + list(request.extra_fields) + ["verdict"]))
            if shape not in shapes:
                shapes.append(shape)
        assert len(shapes) == len(whens), f"{check!r} sends {len(shapes)} kinds of request: say when each is sent"
        for shape, when in zip(shapes, whens):
            if shape not in listed:
                listed.add(shape)
                rows.append(f"| `{shape[0]}` | {when} | {shape[1]} | {shape[2]} | {shape[3]} |")
    return "\n".join(rows)


def test_the_judge_protocol_page_lists_every_checks_labels_as_the_code_sends_them():
    text = PROTOCOL_PAGE.read_text(encoding="utf-8")
    assert TABLE_START in text and TABLE_END in text, f"{PROTOCOL_PAGE.name} lost its table markers"
    on_page = text.split(TABLE_START, 1)[1].split(TABLE_END, 1)[0].strip()
    assert on_page == labels_table(), (
        "the labels table of docs/judge-protocol.md differs from what the checks send; "
        "print the right one with `python tests/test_docs_reference.py`")


if __name__ == "__main__":
    print(labels_table())
