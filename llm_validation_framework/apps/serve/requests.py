"""The request bodies ``lvf serve`` accepts, as pydantic models, and the llama.cpp requests made of them.

    ChatRequest         POST /v1/chat/completions  (messages: ChatMessage, response_format: ResponseFormat)
    CompletionRequest   POST /v1/completions       (one raw prompt; top tokens per position as n_probs)

A bad body is a :class:`ServeError` (HTTP 400) naming the first field at fault (OpenAI's
``param``, e.g. ``messages[0].role``) and what it must be: each field's description says that.
Fields a model does not declare are accepted and ignored, since OpenAI's clients send many
(``user``, ``service_tier`` …). ``backend_request`` is the plain dict llama.cpp's handler reads:
the declared fields that were given, with the server's completion budget when none was.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, Literal, TypeVar, get_args

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr, ValidationError, model_validator

from .errors import ServeError
from .limits import DEFAULT_MAX_TOKENS, MAX_COMPLETION_TOKENS, MAX_N

__all__ = ["ChatMessage", "ChatRequest", "CompletionRequest", "JsonSchemaFormat", "ResponseFormat", "decode_body",
           "parse_request", "validate_chat_request", "validate_completion_request"]

_MAX_TOKENS = f"a positive integer up to {MAX_COMPLETION_TOKENS}"
_TEMPERATURE = "a number from 0.0 to 2.0"
_TOP_P = "a number from 0.0 to 1.0"
#: llama.cpp reads a seed into 64 bits
_SEED_MIN, _SEED_MAX = -(2 ** 63), 2 ** 64 - 1
_SEED = "an integer that fits in 64 bits"
Role = Literal["system", "user", "assistant", "tool", "developer", "function"]
_ROLES: tuple[str, ...] = get_args(Role)
_STOP = "a string or a list of strings"
_PENALTY = "a number from -2.0 to 2.0"

_Prompt = Annotated[StrictStr, Field(min_length=1)]


class ChatMessage(BaseModel):
    """One chat message. Its other fields (``name``, ``tool_calls`` …) are passed on as they are."""

    model_config = ConfigDict(extra="allow")

    role: Role = Field(description="one of " + ", ".join(_ROLES))
    content: StrictStr | list[Any] | None = Field(None, description="a string or a list of content parts")

    def flattened(self, param: str) -> dict[str, Any]:
        """The message with its content as one string: content parts (OpenAI's list form) are joined,
        since the model reads text only; no content is the empty string."""
        content = self.content
        if isinstance(content, list):
            texts = []
            for index, part in enumerate(content):
                if isinstance(part, Mapping) and part.get("type") == "text" and isinstance(part.get("text"), str):
                    texts.append(part["text"])
                elif isinstance(part, str):
                    texts.append(part)
                else:
                    kind = part.get("type") if isinstance(part, Mapping) else type(part).__name__
                    raise ServeError(f"content part of type {kind!r} is not supported: this model reads text only",
                                     param=f"{param}[{index}]")
            content = "\n".join(texts)
        return {**(self.model_extra or {}), "role": self.role, "content": content or ""}


class JsonSchemaFormat(BaseModel):
    """``response_format.json_schema``: the schema the reply must follow (``name``, ``strict`` … pass on)."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    schema_: dict[str, Any] = Field(alias="schema", description="a JSON schema object")


class ResponseFormat(BaseModel):
    """``response_format``: free text, any JSON object, or JSON following a schema (llama.cpp constrains it)."""

    model_config = ConfigDict(extra="allow")

    type: Literal["text", "json_object", "json_schema"] = Field(description="one of text, json_object, json_schema")
    json_schema: JsonSchemaFormat | None = Field(None, description="an object with a 'schema'")


class ChatRequest(BaseModel):
    """An OpenAI chat-completion request (``n`` generations, ``stream`` answered as one chunk)."""

    model_config = ConfigDict(extra="ignore")

    messages: list[ChatMessage] = Field(min_length=1, description="a non-empty list of {role, content} objects")
    max_tokens: StrictInt | None = Field(None, ge=1, le=MAX_COMPLETION_TOKENS, description=_MAX_TOKENS)
    max_completion_tokens: StrictInt | None = Field(None, ge=1, le=MAX_COMPLETION_TOKENS, description=_MAX_TOKENS)
    temperature: float | None = Field(None, strict=True, ge=0.0, le=2.0, description=_TEMPERATURE)
    top_p: float | None = Field(None, strict=True, ge=0.0, le=1.0, description=_TOP_P)
    seed: StrictInt | None = Field(None, ge=_SEED_MIN, le=_SEED_MAX, description=_SEED)
    stop: StrictStr | list[StrictStr] | None = Field(None, description=_STOP)
    logprobs: StrictBool | None = Field(None, description="true or false")
    top_logprobs: StrictInt | None = Field(None, ge=0, le=20, description="an integer from 0 to 20")
    response_format: ResponseFormat | None = Field(None, description="an object with a 'type'")
    presence_penalty: float | None = Field(None, strict=True, ge=-2.0, le=2.0, description=_PENALTY)
    frequency_penalty: float | None = Field(None, strict=True, ge=-2.0, le=2.0, description=_PENALTY)
    logit_bias: Any = None
    tools: list[Any] | None = Field(None, description="a list of tool definitions")
    tool_choice: Any = None
    grammar: StrictStr | None = Field(None, description="a GBNF grammar (a string)")
    json_schema: dict[str, Any] | None = Field(None, description="a JSON schema object")
    n: StrictInt | None = Field(None, ge=1, le=MAX_N, description=f"an integer from 1 to {MAX_N}")
    stream: StrictBool | None = Field(None, description="true or false")
    stream_options: dict[str, Any] | None = Field(None, description="an object such as {\"include_usage\": true}")

    #: passed to llama.cpp as they are when given (messages, max_tokens and response_format are built)
    PASSED_ON: ClassVar[tuple[str, ...]] = (
        "temperature", "top_p", "seed", "stop", "logprobs", "top_logprobs", "presence_penalty",
        "frequency_penalty", "logit_bias", "tools", "tool_choice", "grammar", "json_schema")

    @property
    def generations(self) -> int:
        return self.n or 1

    @property
    def include_usage(self) -> bool:
        return bool((self.stream_options or {}).get("include_usage"))

    def backend_request(self, default_max_tokens: int = DEFAULT_MAX_TOKENS) -> dict[str, Any]:
        """The request for one generation (``n`` is the caller's loop)."""
        if self.top_logprobs and not self.logprobs:
            raise ServeError("'top_logprobs' needs 'logprobs': true", param="top_logprobs")
        fmt = self.response_format
        if fmt is not None and fmt.type == "json_schema" and fmt.json_schema is None:
            raise ServeError("'response_format' of type json_schema needs json_schema.schema (a JSON schema object)",
                             param="response_format.json_schema")
        request: dict[str, Any] = {"messages": [message.flattened(f"messages[{index}].content")
                                                for index, message in enumerate(self.messages)]}
        request["max_tokens"] = self.max_tokens or self.max_completion_tokens or default_max_tokens
        request.update({name: getattr(self, name) for name in self.PASSED_ON if getattr(self, name) is not None})
        if fmt is not None and fmt.type != "text":
            request["response_format"] = fmt.model_dump(by_alias=True, exclude_unset=True)
        return request


class CompletionRequest(BaseModel):
    """A text-completion request: one raw prompt, answered in llama.cpp's shape (``n_probs`` top tokens)."""

    model_config = ConfigDict(extra="ignore")

    prompt: _Prompt | Annotated[list[_Prompt], Field(min_length=1, max_length=1)] = Field(
        description="a non-empty string (one prompt per request)")
    max_tokens: StrictInt | None = Field(None, ge=1, le=MAX_COMPLETION_TOKENS, description=_MAX_TOKENS)
    temperature: float | None = Field(None, strict=True, ge=0.0, le=2.0, description=_TEMPERATURE)
    top_p: float | None = Field(None, strict=True, ge=0.0, le=1.0, description=_TOP_P)
    seed: StrictInt | None = Field(None, ge=_SEED_MIN, le=_SEED_MAX, description=_SEED)
    stop: StrictStr | list[StrictStr] | None = Field(None, description=_STOP)
    n_probs: StrictInt | None = Field(None, ge=0, le=20, description="an integer from 0 to 20 (top tokens of "
                                                                   "each position; OpenAI's 'logprobs' means the same)")
    n: StrictInt | None = Field(None, ge=1, le=1, description="1 for a text completion")
    stream: StrictBool | None = Field(None, description="true or false")

    PASSED_ON: ClassVar[tuple[str, ...]] = ("temperature", "top_p", "seed", "stop", "n_probs")

    @model_validator(mode="before")
    @classmethod
    def _legacy_logprobs(cls, data: Any) -> Any:
        """OpenAI's legacy ``logprobs: k`` (the top k tokens of each position) is llama.cpp's ``n_probs``."""
        if isinstance(data, Mapping) and data.get("n_probs") is None and data.get("logprobs") is not None:
            data = {**data, "n_probs": data["logprobs"]}
        return data

    def backend_request(self, default_max_tokens: int = DEFAULT_MAX_TOKENS) -> dict[str, Any]:
        if self.stream:
            raise ServeError("'stream' is not supported for text completions: leave it out", param="stream")
        prompt = self.prompt[0] if isinstance(self.prompt, list) else self.prompt
        request: dict[str, Any] = {"prompt": prompt, "max_tokens": self.max_tokens or default_max_tokens}
        request.update({name: getattr(self, name) for name in self.PASSED_ON if getattr(self, name) is not None})
        return request


_Request = TypeVar("_Request", ChatRequest, CompletionRequest)

_MODELS = (ChatMessage, JsonSchemaFormat, ResponseFormat, ChatRequest, CompletionRequest)
#: every field name a body may use (what is not one in an error's location is a pydantic union tag)
_FIELD_NAMES = {field.alias or name for model in _MODELS for name, field in model.model_fields.items()}


class _LongInteger:
    """An integer of more digits than Python converts (``sys.get_int_max_str_digits``), kept as its size."""

    def __init__(self, text: str) -> None:
        self.digits = len(text.lstrip("-"))

    def __repr__(self) -> str:
        return f"an integer of {self.digits} digits"


def decode_body(raw: bytes) -> Any:
    """A request body read as JSON (empty: ``{}``), or a ServeError (400) saying what is wrong with it;
    an integer too long to convert is a 400 naming the field it is in, not a crash."""
    if not raw:
        return {}
    limit = sys.get_int_max_str_digits()
    found: list[_LongInteger] = []

    def integer(text: str) -> int | _LongInteger:
        if limit and len(text.lstrip("-")) > limit:
            found.append(_LongInteger(text))
            return found[-1]
        return int(text)

    try:
        body = json.loads(raw, parse_int=integer)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ServeError(f"the request body is not valid JSON: {exc}") from None
    except RecursionError:
        raise ServeError("the request body is nested too deeply to read: send at most a few hundred levels of "
                         "objects and lists") from None
    if found:
        param = _path_of(body, found[0])
        raise ServeError(f"'{param}' is {found[0]!r}: no number this server reads is that long", param=param or None)
    return body


def _path_of(body: Any, target: object) -> str:
    """Where ``target`` sits in ``body``, as ``messages[0].seed`` (walked without recursion: bodies nest deep)."""
    stack: list[tuple[Any, str]] = [(body, "")]
    while stack:
        value, path = stack.pop()
        if value is target:
            return path
        if isinstance(value, dict):
            stack.extend((item, f"{path}.{key}".lstrip(".")) for key, item in value.items())
        elif isinstance(value, list):
            stack.extend((item, f"{path}[{index}]") for index, item in enumerate(value))
    return ""


def parse_request(model: type[_Request], body: Any) -> _Request:
    """``body`` validated as ``model``, or a ServeError naming the first bad field and what it must be."""
    if not isinstance(body, Mapping):
        wanted = "a 'messages' list" if model is ChatRequest else "a 'prompt' string"
        raise ServeError(f"the request body must be a JSON object with {wanted}")
    try:
        return model.model_validate(body)
    except ValidationError as exc:
        raise _refusal(exc.errors(include_url=False)[0], model, body) from None


def _refusal(error: Mapping[str, Any], model: type[BaseModel], body: Mapping[str, Any]) -> ServeError:
    # the path of fields and list indices, without pydantic's union-member tags ("str", "list[str]" …);
    # an error inside a list's item is reported on the list unless the item has fields of its own
    path = [part for part in error["loc"] if isinstance(part, int) or part in _FIELD_NAMES]
    while path and isinstance(path[-1], int):
        path.pop()
    param = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in path).lstrip(".")
    hint = _description(model, path)
    if error["type"] == "missing":
        return ServeError(f"'{param}' is required" + (f": {hint}" if hint else ""), param=param)
    if hint is None:
        return ServeError(f"'{param}': {error['msg']}", param=param or None)
    return ServeError(f"'{param}' must be {hint}, got {_shown(_value_at(body, path))}", param=param)


def _description(model: type[BaseModel], path: list[str | int]) -> str | None:
    """The description of the field at ``path`` (what it must be), following nested models."""
    field = None
    for part in path:
        if isinstance(part, int):
            continue
        field = next((f for name, f in model.model_fields.items() if (f.alias or name) == part), None)
        if field is None:
            return None
        model = _nested_model(field.annotation) or model
    return field.description if field is not None else None


def _nested_model(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return next((m for arg in get_args(annotation) if (m := _nested_model(arg)) is not None), None)


def _value_at(body: Any, path: list[str | int]) -> Any:
    for part in path:
        try:
            body = body[part]
        except (KeyError, IndexError, TypeError):
            return None
    return body


def _shown(value: Any, limit: int = 80) -> str:
    try:
        text = repr(value)
    except RecursionError:
        return "a value nested too deeply to show"
    return text if len(text) <= limit else text[:limit - 1] + "…"


def validate_chat_request(body: Any, *, default_max_tokens: int = DEFAULT_MAX_TOKENS) -> tuple[dict[str, Any], int]:
    """The backend request of a chat-completion body (``n`` removed) and ``n``; ServeError if it is bad."""
    chat = parse_request(ChatRequest, body)
    return chat.backend_request(default_max_tokens), chat.generations


def validate_completion_request(body: Any, *, default_max_tokens: int = DEFAULT_MAX_TOKENS) -> dict[str, Any]:
    """The backend request of a text-completion body; ServeError if it is bad."""
    return parse_request(CompletionRequest, body).backend_request(default_max_tokens)
