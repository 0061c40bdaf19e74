#!/usr/bin/env bash
# Create benchmarks/peers/.venv with deepeval and ragas (pinned), separate from the project's venv.
# Usage: bash benchmarks/peers/setup_env.sh [python]   (default: python3)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
python="${1:-python3}"
venv="$here/.venv"
# no telemetry from the peers, even during install-time imports
export DEEPEVAL_TELEMETRY_OPT_OUT=YES RAGAS_DO_NOT_TRACK=true DO_NOT_TRACK=1
if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
"$venv/bin/python" -m pip install -q -r "$here/requirements.txt" -c "$here/constraints.txt"
# prove both import (the ragas import is the one that breaks with langchain-community>=0.4)
DEEPEVAL_HOME="$here/.state/deepeval" "$venv/bin/python" - <<'PY'
import deepeval, ragas
from deepeval.metrics import FaithfulnessMetric, GEval  # noqa: F401
from ragas.metrics.collections import AnswerAccuracy, Faithfulness, ResponseGroundedness  # noqa: F401
print(f"peers ready: deepeval {deepeval.__version__}, ragas {ragas.__version__}")
PY
