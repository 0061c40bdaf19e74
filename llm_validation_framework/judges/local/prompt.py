"""The local judge's ChatML prompt and how a verdict is read from its first answer token.

The prompt (Qwen2.5 / ChatML chat template) puts the check's instructions in the system turn,
so every call of one check shares a prefix llama.cpp keeps in its KV cache, and ends by asking
for one of the labels. The verdict is read from token probabilities, not from free text: the
probability of each label's first token at the first answer position, renormalised over the
labels. That is why labels must begin with different tokens (:func:`check_labels`).

The texts under judgement are untrusted: the chat template's control tokens inside them
(``<|im_end|>`` …) are neutralised, so an answer cannot close its turn and speak as the system.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from ...errors import JudgeError
from ..base import VerdictRequest

__all__ = ["build_chat_prompt", "check_labels", "label_probabilities"]

#: chat-template control tokens untrusted text must never be able to emit
_SPECIAL_RE = re.compile(r"<\|(im_start|im_end|endoftext|fim_[a-z]+|file_sep|repo_name)\|>")
_STRIP = " \t\r\n\"'`*.:,;()[]{}<>"


def _neutral(text: str) -> str:
    return _SPECIAL_RE.sub(lambda m: "<｜" + m.group(1) + "｜>", text)


def build_chat_prompt(request: VerdictRequest, *, reason: bool = False) -> str:
    """The full ChatML prompt for ``request``, up to the assistant's first answer token.

    The instructions form the system turn (identical across calls of a check: a cached prefix);
    the request's prompt and a final line naming the labels form the user turn.
    """
    labels = ", ".join(request.labels[:-1]) + " or " + request.labels[-1]
    if reason:
        final = (f"First give your reason in one short sentence, then on a new line write "
                 f"'Verdict:' followed by one word: {labels}.")
    else:
        final = f"Reply with one word: {labels}."
    return (f"<|im_start|>system\n{_neutral(request.instructions.strip())}<|im_end|>\n"
            f"<|im_start|>user\n{_neutral(request.prompt.strip())}\n{final}<|im_end|>\n"
            f"<|im_start|>assistant\n" + ("Reason:" if reason else ""))


def _norm(text: str) -> str:
    return text.strip(_STRIP).lower()


def check_labels(labels: Sequence[str]) -> None:
    """Labels must begin with different tokens: no label (case-insensitive) may be a prefix of another."""
    normed = [(_norm(label), label) for label in labels]
    for i, (a, label_a) in enumerate(normed):
        if not a:
            raise JudgeError(f"label {label_a!r} has no letters or digits; LocalJudge cannot read its probability")
        for b, label_b in normed[i + 1:]:
            if a.startswith(b) or b.startswith(a):
                raise JudgeError(
                    f"labels {label_a!r} and {label_b!r} begin with the same token, so LocalJudge (which reads "
                    "only the first answer token) cannot tell them apart: rename one of them")


def label_probabilities(top: Sequence[tuple[str, float]], labels: Sequence[str]) -> dict[str, float]:
    """Sum the probabilities of the top tokens that can begin each label, renormalised over the labels.

    A token counts for a label when, case and surrounding spaces/punctuation ignored, the label
    starts with it (``"Yes"``, ``" yes"`` and ``"YES"`` all count for ``yes``; ``"un"`` for
    ``unverifiable``). A token that could begin two labels is ignored. Raises JudgeError when no
    top token begins any label (the model wanted to say something else).
    """
    check_labels(labels)
    normed = {label: _norm(label) for label in labels}
    mass = dict.fromkeys(labels, 0.0)
    for token, logprob in top:
        text = _norm(token)
        if not text:
            continue
        matches = [label for label, n in normed.items() if n.startswith(text)]
        if len(matches) == 1:
            mass[matches[0]] += math.exp(logprob)
    total = sum(mass.values())
    if total <= 0.0:
        shown = ", ".join(repr(t) for t, _ in list(top)[:5])
        raise JudgeError(f"the local model answered none of the labels {tuple(labels)} (top tokens: {shown})",
                         raw_replies=[shown])
    return {label: value / total for label, value in mass.items()}
