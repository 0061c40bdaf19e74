"""The offline judge: a GGUF chat model run in this process by llama.cpp (or shared through ``lvf serve``).

``LocalJudge`` is the public entry point; the model file's resolution and verification live in
:mod:`.model_file`.
"""

from __future__ import annotations

from .judge import (DEFAULT_CALIBRATION, Calibration, Completion, LocalBackend, LocalJudge, ServedBackend,
                    build_chat_prompt, calibrate, label_probabilities)

__all__ = ["DEFAULT_CALIBRATION", "Calibration", "Completion", "LocalBackend", "LocalJudge", "ServedBackend",
           "build_chat_prompt", "calibrate", "label_probabilities"]
