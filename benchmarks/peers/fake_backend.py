"""A fake judge model for ``compare.py --fake``: valid-shaped replies for every framework, no model.

It tests the plumbing (server, clients, parsing, counting, scoring, the table), not quality:
its answers are a deterministic hash of the request, so scores vary between rows and the
numbers mean nothing. It recognises three request styles:

* instructor JSON mode (ragas): the system message carries a JSON schema -> a minimal instance;
* our LiteLLMJudge: 'Reply with one JSON object … "verdict": "a" | "b"' -> one of the labels;
* deepeval's prompts: the JSON keys they ask for (truths, claims, verdicts, steps, score, reason);
* our LocalJudge's text completions ('Reply with one word: a, b or c.'): top tokens over the labels.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any


def _pick(seed: str, options: list[Any]) -> Any:
    return options[int(hashlib.sha256(seed.encode()).hexdigest(), 16) % len(options)]


def instance_of(schema: dict[str, Any], defs: dict[str, Any], seed: str) -> Any:
    """A minimal valid instance of a (pydantic-made) JSON schema."""
    if "$ref" in schema:
        return instance_of(defs[schema["$ref"].split("/")[-1]], defs, seed)
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            return instance_of(schema[key][0], defs, seed)
    if "enum" in schema:
        return _pick(seed, schema["enum"])
    if "const" in schema:
        return schema["const"]
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        return {name: instance_of(sub, defs, seed + name) for name, sub in schema.get("properties", {}).items()}
    if kind == "array":
        return [instance_of(schema.get("items", {"type": "string"}), defs, seed + str(i)) for i in range(2)]
    if kind == "integer":
        low, high = schema.get("minimum", 0), schema.get("maximum", 1)
        return _pick(seed, list(range(int(low), int(high) + 1)))
    if kind == "number":
        return _pick(seed, [0.0, 0.5, 1.0])
    if kind == "boolean":
        return _pick(seed, [True, False])
    return _pick(seed, ["The statement holds.", "Something else is said."])


def _schema_in(text: str) -> dict[str, Any] | None:
    start = text.find("{", text.find("json_schema"))
    if "json_schema" not in text or start < 0:
        return None
    try:
        schema, _ = json.JSONDecoder().raw_decode(text, start)
    except json.JSONDecodeError:
        return None
    return schema if isinstance(schema, dict) else None


def reply_for(messages: list[dict[str, Any]]) -> str:
    system = "\n".join(m["content"] for m in messages if m["role"] == "system")
    user = "\n".join(m["content"] for m in messages if m["role"] != "system")
    seed = system + user
    schema = _schema_in(system)
    if schema is not None:  # instructor JSON mode (ragas)
        return json.dumps(instance_of(schema, schema.get("$defs", {}), seed))
    labels = re.search(r'"verdict": ((?:"[^"]+"(?: \| )?)+)', system)
    if labels:  # our LiteLLMJudge
        options = re.findall(r'"([^"]+)"', labels.group(1))
        return json.dumps({"reason": "fake reason", "verdict": _pick(seed, options)})
    # deepeval: answer the keys its prompt asks for
    prompt = user
    if '"truths"' in prompt:
        return json.dumps({"truths": ["The passage states a fact.", "It also states another."]})
    if '"claims"' in prompt:
        return json.dumps({"claims": ["The answer makes a claim."]})
    if '"verdicts"' in prompt:
        count = max(1, prompt.count("The answer makes a claim."))
        return json.dumps({"verdicts": [{"verdict": _pick(seed + str(i), ["yes", "no", "idk"]), "reason": "r"}
                                        for i in range(count)]})
    if '"steps"' in prompt:
        return json.dumps({"steps": ["Compare the actual output with the expected output."]})
    if '"score"' in prompt:
        return json.dumps({"score": _pick(seed, [0, 3, 7, 10]), "reason": "fake"})
    if '"reason"' in prompt:
        return json.dumps({"reason": "fake reason"})
    return "fake"


class FakeJudgeBackend:
    model_id = "fake-judge"

    def chat(self, body: dict[str, Any]) -> dict[str, Any]:
        content = reply_for(body["messages"])
        prompt_tokens = sum(len(str(m["content"]).split()) for m in body["messages"])
        return {"choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                             "finish_reason": "stop"}],
                "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": len(content.split())}}

    def complete(self, body: dict[str, Any]) -> dict[str, Any]:
        """llama.cpp's text-completion shape: the first position's top tokens spread over the labels."""
        prompt = body["prompt"]
        found = re.findall(r"Reply with one word: (.+?)\.<\|im_end\|>", prompt)
        labels = re.split(r", | or ", found[-1]) if found else ["yes", "no"]
        first = _pick(prompt, labels)
        top = [{"token": label, "logprob": -0.2 if label == first else -2.0} for label in labels]
        return {"choices": [{"index": 0, "text": first, "logprobs": {"content": [
                    {"token": first, "logprob": -0.2, "top_logprobs": top[:body.get("n_probs") or 1]}]}}],
                "usage": {"prompt_tokens": len(prompt.split()), "completion_tokens": 1}}
