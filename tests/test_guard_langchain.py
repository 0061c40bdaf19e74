"""The guard inside LangChain chains, with langchain-core's own runnables: ChatPromptTemplate, its fake chat
models, an InMemoryVectorStore retriever over a deterministic fake embedding (offline, ScriptedJudge)."""

from __future__ import annotations

from operator import itemgetter

import pytest

pytest.importorskip("langchain_core")

from langchain_core.documents import Document  # noqa: E402
from langchain_core.embeddings import DeterministicFakeEmbedding  # noqa: E402
from langchain_core.language_models.fake_chat_models import (  # noqa: E402
    FakeListChatModel,
    GenericFakeChatModel,
)
from langchain_core.messages import AIMessage, HumanMessage  # noqa: E402
from langchain_core.output_parsers import StrOutputParser  # noqa: E402
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder  # noqa: E402
from langchain_core.runnables import Runnable, RunnableLambda, RunnablePassthrough  # noqa: E402
from langchain_core.vectorstores import InMemoryVectorStore  # noqa: E402

from llm_validation_framework import AccuracyAgent, CitationAgent, RelevancyAgent, ScriptedJudge  # noqa: E402
from llm_validation_framework.errors import AnswerRejectedError, ConfigError, InputError  # noqa: E402
from llm_validation_framework.guard import Guard, GuardOutcome, case_from_output, format_documents  # noqa: E402

QUESTION = "Where is the Eiffel Tower?"
RIGHT = "The Eiffel Tower is in Paris."
WRONG = "Bananas are rich in potassium."
TEXTS = ["The Eiffel Tower stands on the Champ de Mars in Paris.", "The tower was completed in 1889."]


def paris_judge() -> ScriptedJudge:
    def reply(request):
        if "Paris" in request.prompt:  # RelevancyAgent: the prompt holds the question and the answer only
            return {"verdict": max(request.options, key=request.options.get), "reason": "it says where"}
        return {"verdict": min(request.options, key=request.options.get),
                "reason": "the answer talks about bananas, not the tower"}
    return ScriptedJudge(reply)


def best_judge() -> ScriptedJudge:
    return ScriptedJudge(lambda request: {"verdict": max(request.options, key=request.options.get), "reason": "ok"})


def retriever():
    store = InMemoryVectorStore.from_texts(TEXTS, DeterministicFakeEmbedding(size=16),
                                           metadatas=[{"source": "paris.txt"}, {"source": "dates.txt"}])
    return store.as_retriever(search_kwargs={"k": 2})


class PromptSpy:
    """Records the messages each model call received."""

    def __init__(self) -> None:
        self.calls: list[list] = []

    def __call__(self, prompt_value):
        self.calls.append(prompt_value.to_messages())
        return prompt_value


def rag_chain(model, spy: PromptSpy | None = None, feedback_as: str = "messages") -> Runnable:
    """question (and feedback) in; question, context (Documents) and answer out."""
    if feedback_as == "messages":
        prompt = ChatPromptTemplate.from_messages([
            ("system", "Answer from these passages, citing them as [N]:\n{passages}"), ("human", "{question}"),
            MessagesPlaceholder("feedback", optional=True)])
    else:
        prompt = ChatPromptTemplate.from_messages([
            ("system", "Answer from these passages, citing them as [N]:\n{passages}\n{feedback}"),
            ("human", "{question}")])
    inputs = RunnableLambda(lambda x: {"question": x["question"], "passages": format_documents(x["context"]),
                                       "feedback": x.get("feedback") or ([] if feedback_as == "messages" else "")})
    generate = inputs | prompt | RunnableLambda(spy or PromptSpy()) | model | StrOutputParser()
    return RunnablePassthrough.assign(context=itemgetter("question") | retriever()) | RunnablePassthrough.assign(
        answer=generate)


# -- rag_chain | guard.as_runnable() -----------------------------------------------------------------
def test_the_guard_composes_after_a_rag_chain_invoke_and_batch():
    guard = Guard(RelevancyAgent(judge=paris_judge()), on_fail="fallback", fallback="I can't answer that.")
    chain = rag_chain(FakeListChatModel(responses=[RIGHT, WRONG, RIGHT])) | guard.as_runnable()
    assert isinstance(guard.as_runnable(), Runnable)
    assert chain.invoke({"question": QUESTION}) == RIGHT
    # the batch's cases run concurrently, so which of them the fake model's second reply reaches varies
    assert sorted(chain.batch([{"question": QUESTION}, {"question": QUESTION}])) == sorted(["I can't answer that.",
                                                                                          RIGHT])
    assert chain.batch([]) == []


async def test_ainvoke_and_abatch_inside_a_running_loop():
    guard = Guard(RelevancyAgent(judge=paris_judge()), on_fail="flag")
    chain = rag_chain(FakeListChatModel(responses=[RIGHT, WRONG])) | guard.as_runnable(output="outcome")
    first = await chain.ainvoke({"question": QUESTION})
    assert isinstance(first, GuardOutcome) and first.passed
    [second] = await chain.abatch([{"question": QUESTION}])
    assert second.action == "flag" and second.answer == WRONG
    # a synchronous invoke from async code runs in a helper thread instead of failing
    assert (rag_chain(FakeListChatModel(responses=[RIGHT])) | guard.as_runnable()).invoke({"question": QUESTION}) \
        == RIGHT


def test_the_chains_documents_become_the_numbered_passages_the_checks_read():
    docs = retriever().invoke(QUESTION)
    dates = 1 + [d.page_content for d in docs].index(TEXTS[1])
    cited = f"The tower stands in Paris [{3 - dates}]. It was completed in 1889 [{dates}]."
    judge = best_judge()
    chain = rag_chain(FakeListChatModel(responses=[cited])) | Guard(CitationAgent(judge=judge)).as_runnable(
        output="outcome")
    outcome = chain.invoke({"question": QUESTION})
    assert outcome.passed, outcome.reason
    assert outcome.case["passages"] == [{"id": str(i + 1), "text": d.page_content, "source": d.metadata["source"]}
                                        for i, d in enumerate(docs)]
    # the judge is shown the claim with the document its number points to
    [asked] = [r.prompt for r in judge.requests if "completed in 1889" in r.prompt.split("<claim>")[1]]
    assert f'<passage id="{dates}">\n{TEXTS[1]}\n</passage>' in asked and TEXTS[0] not in asked
    # a citation to a number the chain did not retrieve is caught
    wrong = f"The tower stands in Paris [1]. It was completed in 1889 [{len(docs) + 1}]."
    chain = rag_chain(FakeListChatModel(responses=[wrong])) | Guard(CitationAgent(judge=best_judge()),
                                                                    on_fail="flag").as_runnable(output="outcome")
    outcome = chain.invoke({"question": QUESTION})
    assert not outcome.passed and "which no passage has" in outcome.reason


def test_accuracy_with_the_chains_passages_reads_every_document():
    judge = best_judge()
    chain = rag_chain(FakeListChatModel(responses=[RIGHT])) | Guard(AccuracyAgent(judge=judge)).as_runnable()
    assert chain.invoke({"question": QUESTION}) == RIGHT
    factual = [r.prompt for r in judge.requests if r.check != "relevancy"]
    assert factual and all(text in factual[0] for text in TEXTS)


def test_output_dict_keeps_the_chain_output_and_adds_the_outcome():
    guard = Guard(RelevancyAgent(judge=paris_judge()), on_fail="fallback", fallback="fb")
    out = (rag_chain(FakeListChatModel(responses=[WRONG])) | guard.as_runnable(output="dict")).invoke(
        {"question": QUESTION})
    assert out["answer"] == "fb" and out["question"] == QUESTION and len(out["context"]) == 2
    assert out["guard"].action == "fallback" and out["guard"].attempts[0].answer == WRONG


def test_a_raising_guard_raises_from_the_chain_and_batch_can_return_it():
    chain = rag_chain(FakeListChatModel(responses=[WRONG])) | Guard(RelevancyAgent(judge=paris_judge())).as_runnable()
    with pytest.raises(AnswerRejectedError):
        chain.invoke({"question": QUESTION})
    [error] = chain.batch([{"question": QUESTION}], return_exceptions=True)
    assert isinstance(error, AnswerRejectedError)


def test_keys_map_a_create_retrieval_chain_output_and_a_message_answer():
    output = {"input": QUESTION, "context": [Document(page_content=TEXTS[0])], "answer": AIMessage(content=RIGHT)}
    runnable = Guard(RelevancyAgent(judge=paris_judge())).as_runnable(keys={"question": "input"})
    assert runnable.invoke(output) == RIGHT
    with pytest.raises(InputError, match=r"no 'question' key .*keys=\{'question'"):
        Guard(RelevancyAgent(judge=paris_judge())).as_runnable().invoke(output)


@pytest.mark.parametrize("output, match", [
    (RIGHT, "output dict"),
    ({"question": QUESTION, "answer": RIGHT, "context": "[1] formatted text"}, "Documents"),
    ({"question": QUESTION, "answer": RIGHT, "context": [42]}, "document 1"),
])
def test_bad_chain_outputs_are_named(output, match):
    with pytest.raises(InputError, match=match):
        case_from_output(output)


@pytest.mark.parametrize("kwargs, match", [({"keys": {"docs": "x"}}, "unknown"), ({"keys": {"question": ""}}, "keys"),
                                           ({"output": "text"}, "output")])
def test_bad_runnable_settings(kwargs, match):
    with pytest.raises(ConfigError, match=match):
        Guard(RelevancyAgent(judge=paris_judge())).as_runnable(**kwargs)


def test_format_documents_numbers_as_the_guard_does():
    docs = [Document(page_content="a"), "b"]
    assert format_documents(docs) == "[1] a\n\n[2] b"
    assert [p["id"] for p in case_from_output({"question": "q", "answer": "x", "context": docs})["passages"]] == \
        ["1", "2"]


# -- guard.around(chain): re-ask inside the chain ---------------------------------------------------------
def test_around_reruns_the_chain_with_the_feedback_as_messages():
    spy = PromptSpy()
    guard = Guard(RelevancyAgent(judge=paris_judge()), on_fail="reask")
    guarded = guard.around(rag_chain(FakeListChatModel(responses=[WRONG, RIGHT]), spy), output="outcome")
    outcome = guarded.invoke({"question": QUESTION})
    assert (outcome.answer, outcome.action, len(outcome.attempts)) == (RIGHT, "reask", 2)
    first, second = spy.calls
    assert not any(isinstance(m, AIMessage) for m in first)
    rejected, feedback = second[-2], second[-1]
    assert isinstance(rejected, AIMessage) and rejected.content == WRONG
    assert isinstance(feedback, HumanMessage) and "bananas, not the tower" in feedback.content


def test_around_with_text_feedback_and_max_reasks():
    spy = PromptSpy()
    guard = Guard(RelevancyAgent(judge=paris_judge()), on_fail="reask", max_reasks=2, fallback="fb")
    model = GenericFakeChatModel(messages=iter([WRONG, WRONG, WRONG, RIGHT]))
    guarded = guard.around(rag_chain(model, spy, feedback_as="text"), feedback_as="text", output="dict")
    out = guarded.invoke({"question": QUESTION})
    assert out["answer"] == "fb" and len(out["guard"].attempts) == 3 and len(spy.calls) == 3
    assert "bananas" not in spy.calls[0][0].content and "bananas, not the tower" in spy.calls[2][0].content


async def test_around_ainvoke_and_abatch():
    guard = Guard(RelevancyAgent(judge=paris_judge()), on_fail="reask")
    guarded = guard.around(rag_chain(FakeListChatModel(responses=[WRONG, RIGHT])))
    assert await guarded.ainvoke({"question": QUESTION}) == RIGHT
    assert await guarded.abatch([{"question": QUESTION}]) == [RIGHT]


def test_around_needs_a_dict_input_and_a_runnable():
    guard = Guard(RelevancyAgent(judge=paris_judge()), on_fail="reask")
    with pytest.raises(InputError, match="must be a dict"):
        guard.around(rag_chain(FakeListChatModel(responses=[RIGHT]))).invoke(QUESTION)
    with pytest.raises(ConfigError, match="Runnable"):
        guard.around("not a chain")
    with pytest.raises(ConfigError, match="feedback_as"):
        guard.around(rag_chain(FakeListChatModel(responses=[RIGHT])), feedback_as="html")
