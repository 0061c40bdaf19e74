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

__all__ = ["C_GRID", "MIN_PER_CLASS", "fit_head", "fit_logistic", "load_head", "save_head"]

#: labelled cases each class needs before a head is fitted: fewer fit the noise of a few cases
MIN_PER_CLASS = 20
#: the inverse regularisation strengths a fit chooses among, by cross-validation on the user's labels:
#: a hidden state has ~1 500 dimensions and a user a few hundred labels, so the layer is kept small
C_GRID = (0.001, 0.003, 0.01, 0.03)
#: folds of every cross-fit here (the choice of strength, the Platt map)
FOLDS = 5


def fit_logistic(x: Any, y: Any, *, c: float = 0.003, iterations: int = 50) -> tuple[Any, float]:
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


def _cross_fitted(z: Any, y: Any, c: float) -> Any | None:
    """Each row's logit from the layer fitted on the other folds (None when a fold leaves one class)."""
    import numpy as np

    held = np.zeros(len(y))
    fold = np.arange(len(y)) % FOLDS
    for k in range(FOLDS):
        train = fold != k
        if len(set(y[train].tolist())) < 2:
            return None
        w, b = fit_logistic(z[train], y[train], c=c)
        held[~train] = z[~train] @ w + b
    return held


def _platt(held: Any, y: Any) -> tuple[float, float]:
    """``(a, b)`` mapping a logit ``t`` to the probability ``sigmoid(a t + b)``, fitted on held-out logits."""
    spread = float(held.std()) or 1.0
    (a,), b = fit_logistic((held / spread)[:, None], y, c=100.0)
    return float(a) / spread, b


def _balanced_log_loss(held: Any, y: Any) -> float:
    import numpy as np

    a, b = _platt(held, y)
    p = np.clip(1.0 / (1.0 + np.exp(-(a * held + b))), 1e-12, 1 - 1e-12)
    weight = np.where(y == 1, 0.5 / y.mean(), 0.5 / (1.0 - y.mean()))
    return float(-(weight * (y * np.log(p) + (1 - y) * np.log(1 - p))).mean())


def _fit_scaled(x: Any, y: Any, c: float | None) -> tuple[Any, float, float]:
    """``(coef, intercept, c)``: the layer fitted on every row, its logit rescaled by a Platt map fitted
    on cross-fitted logits; with ``c`` None, the strength of :data:`C_GRID` whose cross-fitted,
    rescaled logits have the lowest balanced log-loss.

    A layer kept small by its penalty ranks well but says "about 0.5" for every case; the map, learned
    on logits of rows each fold's layer never saw, turns its logit into a probability to decide on.
    The fits run in the span of the rows (``x = z vt``, a thin SVD): an L2 solution lies there, so it is
    the same layer, found in a few hundred dimensions instead of the hidden state's."""
    import numpy as np

    _, singular, vt = np.linalg.svd(x, full_matrices=False)
    vt = vt[singular > singular[0] * 1e-10]
    z = x @ vt.T
    if c is None:
        losses = {}
        for candidate in C_GRID:
            held = _cross_fitted(z, y, candidate)
            if held is not None:
                losses[candidate] = _balanced_log_loss(held, y)
        c = min(losses, key=losses.__getitem__) if losses else C_GRID[1]
    coef, intercept = fit_logistic(z, y, c=c)
    held = _cross_fitted(z, y, c)
    if held is None:
        return vt.T @ coef, intercept, c
    a, b = _platt(held, y)
    return vt.T @ coef * a, intercept * a + b, c


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
                   c: float | None = None, progress: Callable[[int, int], None] | None = None) -> VerdictHead:
    """A head for the check all ``requests`` ask, fitted on ``labels`` (one per request: pass/fail).

    Each request is read once by ``judge``'s model (one embeddings call, about a verdict's time);
    ``progress(done, total)`` is called after each. ``c``, the layer's inverse regularisation
    strength, is chosen among :data:`C_GRID` by cross-validation on the labels unless given. Raises
    InputError with too few labels of either class, or requests of different checks or prompts."""
    if len(requests) != len(labels):
        raise InputError(f"{len(requests)} cases but {len(labels)} labels: give one label per case", field="labels")
    if c is not None and not (isinstance(c, (int, float)) and 0 < c < float("inf")):
        raise InputError(f"c = {c!r}: give a positive number (the layer's inverse regularisation strength), "
                         f"or leave it out to have it chosen on your labels", field="c")
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
    coef, intercept, c = _fit_scaled((x - mean) / scale, np.asarray(passed, dtype=np.float64), c)
    values = [first.options[label] for label in first.labels]
    return VerdictHead(name=name, check=first.check, prompt_hash=first.prompt_hash, labels=first.labels,
                       positive=(values.index(max(values)),), side=(), readout=None, sizes=(),
                       mean=mean.astype(np.float32), scale=scale.astype(np.float32), coef=coef.astype(np.float32),
                       intercept=float(intercept), per_check=True, floor=values.index(min(values)),
                       fitted_on=f"{len(passed)} labelled cases ({len(passed) - fails} pass, {fails} fail) "
                                 f"with {judge.name}, C={c:g}")


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
