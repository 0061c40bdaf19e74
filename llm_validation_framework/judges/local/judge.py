"""LocalJudge: an in-process llama.cpp judge (``provider="local"``). No key, no network.

    judge = LocalJudge()                          # the default model, assembled from PyPI parts
    judge = LocalJudge(model_path="my.gguf")      # any GGUF chat model using the ChatML template
    judge = LocalJudge(api_base="http://127.0.0.1:8765/v1")   # the model of a running `lvf serve`

Verdicts are read from token probabilities, not from free text (:mod:`.prompt`): ``score`` is
the expected option value over the labels' renormalised probabilities (``method="logprobs"``)
and ``label`` the most probable one. Scores of checks whose rating scale this model compresses
are calibrated (:mod:`.calibration`); the raw probabilities stay in the verdict and a note gives
the raw score.

A reason costs a whole generation, so it is written only when the request prefers one AND the
judge was built with ``reasons=True``; it comes *before* the verdict (this model judges better
after saying why), and the verdict probabilities are read after it.

The model is loaded once per process and path and shared by every LocalJudge
(:func:`~.backend.shared_backend`); calls run in a worker thread one at a time (a lock per
model), so any number of concurrent evaluations is safe.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...errors import ConfigError, JudgeCallError, JudgeError, LocalModelError
from ...infra.hosts import hide_userinfo
from ...types.usage import Usage
from ..base import Judge, Verdict, VerdictRequest, expected_score
from ..profile import JudgeProfile
from ..queue_clock import queued_call, serving_turn
from .backend import Completion, LocalBackend, shared_backend
from .calibration import Calibration, calibrate, calibration_from
from .heads import (
    VerdictHead,
    build_head_prompt,
    head_probabilities,
    heads_for_model,
    heads_version,
    parse_heads,
    prompt_hesitates,
    resplit_negatives,
    shipped_model,
    shipped_prompts,
)
from .model_file import DEFAULT_MODEL_NAME, MODEL_PATH_ENV, is_verified, resolve_model_path
from .prompt import build_chat_prompt, check_labels, label_probabilities
from .served import ServedBackend

if TYPE_CHECKING:
    from ...infra.config import Settings

__all__ = ["LocalJudge"]

_log = logging.getLogger(__name__)
_CHARS_PER_TOKEN = 3.5
#: a served model's answer may wait behind other clients' on a shared CPU
_SERVED_TIMEOUT_S = 600.0


class LocalJudge(Judge):
    """Probability verdicts from a local GGUF chat model (default: Qwen2.5-Coder-1.5B-Instruct Q4_K_M)."""

    def __init__(self, model_path: str | os.PathLike | None = None, *, n_ctx: int = 4096, n_threads: int | None = None,
                 reasons: bool = False, reason_tokens: int = 60, n_probs: int = 20, evidence_chars: int = 600,
                 support_overlap_weight: float = 0.6, answer_overlap_weight: float = 0.5,
                 substitution_rule: bool = True, cache_dir: str | os.PathLike | None = None,
                 calibration: Mapping[str, Calibration | tuple[float, float]] | None | str = "default",
                 settings: Settings | None = None, backend: LocalBackend | None = None,
                 api_base: str | None = None, api_key: str | None = None, timeout_s: float = _SERVED_TIMEOUT_S,
                 heads: bool | Mapping[str, VerdictHead] | Sequence[VerdictHead] = True,
                 split_negatives: bool = False) -> None:
        if n_ctx < 512:
            raise ValueError(f"n_ctx={n_ctx} is too small for a judge prompt: use 512 or more (default 4096)")
        self.n_ctx = n_ctx
        self.n_threads = n_threads or max(1, min(os.cpu_count() or 1, 8))
        self.reasons = reasons
        self.reason_tokens = reason_tokens
        self.n_probs = n_probs
        if api_base is not None and (backend is not None or model_path is not None):
            raise ConfigError("give LocalJudge api_base (a running `lvf serve`, which serves its own model) or "
                              "backend / model_path, not both")
        if api_base is not None:  # the model of a running `lvf serve`: same prompts, read over HTTP
            backend = ServedBackend(api_base, api_key=api_key or os.environ.get("LVF_SERVE_API_KEY") or None,
                                    timeout_s=timeout_s)
        self.profile = JudgeProfile(
            # prompt processing on a CPU dominates a verdict's time: passages are cut to their most
            # relevant sentences
            evidence_chars=evidence_chars,
            # the context less room for the answer (and a reason, when one is written)
            max_input_chars=int((n_ctx - 256 - (reason_tokens if reasons else 0)) * _CHARS_PER_TOKEN),
            # blend P(supported) with word overlap, overlap weighing a little more: this model misses
            # support copied near-verbatim, overlap misses paraphrase; P(correct) half-and-half with
            # the answer's coverage of the gold answer, for the same reason (docs/local-judge.md,
            # "Why these defaults")
            support_overlap_weight=support_overlap_weight,
            answer_overlap_weight=answer_overlap_weight,
            substitution_rule=substitution_rule,  # it reads a near-copy with one fact changed as supported
            # this model reads a yes/no question better than a 0/1/2 rating, and ranks answer
            # accuracy's swapped-roles template worse (docs/local-judge.md)
            prefers_yes_no=True,
            swapped_roles=False,
            # False when the model is served by `lvf serve`
            in_process_model=not isinstance(backend, ServedBackend),
        )
        self._model_path = model_path
        self._cache_dir = cache_dir
        self._settings = settings
        self._backend = backend
        self._resolved: Path | None = None
        self._lock = threading.Lock()
        #: the first verdicts arrive together from worker threads: one resolves the shipped heads, the rest wait
        self._heads_lock = threading.Lock()
        #: the judge loads a model file itself (not a given backend, nor `lvf serve`): shipped heads may apply
        self._loads_model_file = backend is None
        #: learned heads: True resolves the shipped ones at first use; your own are used beside them
        self._heads, self._own = parse_heads(heads)
        #: why the shipped heads do not apply to this judge (None: they do, none ship, or heads=False)
        self._no_heads_because: str | None = None
        #: a split head names contradicted or unverifiable where the prompt's negative support verdict
        #: hesitates. Off by default: the score never changes, and its hidden state costs a whole second
        #: prompt (llama.cpp's embeddings reuse no cached prefix)
        self.split_negatives = bool(split_negatives)
        configured = (model_path or (settings.local_model_path if settings is not None else None)
                      or os.environ.get(MODEL_PATH_ENV))
        model = (backend.name if backend is not None
                 else Path(str(configured)).stem.lower() if configured else DEFAULT_MODEL_NAME)
        self.name = f"local/{model}"
        #: per-check Platt maps applied to verdicts without a reason ("default": the shipped maps,
        #: for the default model only; None or {}: raw expected scores)
        self.calibration = calibration_from(calibration, default_model=model == DEFAULT_MODEL_NAME)

    @classmethod
    def from_settings(cls, settings: Settings) -> LocalJudge:
        """Build from :class:`~llm_validation_framework.infra.config.Settings` (``local_model_path``,
        ``cache_dir``; ``api_base`` and ``timeout_s`` for the model of a running `lvf serve`)."""
        api_base, timeout_s = None, _SERVED_TIMEOUT_S
        origin = settings.origin
        if settings.api_base:
            # an api_base set beside provider="local" (same source, or an argument) means `lvf serve`;
            # one left in config.ini for another provider (an Ollama URL, say) must not hijack it
            if origin("api_base") == "argument" or origin("api_base").split(" ")[0] == origin("provider").split(" ")[0]:
                api_base = settings.api_base
                if origin("timeout_s") != "default":
                    timeout_s = settings.timeout_s  # the default (60 s) is an API's; a shared CPU queues
            else:
                _log.warning("provider 'local' (from %s) loads the model in this process: api_base %s (from %s) "
                             "is not used; give it where provider='local' is set to use a running `lvf serve`",
                             origin("provider"), hide_userinfo(settings.api_base), origin("api_base"))
        return cls(settings.local_model_path, cache_dir=settings.cache_dir, settings=settings, api_base=api_base,
                   timeout_s=timeout_s)

    # -- model -------------------------------------------------------------------------------

    @property
    def model_path(self) -> Path:
        """The GGUF file this judge uses (resolving, and for the default model assembling, on first access)."""
        if self._resolved is None:
            self._resolved = resolve_model_path(self._model_path, settings=self._settings, cache_dir=self._cache_dir)
        return self._resolved

    @property
    def backend(self) -> LocalBackend:
        if self._backend is None:
            # with heads, a second slot takes the hidden-state prompts, which llama.cpp reads whole: in the
            # completions' slot they would evict the check instructions the next completion reuses
            slots = 2 if self.heads else 1
            self._backend = shared_backend(self.model_path, n_ctx=self.n_ctx, n_threads=self.n_threads,
                                           n_parallel=slots)
        return self._backend

    def load(self) -> LocalJudge:
        """Resolve and load the model now (otherwise it happens at the first verdict)."""
        _ = self.backend
        return self

    def describe(self) -> dict[str, Any]:
        described = {"judge": type(self).__name__, "model": self.name, "n_ctx": self.n_ctx, "reasons": self.reasons,
                     "heads": self._heads if isinstance(self._heads, bool) else sorted(self._heads),
                     **({"own_heads": {name: h.fingerprint for name, h in sorted(self._own.items())}}
                        if self._own else {}),
                     "split_negatives": self.split_negatives,  # the weights: checks blend with overlap by them
                     "support_overlap_weight": self.profile.support_overlap_weight,
                     "answer_overlap_weight": self.profile.answer_overlap_weight,
                     "substitution_rule": self.profile.substitution_rule}
        if self._heads is not False:  # a new head file must not be answered from verdicts cached before it
            described["heads_version"] = heads_version()
        if isinstance(self._backend, ServedBackend):
            described["api_base"] = self._backend.display_base
        return described

    def __getstate__(self) -> dict[str, Any]:
        """Picklable (a Ray actor receives it): the lock is rebuilt; an in-process model never travels."""
        state = dict(self.__dict__)
        state["_lock"] = state["_heads_lock"] = None
        if not isinstance(state.get("_backend"), ServedBackend):
            state["_backend"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()
        self._heads_lock = threading.Lock()

    # -- verdicts ----------------------------------------------------------------------------

    async def verdict(self, request: VerdictRequest) -> Verdict:
        check_labels(request.labels)
        with queued_call():  # its wait for the model is queue time, not time spent on the case
            return await asyncio.to_thread(self.verdict_sync, request)

    @property
    def heads(self) -> dict[str, VerdictHead]:
        """The verdict heads this judge uses: the shipped ones when they were fitted on this model file."""
        with self._heads_lock:
            if self._heads is True:
                self._heads = self._resolve_shipped_heads()
        # your own first: a head fitted on your labels answers before a shipped one for the same prompt
        return {**self._own, **{name: h for name, h in (self._heads or {}).items() if name not in self._own}}

    def _resolve_shipped_heads(self) -> dict[str, VerdictHead]:
        shipped = shipped_model()
        if shipped is not None and not self._loads_model_file:
            self._no_heads_because = "heads read the hidden state of a model loaded in this process"
        elif shipped is not None:
            size, sha256 = shipped
            path = self.model_path
            if path.stat().st_size == size and is_verified(path, sha256):
                return heads_for_model(sha256)
            self._no_heads_because = "the shipped heads were fitted on another model file"
        return {}

    def _fallback_note(self, request: VerdictRequest) -> tuple[str, ...]:
        """Say so when a shipped head asks this question but cannot serve this judge."""
        name = shipped_prompts().get(request.prompt_hash) if self._no_heads_because else None
        if name is None:
            return ()
        return (f"no learned verdict head: {self._no_heads_because}, so the prompt's label probabilities decide "
                f"(the {name} head serves the default model)",)

    def _head_for(self, request: VerdictRequest, backend: LocalBackend, role: str = "verdict") -> VerdictHead | None:
        """The head of ``role`` that serves ``request`` (its prompt and labels), if the backend gives hidden states."""
        if not callable(getattr(backend, "embed", None)):
            return None
        return next((h for h in self.heads.values() if h.role == role and h.serves(request)), None)

    def verdict_sync(self, request: VerdictRequest) -> Verdict:
        """The blocking verdict (runs in a worker thread under :meth:`verdict`)."""
        backend = self.backend
        want_reason = bool(request.prefer_reason and self.reasons)
        head = None if want_reason else self._head_for(request, backend)
        if head is not None:
            return self._head_verdict(head, request, backend)
        prompt = self._fitting(request, build_chat_prompt(request, reason=want_reason))
        usage = Usage()
        reason = None
        with serving_turn(getattr(backend, "lock", None) or self._lock):  # one model, one call at a time
            if want_reason:
                first = self._call(backend, prompt, max_tokens=min(self.reason_tokens, request.max_tokens),
                                   stop=("Verdict", "\n\n", "<|im_end|>"))
                usage = usage + self._usage(first)
                reason = first.text.strip().split("\n")[0].strip() or None
                prompt = prompt + " " + (reason or "") + "\nVerdict:"
            answer = self._call(backend, prompt, max_tokens=1)
        usage = usage + self._usage(answer)
        try:
            probabilities = label_probabilities(answer.top, request.labels)
        except JudgeError as exc:
            raise JudgeError(f"{request.check}: {exc}", raw_replies=[answer.text], attempts=1) from None
        notes: tuple[str, ...] = () if want_reason else self._fallback_note(request)
        if not want_reason:
            probabilities, split_notes, split_usage = self._resplit(request, backend, probabilities)
            notes, usage = notes + split_notes, usage + split_usage
        label = max(probabilities, key=probabilities.__getitem__)
        if answer.cached_tokens:
            notes += (f"{answer.cached_tokens} prompt tokens reused from the KV cache",)
        score = expected_score(request.options, probabilities)
        calibrated = None if want_reason else calibrate(self.calibration, request.check, score, request.labels)
        if calibrated is not None:
            notes += (f"score calibrated for {request.check}: expected rating {score:.3f} -> {calibrated:.3f}",)
            score = calibrated
        raw = (reason + "\nVerdict: " if reason else "") + answer.text
        return Verdict(label=label, score=score, method="logprobs",
                       probabilities=probabilities, reason=reason, raw=raw,
                       usage=usage, model=self.name, notes=notes)

    def _head_verdict(self, head: VerdictHead, request: VerdictRequest, backend: LocalBackend) -> Verdict:
        """One hidden state, the head's probability, and the labels' split (see :mod:`.heads`)."""
        hidden, tokens = self._embed(backend, request)
        outcome = head.decide(hidden, request.signals)
        split = self._head_for(request, backend, role="split")
        probabilities = head_probabilities(head, outcome, split.decide(hidden, request.signals) if split else None)
        label = max(probabilities, key=probabilities.__getitem__)
        score = expected_score(request.options, probabilities)
        shown = ", ".join(f"{name} {value:.2f}" for name, value in outcome.signals.items())
        reason = f"{head.name} head: {label} (p={probabilities[label]:.2f})"
        notes = (f"verdict from the learned {head.name} head over the model's hidden state"
                 f"{f' ({shown})' if shown else ''}; "
                 f"fitted on {head.fitted_on}",)
        return Verdict(label=label, score=score, method="head", probabilities=probabilities, reason=reason,
                       raw=f"P({'/'.join(head.labels[i] for i in head.positive)})={outcome.probability:.4f}",
                       usage=Usage(calls=1, prompt_tokens=tokens, cost_usd=0.0), model=self.name, notes=notes)

    def _resplit(self, request: VerdictRequest, backend: LocalBackend,
                 probabilities: dict[str, float]) -> tuple[dict[str, float], tuple[str, ...], Usage]:
        """A prompt verdict's negative mass re-divided by a split head where the prompt hesitates (see
        :func:`.heads.prompt_hesitates`); the score does not change, only which negative label is named."""
        split = self._head_for(request, backend, role="split") if self.split_negatives else None
        if split is None or not prompt_hesitates(split, probabilities):
            return probabilities, (), Usage()
        hidden, tokens = self._embed(backend, request)
        outcome = split.decide(hidden, request.signals)
        named = split.labels[split.positive[0]]
        note = (f"{'/'.join(split.labels[1:])} divided by the learned {split.name} head "
                f"(P({named})={outcome.probability:.2f}), where the prompt hesitated; fitted on {split.fitted_on}")
        return resplit_negatives(split, probabilities, outcome), (note,), Usage(calls=1, prompt_tokens=tokens)

    def _embed(self, backend: LocalBackend, request: VerdictRequest) -> tuple[Any, int]:
        """The final hidden state for the head prompt of ``request``, and its prompt tokens."""
        prompt = self._fitting(request, build_head_prompt(request))
        with serving_turn(getattr(backend, "lock", None) or self._lock):
            try:
                return backend.embed(prompt)  # type: ignore[attr-defined]
            except (JudgeError, LocalModelError):
                raise
            except Exception as exc:  # noqa: BLE001 - anything llama.cpp raises is a judge failure
                raise JudgeCallError(f"the local model failed: {type(exc).__name__}: {exc}") from exc

    def _fitting(self, request: VerdictRequest, prompt: str) -> str:
        if len(prompt) > self.n_ctx * _CHARS_PER_TOKEN:
            raise JudgeError(f"the {request.check!r} prompt has {len(prompt)} characters, more than the local model's "
                             f"context of {self.n_ctx} tokens holds: reduce the input or raise n_ctx")
        return prompt

    def _call(self, backend: LocalBackend, prompt: str, *, max_tokens: int, stop: Sequence[str] = ()) -> Completion:
        try:
            return backend.complete(prompt, max_tokens=max_tokens, n_probs=self.n_probs, stop=stop)
        except (JudgeError, LocalModelError):
            raise
        except Exception as exc:  # noqa: BLE001 - anything llama.cpp raises is a judge failure
            raise JudgeCallError(f"the local model failed: {type(exc).__name__}: {exc}") from exc

    @staticmethod
    def _usage(completion: Completion) -> Usage:
        return Usage(calls=1, prompt_tokens=completion.prompt_tokens, completion_tokens=completion.completion_tokens,
                     cost_usd=0.0)
