"""The machinery shared by the provider helpers (``wrap_anthropic``, ``wrap_openai``).

Nothing here imports a provider SDK: clients are duck-typed, and responses are
read through ``field`` which accepts SDK objects and plain dicts alike.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Iterable, Mapping

from .execute_step import StepExecution, begin_step

_MISSING: Any = object()


def field(obj: Any, name: str, default: Any = None) -> Any:
    """``obj.name`` or ``obj[name]``, whichever the object supports."""
    if obj is None:
        return default
    if isinstance(obj, Mapping):
        return obj.get(name, default)
    value = getattr(obj, name, _MISSING)
    return default if value is _MISSING else value


def items(obj: Any) -> list[Any]:
    value = obj if obj is not None else []
    try:
        return list(value)
    except TypeError:
        return []


class ReplayedRecord:
    """A recorded response read back in a fork's replayed prefix: attribute and
    key access over JSON, so ``resp.content[0].text`` and ``resp["content"]`` both work.
    Missing attributes read as None, as optional fields of SDK objects do."""

    __slots__ = ("_data",)

    def __init__(self, data: Mapping[str, Any]) -> None:
        object.__setattr__(self, "_data", dict(data))

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return wrap_json(self._data.get(name))

    def __getitem__(self, key: str) -> Any:
        return wrap_json(self._data[key])

    def get(self, key: str, default: Any = None) -> Any:
        return wrap_json(self._data.get(key, default))

    def model_dump(self, **_: Any) -> dict[str, Any]:
        return dict(self._data)

    to_dict = model_dump

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ReplayedRecord) and other._data == self._data

    def __repr__(self) -> str:
        return f"ReplayedRecord({self._data!r})"


def wrap_json(value: Any) -> Any:
    if isinstance(value, Mapping):
        return ReplayedRecord(value)
    if isinstance(value, list):
        return [wrap_json(v) for v in value]
    return value


class ProviderCall:
    """How one provider method becomes an llm step."""

    def request_input(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        # Transport options are not the step's input, and headers may hold credentials.
        skipped = {"extra_headers", "extra_query", "extra_body", "timeout"}
        recorded = {k: v for k, v in kwargs.items() if k not in skipped}
        if args:
            recorded["args"] = list(args)
        return recorded

    def with_instructions(self, kwargs: dict[str, Any], text: str) -> dict[str, Any]:
        raise NotImplementedError

    def summarise(self, response: Any) -> "Summary":
        """(output, usage, metadata) of a complete response."""
        raise NotImplementedError

    def revive(self, recorded: Any, entry: Mapping[str, Any] | None, model: str, stream: bool) -> Any:
        """A response-shaped object (or event stream) rebuilt from a recorded output."""
        raise NotImplementedError

    def stream_accumulator(self) -> "StreamAccumulator":
        raise NotImplementedError


Summary = tuple[Any, dict[str, Any], dict[str, Any]]


class StreamAccumulator:
    """Builds a step's output from stream events as the caller consumes them."""

    def add(self, event: Any) -> None:
        raise NotImplementedError

    def result(self, complete: bool) -> "Summary":
        raise NotImplementedError


def _finish(ex: StepExecution, summary: Summary) -> None:
    # step.model stays the requested model: a dated response model (metadata.response_model)
    # must not look like a model change in a fork.
    output, usage, metadata = summary
    if usage:
        ex.step.set_usage(usage)
    if metadata:
        ex.step.set_metadata(metadata)
    ex.succeed(output)


def _safe_summary(call: ProviderCall, response: Any) -> Summary:
    try:
        return call.summarise(response)
    except Exception:  # noqa: BLE001 - an unexpected response shape is recorded as is
        return response, {}, {}


class TracedStream:
    """A provider stream handed to the caller; the step ends when it is exhausted,
    fails, or is closed early. Everything else is delegated to the real stream."""

    def __init__(self, inner: Any, ex: StepExecution, acc: StreamAccumulator) -> None:
        self._inner = inner
        self._ex = ex
        self._acc = acc
        self._iterator: Any = None
        self._done = False

    def _end(self, error: BaseException | None = None, closed_early: bool = False) -> None:
        if self._done:
            return
        self._done = True
        if error is not None:
            self._ex.fail(error)
            return
        try:
            summary = self._acc.result(complete=not closed_early)
        except Exception:  # noqa: BLE001
            summary = (None, {}, {"stream": True})
        _finish(self._ex, summary)

    def _observe(self, event: Any) -> None:
        try:
            self._acc.add(event)
        except Exception:  # noqa: BLE001 - a surprising event must not break the caller's loop
            pass

    # sync protocol
    def __iter__(self) -> "TracedStream":
        return self

    def __next__(self) -> Any:
        if self._iterator is None:
            self._iterator = iter(self._inner)
        try:
            event = next(self._iterator)
        except StopIteration:
            self._end()
            raise
        except BaseException as exc:
            self._end(error=exc)
            raise
        self._observe(event)
        return event

    def __enter__(self) -> "TracedStream":
        enter = getattr(self._inner, "__enter__", None)
        if enter is not None:
            enter()
        return self

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> Any:
        self._end(error=exc, closed_early=exc is None)
        exit_ = getattr(self._inner, "__exit__", None)
        return exit_(exc_type, exc, tb) if exit_ is not None else False

    def close(self) -> Any:
        self._end(closed_early=True)
        close = getattr(self._inner, "close", None)
        return close() if close is not None else None

    # async protocol
    def __aiter__(self) -> "TracedStream":
        return self

    async def __anext__(self) -> Any:
        if self._iterator is None:
            self._iterator = self._inner.__aiter__()
        try:
            event = await self._iterator.__anext__()
        except StopAsyncIteration:
            self._end()
            raise
        except BaseException as exc:
            self._end(error=exc)
            raise
        self._observe(event)
        return event

    async def __aenter__(self) -> "TracedStream":
        enter = getattr(self._inner, "__aenter__", None)
        if enter is not None:
            await enter()
        return self

    async def __aexit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> Any:
        self._end(error=exc, closed_early=exc is None)
        exit_ = getattr(self._inner, "__aexit__", None)
        return (await exit_(exc_type, exc, tb)) if exit_ is not None else False

    async def aclose(self) -> Any:
        self._end(closed_early=True)
        for name in ("aclose", "close"):
            close = getattr(self._inner, name, None)
            if close is not None:
                result = close()
                return (await result) if inspect.isawaitable(result) else result
        return None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class ReplayedStream:
    """Recorded output replayed as the stream events the provider would have sent."""

    def __init__(self, events: Iterable[Any]) -> None:
        self._events = list(events)
        self._position = 0

    def __iter__(self) -> "ReplayedStream":
        return self

    def __next__(self) -> Any:
        if self._position >= len(self._events):
            raise StopIteration
        self._position += 1
        return self._events[self._position - 1]

    def __aiter__(self) -> "ReplayedStream":
        return self

    async def __anext__(self) -> Any:
        try:
            return self.__next__()
        except StopIteration:
            raise StopAsyncIteration from None

    def __enter__(self) -> "ReplayedStream":
        return self

    def __exit__(self, *_: Any) -> bool:
        return False

    async def __aenter__(self) -> "ReplayedStream":
        return self

    async def __aexit__(self, *_: Any) -> bool:
        return False

    def close(self) -> None:
        self._position = len(self._events)

    async def aclose(self) -> None:
        self.close()


def traced_method(
    original: Callable[..., Any],
    call: ProviderCall,
    step_name: str,
    is_async: bool,
    metadata: Mapping[str, Any] | None = None,
) -> Callable[..., Any]:
    """``original`` (e.g. ``client.messages.create``) recorded as an llm step per call."""

    def begin(args: tuple[Any, ...], kwargs: dict[str, Any]) -> StepExecution | None:
        model = kwargs.get("model")
        return begin_step(
            step_name,
            "llm",
            input=call.request_input(args, kwargs),
            metadata=metadata,
            model=str(model) if isinstance(model, str) else None,
        )

    def replay(ex: StepExecution, kwargs: dict[str, Any], stream: bool) -> Any:
        entry = ex.decision.entry
        model = str(kwargs.get("model") or "")
        return ex.replayed_result(lambda recorded: call.revive(recorded, entry, model, stream))

    def finish(ex: StepExecution, response: Any, stream: bool) -> Any:
        if stream:
            return TracedStream(response, ex, call.stream_accumulator())
        _finish(ex, _safe_summary(call, response))
        return response

    def prepare(ex: StepExecution, kwargs: dict[str, Any]) -> tuple[Callable[..., Any], dict[str, Any]]:
        target = ex.live_target(original)
        override = ex.step.instructions_override
        return target, (call.with_instructions(kwargs, override) if override is not None else kwargs)

    if is_async:

        async def async_create(*args: Any, **kwargs: Any) -> Any:
            ex = begin(args, kwargs)
            if ex is None:
                return await original(*args, **kwargs)
            stream = bool(kwargs.get("stream"))
            if ex.replayed:
                return replay(ex, kwargs, stream)
            target, kwargs = prepare(ex, kwargs)
            try:
                response = await target(*args, **kwargs)
            except BaseException as exc:
                ex.fail(exc)
                raise
            return finish(ex, response, stream)

        return async_create

    def create(*args: Any, **kwargs: Any) -> Any:
        ex = begin(args, kwargs)
        if ex is None:
            return original(*args, **kwargs)
        stream = bool(kwargs.get("stream"))
        if ex.replayed:
            return replay(ex, kwargs, stream)
        target, kwargs = prepare(ex, kwargs)
        try:
            response = target(*args, **kwargs)
        except BaseException as exc:
            ex.fail(exc)
            raise
        if inspect.isawaitable(response):
            # An async client whose method is not an `async def` (the real SDKs
            # wrap theirs): finish the step when the caller awaits.
            return _finish_later(ex, response, stream, finish)
        return finish(ex, response, stream)

    return create


async def _finish_later(ex: StepExecution, awaitable: Any, stream: bool, finish: Callable[..., Any]) -> Any:
    try:
        response = await awaitable
    except BaseException as exc:
        ex.fail(exc)
        raise
    return finish(ex, response, stream)


class MethodProxy:
    """Stands in for a client (or one of its resources) without modifying it:
    ``path`` names the attributes down to the method that gets traced."""

    def __init__(self, target: Any, path: tuple[str, ...], make: Callable[[Any, Any], Callable[..., Any]]) -> None:
        object.__setattr__(self, "_target", target)
        object.__setattr__(self, "_path", path)
        object.__setattr__(self, "_make", make)

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._target, name)
        if not self._path or name != self._path[0]:
            return value
        if len(self._path) == 1:
            return self._make(value, self._target)
        return MethodProxy(value, self._path[1:], self._make)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._target, name, value)

    def __repr__(self) -> str:
        return f"<traced {self._target!r}>"


def looks_async(method: Any, owner: Any) -> bool:
    """The real SDKs' async methods are plain functions returning coroutines, so
    the class name (AsyncMessages, AsyncCompletions) is the reliable sign."""
    if inspect.iscoroutinefunction(method):
        return True
    return type(owner).__name__.startswith("Async")

