"""Verdict heads fitted from your own labels: a check's verdict learned from cases a person judged.

A criterion judged by its prompt alone inherits the small model's prompt-level judgement. With a
few hundred cases a person has labelled pass or fail, a logistic layer over the model's hidden state
at the verdict position (what the shipped heads are, :mod:`.heads`) learns what the labels mean::

    head = await fit_head(judge, "on_topic", requests, labels)      # requests: one per labelled case
    save_head(head, "on_topic.npz")
    judge = LocalJudge(heads=[load_head("on_topic.npz")])            # beside the shipped heads

:meth:`~llm_validation_framework.checks.criteria.Criteria.fit_head` builds the requests from a
criterion and its cases. The head serves only its own check's requests (``per_check``), with the
same prompt (instructions, scale, steps) it was fitted on; ``fitted_on`` names the model, and a
model of another hidden size is refused at the head's first verdict. It reads no label
probabilities of its own: its verdict is all or nothing between the scale's highest label and its
lowest, as the pass/fail labels it learned from.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ...errors import ConfigError, InputError
from ..base import VerdictRequest
from ..queue_clock import queued_call
from .heads import VerdictHead

if TYPE_CHECKING:  # pragma: no cover
    from .judge import LocalJudge

__all__ = ["MIN_PER_CLASS", "fit_head", "fit_logistic", "load_head", "save_head"]

#: labelled cases each class needs before a head is fitted: fewer fit the noise of a few cases
MIN_PER_CLASS = 20
#: the inverse regularisation strength: a hidden state has ~1 500 dimensions and a user a few
#: hundred labels, so the layer is kept small (the shipped heads' fits chose 0.001-0.01)
DEFAULT_C = 0.003


def fit_logistic(x: Any, y: Any, *, c: float = DEFAULT_C, iterations: int = 50) -> tuple[Any, float]:
    """``(coef, intercept)`` of an L2-regularised logistic regression, classes weighted to balance.

    Minimises ``0.5 |w|^2 + c * sum_i s_i * log(1 + exp(-t_i (w . x_i + b)))`` by Newton's method
    (the intercept is not penalised); ``s_i`` weighs each class to half the total."""
    import numpy as np

    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    n, d = x.shape
    xb = np.hstack([x, np.ones((n, 1))])
    share = y.mean()
    weight = np.where(y == 1, 0.5 / share, 0.5 / (1.0 - share))
    penalty = np.eye(d + 1)
    penalty[-1, -1] = 0.0
    w = np.zeros(d + 1)
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-np.clip(xb @ w, -40, 40)))
        gradient = penalty @ w + c * xb.T @ (weight * (p - y))
        hessian = penalty + c * (xb.T * (weight * p * (1.0 - p))) @ xb + 1e-9 * np.eye(d + 1)
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if float(np.abs(step).max()) < 1e-8:
            break
    return w[:-1], float(w[-1])


def _fit_scaled(x: Any, y: Any, c: float, folds: int = 5) -> tuple[Any, float]:
    """The layer fitted on every row, its logit rescaled by a Platt map fitted on cross-fitted logits.

    A layer kept small by its penalty ranks well but says "about 0.5" for every case; the map, learned
    on logits of rows each fold's layer never saw, turns its logit into a probability to decide on."""
    import numpy as np

    coef, intercept = fit_logistic(x, y, c=c)
    held = np.zeros(len(y))
    fold = np.arange(len(y)) % folds
    for k in range(folds):
        train = fold != k
        if len(set(y[train].tolist())) < 2:
            return coef, intercept
        w, b = fit_logistic(x[train], y[train], c=c)
        held[~train] = x[~train] @ w + b
    spread = held.std() or 1.0
    (a,), b = fit_logistic((held / spread)[:, None], y, c=100.0)
    a /= spread
    return coef * a, intercept * a + b


def _passes(label: object, index: int) -> bool:
    if isinstance(label, bool):
        return label
    if isinstance(label, (int, float)) and 0.0 <= float(label) <= 1.0:
        return float(label) >= 0.5
    if isinstance(label, str) and label.strip().lower() in ("pass", "fail"):
        return label.strip().lower() == "pass"
    raise InputError(f"labels[{index}] = {label!r}: give True/False, 'pass'/'fail' or a score in [0, 1]",
                     field="labels")


async def fit_head(judge: LocalJudge, name: str, requests: Sequence[VerdictRequest], labels: Sequence[object], *,
                   c: float = DEFAULT_C, progress: Callable[[int, int], None] | None = None) -> VerdictHead:
    """A head for the check all ``requests`` ask, fitted on ``labels`` (one per request: pass/fail).

    Each request is read once by ``judge``'s model (one embeddings call, about a verdict's time);
    ``progress(done, total)`` is called after each. Raises InputError with too few labels of either
    class, or requests of different checks or prompts."""
    if len(requests) != len(labels):
        raise InputError(f"{len(requests)} cases but {len(labels)} labels: give one label per case", field="labels")
    passed = [_passes(label, i) for i, label in enumerate(labels)]
    fails = passed.count(False)
    if min(fails, len(passed) - fails) < MIN_PER_CLASS:
        raise InputError(f"fitting a head needs at least {MIN_PER_CLASS} passing and {MIN_PER_CLASS} failing "
                         f"labelled cases, got {len(passed) - fails} and {fails}: label more cases", field="labels")
    first = requests[0]
    if any(r.check != first.check or r.prompt_hash != first.prompt_hash or r.labels != first.labels
           for r in requests):
        raise InputError("every request must ask the same check with the same prompt and labels", field="requests")
    import numpy as np

    backend = judge.backend
    hidden = []
    for done, request in enumerate(requests, start=1):
        with queued_call():
            vector, _ = await asyncio.to_thread(judge._embed, backend, request)
        hidden.append(np.asarray(vector, dtype=np.float32))
        if progress is not None:
            progress(done, len(requests))
    x = np.stack(hidden)
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-6
    coef, intercept = _fit_scaled((x - mean) / scale, np.asarray(passed, dtype=np.float64), c)
    values = [first.options[label] for label in first.labels]
    return VerdictHead(name=name, check=first.check, prompt_hash=first.prompt_hash, labels=first.labels,
                       positive=(values.index(max(values)),), side=(), readout=None, sizes=(),
                       mean=mean.astype(np.float32), scale=scale.astype(np.float32), coef=coef.astype(np.float32),
                       intercept=float(intercept), per_check=True, floor=values.index(min(values)),
                       fitted_on=f"{len(passed)} labelled cases ({len(passed) - fails} pass, {fails} fail) "
                                 f"with {judge.name}")


def save_head(head: VerdictHead, path: str | os.PathLike[str]) -> None:
    """Write ``head`` to one ``.npz`` file (its arrays, and its description as JSON)."""
    import numpy as np

    if head.readout is not None or head.side:
        raise ConfigError(f"save_head writes heads fitted by fit_head; {head.name!r} reads a readout or side signals")
    meta = {"name": head.name, "check": head.check, "prompt_hash": head.prompt_hash, "labels": list(head.labels),
            "positive": list(head.positive), "floor": head.floor, "intercept": head.intercept,
            "fitted_on": head.fitted_on, "role": head.role, "per_check": head.per_check}
    with open(path, "wb") as handle:
        np.savez(handle, meta=np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8), mean=head.mean,
                 scale=head.scale, coef=head.coef)


def load_head(path: str | os.PathLike[str]) -> VerdictHead:
    """A head written by :func:`save_head`; ConfigError naming the file when it is not one."""
    import numpy as np

    try:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(bytes(data["meta"]).decode("utf-8"))
            mean, scale, coef = (data[key].astype(np.float32) for key in ("mean", "scale", "coef"))
        return VerdictHead(name=meta["name"], check=meta["check"], prompt_hash=meta["prompt_hash"],
                           labels=tuple(meta["labels"]), positive=tuple(meta["positive"]), side=(), readout=None,
                           sizes=(), mean=mean, scale=scale, coef=coef, intercept=float(meta["intercept"]),
                           fitted_on=meta["fitted_on"], role=meta["role"], per_check=bool(meta["per_check"]),
                           floor=meta["floor"])
    except (OSError, KeyError, ValueError, TypeError) as exc:
        raise ConfigError(f"{os.fspath(path)}: not a head written by save_head ({type(exc).__name__}: {exc})") from exc
