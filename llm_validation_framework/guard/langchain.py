"""A guard inside a LangChain chain: two real ``Runnable`` classes (this module needs langchain-core, the
``[rag]`` extra; nothing else in the package imports it).

    rag_chain | guard.as_runnable()        the chain's output dict in, the answer to show out
    guard.around(rag_chain)                the whole chain guarded: a failed answer re-runs it with feedback

Both read a RAG chain's output dict: the question, the answer (a string or a chat message) and the
retrieved ``Document``s. The documents become passages numbered "1".."n" in their order, the
numbers :func:`format_documents` writes into the prompt, so an answer's ``[2]`` is checked against
the second document. ``keys`` maps our names to the chain's: ``{"question": "input"}`` for
``create_retrieval_chain``'s output; the defaults are ``question``, ``answer``, ``context`` (the
documents) and ``reference`` (optional).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Callable, Coroutine, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

try:
    from langchain_core.messages import AIMessage, HumanMessage
    from langchain_core.runnables import Runnable, RunnableConfig
except ImportError as exc:  # pragma: no cover - the message is the point
    raise ImportError("guard.as_runnable() and guard.around() need langchain-core: "
                      "pip install 'llm_validation_framework[rag]'") from exc

from ..errors import ConfigError, InputError

if TYPE_CHECKING:  # pragma: no cover
    from .core import Guard

__all__ = ["DEFAULT_KEYS", "GuardRunnable", "GuardedChain", "case_from_output", "format_documents"]

#: our field -> the chain output's key, unless ``keys`` says otherwise
DEFAULT_KEYS = {"question": "question", "answer": "answer", "documents": "context", "reference": "reference"}
_OUTPUTS = ("answer", "outcome", "dict")
T = TypeVar("T")


def format_documents(documents: Sequence[Any]) -> str:
    """Documents (or strings) as ``[1] text`` blocks: put this in the prompt, and the answer's citation
    numbers are the passage numbers the guard's checks use."""
    return "\n\n".join(f"[{number}] {_document_text(document, number - 1)}"
                       for number, document in enumerate(documents, start=1))


def case_from_output(output: Any, keys: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The case a guard judges, from a RAG chain's output dict (see the module docstring)."""
    keys = _keys(keys)
    if not isinstance(output, Mapping):
        raise InputError(f"the guard reads the RAG chain's output dict (question, answer, documents), got "
                         f"{type(output).__name__}: keep them in the output, e.g. end the chain with "
                         f"RunnablePassthrough.assign(answer=prompt | model | StrOutputParser())", field="answer")
    have = ", ".join(map(repr, output)) or "nothing"
    for field in ("question", "answer"):
        if keys[field] not in output:
            raise InputError(f"the chain's output has no {keys[field]!r} key for the {field} (it has {have}): "
                             f"map it with keys={{{field!r}: '<your key>'}}", field=field)
    case: dict[str, Any] = {"question": output[keys["question"]], "answer": _answer_text(output[keys["answer"]])}
    documents = output.get(keys["documents"])
    if documents is not None:
        if isinstance(documents, (str, bytes)) or not isinstance(documents, Sequence):
            raise InputError(f"output[{keys['documents']!r}] must be the retrieved Documents (a list), got "
                             f"{type(documents).__name__}: keep the Documents in the chain's output and format "
                             f"them inside the prompt (format_documents)", field="contexts")
        passages = []
        for index, document in enumerate(documents):
            metadata = getattr(document, "metadata", None) or {}
            source = metadata.get("source") if isinstance(metadata, Mapping) else None
            passages.append({"id": str(index + 1), "text": _document_text(document, index),
                             "source": None if source is None else str(source)})
        if passages:
            case["passages"] = passages
    if output.get(keys["reference"]) is not None:
        case["reference"] = output[keys["reference"]]
    return case


class GuardRunnable(Runnable[Mapping[str, Any], Any]):
    """A guard as a ``Runnable``: ``rag_chain | guard.as_runnable()`` (``invoke``, ``ainvoke``, ``batch``,
    ``abatch``; a batch runs its cases concurrently in one event loop).

    ``output``: ``"answer"`` (the answer to show), ``"outcome"`` (the
    :class:`~llm_validation_framework.guard.outcome.GuardOutcome`) or ``"dict"`` (the chain's output
    with the answer replaced and the outcome under ``"guard"``). A guard built with ``on_fail="raise"``
    raises its :class:`~llm_validation_framework.errors.GuardError` from the chain.
    """

    def __init__(self, guard: Guard, *, keys: Mapping[str, str] | None = None, output: str = "answer") -> None:
        self.guard = guard
        self.keys = _keys(keys)
        self.output = _output(output)

    def invoke(self, input: Mapping[str, Any], config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        return run_blocking(lambda: self.ainvoke(input, config, **kwargs))

    async def ainvoke(self, input: Mapping[str, Any], config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        return await self._acall_with_config(self._aguard, input, config, run_type="chain")

    def batch(self, inputs: list[Mapping[str, Any]], config: RunnableConfig | list[RunnableConfig] | None = None,
              *, return_exceptions: bool = False, **kwargs: Any) -> list[Any]:
        if not inputs:
            return []
        return run_blocking(lambda: self.abatch(inputs, config, return_exceptions=return_exceptions, **kwargs))

    async def _aguard(self, input: Mapping[str, Any]) -> Any:
        outcome = await self.guard.avalidate(case_from_output(input, self.keys))
        return _shape(outcome, input, self.keys, self.output)


class GuardedChain(GuardRunnable):
    """``chain`` guarded as one ``Runnable`` (:meth:`Guard.around`): the chain runs, the guard judges its
    output, and with ``on_fail="reask"`` a failed answer runs the chain again with the feedback under
    ``input[feedback_key]``: with ``feedback_as="messages"`` the conversation so far (each rejected
    answer as an ``AIMessage``, the feedback as a ``HumanMessage``: use a ``MessagesPlaceholder``), with
    ``"text"`` the feedback string. The first run gets ``[]`` / ``""`` there, so the prompt always has
    the variable. The chain's input must be a dict.
    """

    def __init__(self, guard: Guard, chain: Any, *, keys: Mapping[str, str] | None = None,
                 feedback_key: str = "feedback", feedback_as: str = "messages", output: str = "answer") -> None:
        super().__init__(guard, keys=keys, output=output)
        if not (callable(getattr(chain, "ainvoke", None)) or callable(getattr(chain, "invoke", None))):
            raise ConfigError(f"chain must be a LangChain Runnable, got {type(chain).__name__}")
        if not isinstance(feedback_key, str) or not feedback_key:
            raise ConfigError(f"feedback_key must be the chain input's key for the feedback, got {feedback_key!r}")
        if feedback_as not in ("messages", "text"):
            raise ConfigError(f"feedback_as must be 'messages' or 'text', got {feedback_as!r}")
        self.chain = chain if isinstance(chain, Runnable) else _as_runnable(chain)
        self.feedback_key = feedback_key
        self.feedback_as = feedback_as

    async def _aguard(self, input: Mapping[str, Any], config: RunnableConfig) -> Any:  # type: ignore[override]
        if not isinstance(input, Mapping):
            raise InputError(f"guard.around() passes the feedback as input[{self.feedback_key!r}], so the chain's "
                             f"input must be a dict, got {type(input).__name__}: invoke it with "
                             f"{{'question': ...}}", field="question")
        history: list[Any] = []
        first = {**input, self.feedback_key: [] if self.feedback_as == "messages" else ""}
        last = {"output": await self.chain.ainvoke(first, config)}

        async def rerun(case: Mapping[str, Any], feedback: str) -> dict[str, Any]:
            if self.feedback_as == "messages":
                history.extend([AIMessage(content=case["answer"]), HumanMessage(content=feedback)])
                value: Any = list(history)
            else:
                value = feedback
            last["output"] = await self.chain.ainvoke({**input, self.feedback_key: value}, config)
            return case_from_output(last["output"], self.keys)

        outcome = await self.guard.arun(case_from_output(last["output"], self.keys), rerun)
        return _shape(outcome, last["output"], self.keys, self.output)


def run_blocking(factory: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run the coroutine ``factory()`` makes to completion from synchronous code: in this thread when no event
    loop runs here, else in a helper thread with its own loop (a synchronous call blocks its caller anyway)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(factory())
    with concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="lvf-guard") as pool:
        return pool.submit(lambda: asyncio.run(factory())).result()


def _as_runnable(chain: Any) -> Runnable:
    from langchain_core.runnables import RunnableLambda

    return RunnableLambda(chain.invoke, afunc=getattr(chain, "ainvoke", None))


def _shape(outcome: Any, output: Mapping[str, Any], keys: Mapping[str, str], shape: str) -> Any:
    if shape == "answer":
        return outcome.answer
    if shape == "outcome":
        return outcome
    return {**output, keys["answer"]: outcome.answer, "guard": outcome}


def _keys(keys: Mapping[str, str] | None) -> dict[str, str]:
    if keys is None:
        return dict(DEFAULT_KEYS)
    if not isinstance(keys, Mapping):
        raise ConfigError(f"keys must map our names to the chain output's keys, e.g. {{'question': 'input'}}, "
                          f"got {type(keys).__name__}")
    unknown = sorted(set(keys) - set(DEFAULT_KEYS))
    if unknown:
        raise ConfigError(f"keys has unknown names {unknown}: use {', '.join(DEFAULT_KEYS)}")
    for name, key in keys.items():
        if not isinstance(key, str) or not key:
            raise ConfigError(f"keys[{name!r}] must be the chain output's key (a non-empty string), got {key!r}")
    return {**DEFAULT_KEYS, **keys}


def _output(output: str) -> str:
    if output not in _OUTPUTS:
        raise ConfigError(f"output must be one of {', '.join(map(repr, _OUTPUTS))}, got {output!r}")
    return output


def _answer_text(answer: Any) -> Any:
    """A chat message's text (a chain ending in the model, no output parser); anything else as it is."""
    content = getattr(answer, "content", None)
    return content if isinstance(content, str) else answer


def _document_text(document: Any, index: int) -> str:
    if isinstance(document, str):
        return document
    text = getattr(document, "page_content", None)
    if not isinstance(text, str):
        raise InputError(f"document {index + 1} is a {type(document).__name__}, expected a Document with "
                         f"page_content (or a string)", field="contexts")
    return text
