"""The offline judge: a GGUF chat model run in this process by llama.cpp (or shared through ``lvf serve``).

``LocalJudge`` (:mod:`.judge`) is the public entry point. Beside it, one concern per module:

* :mod:`.prompt` — the ChatML prompt and reading label probabilities from the first answer token;
* :mod:`.calibration` — the per-check Platt maps of the default model;
* :mod:`.backend` — llama.cpp in this process (xllamacpp, imported when the model loads);
* :mod:`.served` — the model of a running ``lvf serve`` over HTTP (standard library only);
* :mod:`.model_file` — finding, assembling and verifying the GGUF file.
"""

from __future__ import annotations

from .backend import Completion, LocalBackend
from .calibration import DEFAULT_CALIBRATION, Calibration, calibrate
from .judge import LocalJudge
from .prompt import build_chat_prompt, check_labels, label_probabilities
from .served import ServedBackend

__all__ = ["Calibration", "Completion", "DEFAULT_CALIBRATION", "LocalBackend", "LocalJudge", "ServedBackend",
           "build_chat_prompt", "calibrate", "check_labels", "label_probabilities"]
