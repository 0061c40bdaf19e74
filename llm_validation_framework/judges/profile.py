"""JudgeProfile: what a check may know of its judge, in one frozen value.

A check never asks which judge runs it. It reads the judge's profile — how much text the judge
reads well, whether it reads a yes/no question better than a rating, how much word overlap to
blend into its probabilities — and shapes its requests and scores by that. A wrapper (a cache, a
hybrid, a probe) hands on its inner judge's profile whole, so wrapping a judge never changes what
the checks ask it.

    judge.profile.evidence_chars        # 600 for the local model, None for an API model
    replace(judge.profile, prefers_yes_no=True)   # a changed copy (dataclasses.replace)
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import ConfigError

__all__ = ["JudgeProfile"]


@dataclass(frozen=True)
class JudgeProfile:
    """The limits and preferences of a judge that checks read. The defaults describe a large API model.

    * ``evidence_chars``: characters of evidence worth sending per verdict (None: all of it).
      Prompt processing dominates a small local model's time, so passages are cut to their most
      relevant sentences.
    * ``max_input_chars``: roughly how many characters of request text fit in the judge's context
      (None: no limit worth planning for).
    * ``support_overlap_weight``: weight of word overlap blended into a support probability (0: the
      judge decides alone). A small model misses support copied near-verbatim, word overlap misses
      paraphrase: for such judges a bounded blend of the two ranks better than either.
    * ``answer_overlap_weight``: weight of the answer's coverage of the gold answer blended into an
      answer-accuracy probability; the same reasoning.
    * ``substitution_rule``: a claim that copies a passage (or gold answer) sentence but states a
      different number, month, name or opposite in its place, or negates a copied word, scores 0
      as contradicted whatever the judge read
      (:func:`~llm_validation_framework.text.substitution.find_substitution`). A small model reads
      such a near-copy as supported; a large one needs no rule.
    * ``prefers_yes_no``: a check that may ask a rating or a yes/no question asks yes/no (small
      models hedge on rating scales).
    * ``swapped_roles``: answer accuracy also asks its second template, answer and reference
      swapped, and averages the two, so a bias for whichever text comes first cancels out.
    * ``in_process_model``: the judge holds a model in this process (one copy per process; a
      distributed worker gives it its CPUs).
    """

    evidence_chars: int | None = None
    max_input_chars: int | None = None
    support_overlap_weight: float = 0.0
    answer_overlap_weight: float = 0.0
    substitution_rule: bool = False
    prefers_yes_no: bool = False
    swapped_roles: bool = True
    in_process_model: bool = False

    def __post_init__(self) -> None:
        for name in ("evidence_chars", "max_input_chars"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise ConfigError(f"JudgeProfile.{name} must be None (no limit) or a positive integer of "
                                  f"characters, got {value!r}")
        for name in ("support_overlap_weight", "answer_overlap_weight"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
                raise ConfigError(f"JudgeProfile.{name} must be a number within [0, 1] (0: the judge decides "
                                  f"alone), got {value!r}")
        for name in ("substitution_rule", "prefers_yes_no", "swapped_roles", "in_process_model"):
            if not isinstance(getattr(self, name), bool):
                raise ConfigError(f"JudgeProfile.{name} must be True or False, got {getattr(self, name)!r}")

