"""Thin helpers for the clients users pass in: each call of
``client.messages.create`` (Anthropic) or ``client.chat.completions.create``
(OpenAI and compatible servers) becomes an llm step recording the requested
model, the request (input), the reply text and tool calls (output), token
usage, the stop reason (``metadata.finish_reason``) and errors (with the HTTP
status). Same record shapes as sdk/typescript/src/providers/.

No provider SDK is imported: the client is duck-typed and left unmodified
(the helpers return a proxy). Streams (``stream=True``) are recorded as the
caller consumes them. In a fork's replayed prefix the helpers return a
response-shaped object (or stream of events) rebuilt from the recording, and
an instructions edit of the wrapped call replaces its system prompt.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from .provider_calls import (
    MethodProxy,
    ProviderCall,
    ReplayedStream,
    StreamAccumulator,
    Summary,
    field,
    items,
    looks_async,
    traced_method,
    wrap_json,
)


def llm_output(text: str, tool_calls: list[dict[str, Any]]) -> Any:
    """The reply text, or ``{"text", "tool_calls"}`` when the model called tools."""
    return {"text": text, "tool_calls": tool_calls} if tool_calls else text


def split_recorded(recorded: Any) -> tuple[str, list[dict[str, Any]]]:
    """Text and tool calls back from a recorded (or edited) output, whatever its shape."""
    if isinstance(recorded, str):
        return recorded, []
    if isinstance(recorded, Mapping):
        text = recorded.get("text") if isinstance(recorded.get("text"), str) else ""
        calls = recorded.get("tool_calls") if isinstance(recorded.get("tool_calls"), list) else []
        tool_calls = [
            {
                "id": c["id"] if isinstance(c.get("id"), str) else f"call_replayed_{i}",
                "name": str(c.get("name") or ""),
                "input": c.get("input") if c.get("input") is not None else {},
            }
            for i, c in enumerate(calls)
            if isinstance(c, Mapping)
        ]
        return text, tool_calls
    return ("" if recorded is None else json.dumps(recorded)), []


def parse_arguments(text: str) -> Any:
    """A tool call's arguments arrive as JSON text; keep the text when it does not parse."""
    if not text:
        return {}
    try:
        return json.loads(text)
    except ValueError:
        return text


def _number(value: Any) -> Any:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _recorded_usage(entry: Mapping[str, Any] | None) -> Mapping[str, Any]:
    usage = (entry or {}).get("usage")
    return usage if isinstance(usage, Mapping) else {}


def _without_none(values: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}


# --------------------------------------------------------------------------- Anthropic

def _anthropic_usage(usage_obj: Any) -> dict[str, Any]:
    usage: dict[str, Any] = {}
    input_tokens = _number(field(usage_obj, "input_tokens"))
    output_tokens = _number(field(usage_obj, "output_tokens"))
    if input_tokens is not None:
        usage["input_tokens"] = input_tokens
    if output_tokens is not None:
        usage["output_tokens"] = output_tokens
    if usage:
        usage["total_tokens"] = (input_tokens or 0) + (output_tokens or 0)
    return usage


def _cache_metadata(usage_obj: Any) -> dict[str, Any]:
    return _without_none(
        {
            "cache_creation_input_tokens": _number(field(usage_obj, "cache_creation_input_tokens")),
            "cache_read_input_tokens": _number(field(usage_obj, "cache_read_input_tokens")),
        }
    )


def _anthropic_output(blocks: list[Any]) -> Any:
    text = "".join(str(field(b, "text") or "") for b in blocks if field(b, "type") == "text")
    calls = [
        {"id": field(b, "id") or "", "name": field(b, "name") or "", "input": field(b, "input") if field(b, "input") is not None else {}}
        for b in blocks
        if field(b, "type") in ("tool_use", "server_tool_use")
    ]
    return llm_output(text, calls)


class AnthropicMessages(ProviderCall):
    def with_instructions(self, kwargs: dict[str, Any], text: str) -> dict[str, Any]:
        return {**kwargs, "system": text}

    def summarise(self, response: Any) -> Summary:
        usage_obj = field(response, "usage")
        metadata = {
            "finish_reason": field(response, "stop_reason"),
            **_without_none({"response_id": field(response, "id"), "response_model": field(response, "model")}),
            **_cache_metadata(usage_obj),
        }
        return _anthropic_output(items(field(response, "content"))), _anthropic_usage(usage_obj), metadata

    def revive(self, recorded: Any, entry: Mapping[str, Any] | None, model: str, stream: bool) -> Any:
        text, calls = split_recorded(recorded)
        usage = _recorded_usage(entry)
        content: list[dict[str, Any]] = []
        if text or not calls:
            content.append({"type": "text", "text": text})
        content += [{"type": "tool_use", "id": c["id"], "name": c["name"], "input": c["input"]} for c in calls]
        message = {
            "id": "msg_replayed",
            "type": "message",
            "role": "assistant",
            "model": (entry or {}).get("model") or model,
            "content": content,
            # The plan does not carry metadata.finish_reason; tool calls imply tool_use, anything else a normal end.
            "stop_reason": "tool_use" if calls else "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": usage.get("input_tokens", 0), "output_tokens": usage.get("output_tokens", 0)},
        }
        if not stream:
            return wrap_json(message)
        return ReplayedStream(wrap_json(e) for e in _anthropic_events(message))

    def stream_accumulator(self) -> StreamAccumulator:
        return _AnthropicStream()


def _anthropic_events(message: dict[str, Any]) -> list[dict[str, Any]]:
    """The event sequence the Messages API streams for ``message``."""
    start = {**message, "content": [], "stop_reason": None, "usage": {**message["usage"], "output_tokens": 0}}
    events: list[dict[str, Any]] = [{"type": "message_start", "message": start}]
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            events.append({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}})
            events.append({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": block["text"]}})
        else:
            tool = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            events.append({"type": "content_block_start", "index": index, "content_block": tool})
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
            events.append({"type": "content_block_delta", "index": index, "delta": delta})
        events.append({"type": "content_block_stop", "index": index})
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": message["usage"]["output_tokens"]},
        }
    )
    events.append({"type": "message_stop"})
    return events


class _AnthropicStream(StreamAccumulator):
    """Rebuilds the message from stream events as they pass."""

    def __init__(self) -> None:
        self.blocks: dict[int, dict[str, Any]] = {}
        self.message_id = ""
        self.model = ""
        self.stop_reason: Any = None
        self.usage: dict[str, Any] = {}

    def add(self, event: Any) -> None:
        kind = field(event, "type")
        if kind == "message_start":
            message = field(event, "message")
            self.message_id = field(message, "id") or ""
            self.model = field(message, "model") or ""
            self.usage = self._usage_fields(field(message, "usage"))
        elif kind == "content_block_start":
            block = field(event, "content_block")
            self.blocks[int(field(event, "index", len(self.blocks)))] = {
                "type": field(block, "type"),
                "text": field(block, "text") or "",
                "id": field(block, "id"),
                "name": field(block, "name"),
                "input": field(block, "input"),
                "json": "",
            }
        elif kind == "content_block_delta":
            block = self.blocks.get(int(field(event, "index", 0)))
            delta = field(event, "delta")
            if block is None:
                return
            if field(delta, "type") == "text_delta":
                block["text"] += str(field(delta, "text") or "")
            elif field(delta, "type") == "input_json_delta":
                block["json"] += str(field(delta, "partial_json") or "")
        elif kind == "content_block_stop":
            block = self.blocks.get(int(field(event, "index", 0)))
            if block is not None and block["json"]:
                block["input"] = parse_arguments(block["json"])
        elif kind == "message_delta":
            delta = field(event, "delta")
            if field(delta, "stop_reason") is not None:
                self.stop_reason = field(delta, "stop_reason")
            self.usage.update(self._usage_fields(field(event, "usage")))

    @staticmethod
    def _usage_fields(usage_obj: Any) -> dict[str, Any]:
        names = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
        return _without_none({name: _number(field(usage_obj, name)) for name in names})

    def result(self, complete: bool) -> Summary:
        blocks = [self.blocks[i] for i in sorted(self.blocks)]
        metadata: dict[str, Any] = {
            "finish_reason": self.stop_reason,
            "response_id": self.message_id,
            "response_model": self.model,
            "stream": True,
            **_cache_metadata(self.usage),
        }
        if not complete:
            metadata["stream_incomplete"] = True
        return _anthropic_output(blocks), _anthropic_usage(self.usage), metadata


# --------------------------------------------------------------------------- OpenAI-compatible

def _openai_usage(usage_obj: Any) -> dict[str, Any]:
    pairs = (("prompt_tokens", "input_tokens"), ("completion_tokens", "output_tokens"), ("total_tokens", "total_tokens"))
    return _without_none({target: _number(field(usage_obj, source)) for source, target in pairs})


def _content_text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    # Content parts: [{"type": "text", "text": ...}, ...]
    return "".join(str(field(part, "text") or "") for part in items(content))


def _openai_calls(calls: Any) -> list[dict[str, Any]]:
    out = []
    for call in items(calls):
        function = field(call, "function")
        arguments = field(function, "arguments")
        out.append(
            {
                "id": field(call, "id") or "",
                "name": field(function, "name") or "",
                "input": parse_arguments(arguments) if isinstance(arguments, str) else (arguments if arguments is not None else {}),
            }
        )
    return out


class OpenAIChatCompletions(ProviderCall):
    def with_instructions(self, kwargs: dict[str, Any], text: str) -> dict[str, Any]:
        messages = list(kwargs.get("messages") or [])
        for i, message in enumerate(messages):
            if field(message, "role") in ("system", "developer"):
                messages[i] = {"role": field(message, "role"), "content": text}
                break
        else:
            messages.insert(0, {"role": "system", "content": text})
        return {**kwargs, "messages": messages}

    def summarise(self, response: Any) -> Summary:
        choices = items(field(response, "choices"))
        first = choices[0] if choices else None
        message = field(first, "message")
        metadata: dict[str, Any] = {
            "finish_reason": field(first, "finish_reason"),
            **_without_none({"response_id": field(response, "id"), "response_model": field(response, "model")}),
        }
        if field(message, "refusal"):
            metadata["refusal"] = field(message, "refusal")
        if len(choices) > 1:
            # n > 1: every sample, under the conventional key self-consistency scorers read.
            metadata["samples"] = [_content_text(field(field(c, "message"), "content")) for c in choices]
        output = llm_output(_content_text(field(message, "content")), _openai_calls(field(message, "tool_calls")))
        return output, _openai_usage(field(response, "usage")), metadata

    def revive(self, recorded: Any, entry: Mapping[str, Any] | None, model: str, stream: bool) -> Any:
        completion = _replayed_completion(recorded, entry, model)
        if not stream:
            return wrap_json(completion)
        return ReplayedStream(wrap_json(c) for c in _chunks_of(completion))

    def stream_accumulator(self) -> StreamAccumulator:
        return _OpenAIStream()


def _replayed_completion(recorded: Any, entry: Mapping[str, Any] | None, model: str) -> dict[str, Any]:
    text, calls = split_recorded(recorded)
    tool_calls = [
        {
            "id": c["id"],
            "type": "function",
            "function": {"name": c["name"], "arguments": c["input"] if isinstance(c["input"], str) else json.dumps(c["input"])},
        }
        for c in calls
    ]
    usage = _recorded_usage(entry)
    prompt, completion = usage.get("input_tokens", 0), usage.get("output_tokens", 0)
    message: dict[str, Any] = {"role": "assistant", "content": text or (None if tool_calls else "")}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {
        "id": "chatcmpl-replayed",
        "object": "chat.completion",
        "created": 0,
        "model": (entry or {}).get("model") or model,
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if tool_calls else "stop"}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
    }


def _chunks_of(completion: dict[str, Any]) -> list[dict[str, Any]]:
    choice = completion["choices"][0]
    base = {"id": completion["id"], "object": "chat.completion.chunk", "created": 0, "model": completion["model"]}
    first_delta = {"role": "assistant", "content": choice["message"]["content"] or ""}
    chunks = [{**base, "choices": [{"index": 0, "delta": first_delta, "finish_reason": None}]}]
    for index, call in enumerate(choice["message"].get("tool_calls") or []):
        chunks.append({**base, "choices": [{"index": 0, "delta": {"tool_calls": [{"index": index, **call}]}, "finish_reason": None}]})
    chunks.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}], "usage": completion["usage"]})
    return chunks


class _OpenAIStream(StreamAccumulator):
    def __init__(self) -> None:
        self.response_id = ""
        self.model = ""
        self.text: list[str] = []
        self.finish_reason: Any = None
        self.usage: Any = None
        self.calls: dict[int, dict[str, str]] = {}

    def add(self, chunk: Any) -> None:
        self.response_id = field(chunk, "id") or self.response_id
        self.model = field(chunk, "model") or self.model
        if field(chunk, "usage"):
            self.usage = field(chunk, "usage")
        choices = items(field(chunk, "choices"))
        if not choices:
            return
        choice = choices[0]
        delta = field(choice, "delta")
        content = field(delta, "content")
        if isinstance(content, str):
            self.text.append(content)
        for call in items(field(delta, "tool_calls")):
            index = field(call, "index")
            slot = self.calls.setdefault(index if isinstance(index, int) else len(self.calls), {"id": "", "name": "", "args": ""})
            function = field(call, "function")
            slot["id"] = field(call, "id") or slot["id"]
            slot["name"] += str(field(function, "name") or "")
            slot["args"] += str(field(function, "arguments") or "")
        if field(choice, "finish_reason"):
            self.finish_reason = field(choice, "finish_reason")

    def result(self, complete: bool) -> Summary:
        calls = [{"id": c["id"], "name": c["name"], "input": parse_arguments(c["args"])} for _, c in sorted(self.calls.items())]
        metadata: dict[str, Any] = {
            "finish_reason": self.finish_reason,
            "response_id": self.response_id,
            "response_model": self.model,
            "stream": True,
        }
        if not complete:
            metadata["stream_incomplete"] = True
        return llm_output("".join(self.text), calls), _openai_usage(self.usage), metadata


# --------------------------------------------------------------------------- public helpers

def wrap_anthropic(client: Any, *, name: str = "anthropic.messages.create", metadata: Mapping[str, Any] | None = None) -> Any:
    """A stand-in for an ``anthropic.Anthropic`` / ``AsyncAnthropic`` client whose
    ``messages.create`` calls are recorded as llm steps named ``name`` (with
    ``metadata`` on each). The client is not modified; all else passes through."""
    call = AnthropicMessages()
    return MethodProxy(
        client,
        ("messages", "create"),
        lambda method, owner: traced_method(method, call, name, looks_async(method, owner), metadata),
    )


def wrap_openai(client: Any, *, name: str = "chat.completions.create", metadata: Mapping[str, Any] | None = None) -> Any:
    """A stand-in for an ``openai.OpenAI`` / ``AsyncOpenAI`` client (or any client
    of that shape: vLLM, Ollama, LiteLLM ...) whose ``chat.completions.create``
    calls are recorded as llm steps named ``name``."""
    call = OpenAIChatCompletions()
    return MethodProxy(
        client,
        ("chat", "completions", "create"),
        lambda method, owner: traced_method(method, call, name, looks_async(method, owner), metadata),
    )


# The TS SDK's name for the same helper.
wrap_openai_compatible = wrap_openai
