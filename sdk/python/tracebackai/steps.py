"""Steps: the ``@trace`` decorator and the ``step()`` context manager.

Both go through ``execute_step.begin_step``; outside a pipeline they run the
code unrecorded. Errors are recorded and re-raised unchanged (same object,
same traceback).
"""

from __future__ import annotations

import builtins
import functools
import inspect
from typing import Any, Callable, Mapping, TypeVar

from .execute_step import UNSET, StepExecution, begin_step
from .json_safe import Json
from .runtime import STEP_TYPES
from .signature_input import bound_arguments, default_name

F = TypeVar("F", bound=Callable[..., Any])


def _check_type(step_type: str, where: str) -> None:
    if step_type not in STEP_TYPES:
        raise ValueError(f"{where}(type=...) must be one of {', '.join(STEP_TYPES)}; got {step_type!r}")


def trace(
    fn: F | None = None,
    *,
    type: str = "generic",  # noqa: A002 - the public name the issue asks for
    name: str | None = None,
    metadata: Mapping[str, Any] | None = None,
    side_effect: bool = False,
    model: str | None = None,
    capture_input: bool | Callable[..., Any] = True,
    capture_output: bool | Callable[[Any], Any] = True,
    revive: Callable[[Json], Any] | None = None,
    guard: str | None = None,
    guard_task: str | Callable[[], str] | None = None,
    guard_motif_file: str | None = None,
) -> Any:
    """Record each call of the decorated function as a step.

    Works on plain, ``async``, generator and async-generator functions; use it
    bare (``@trace``) or with options (``@trace(type="retrieval")``).

    type: retrieval | prompt | llm | tool | agent | generic.
    name: step name (default: the function's ``__qualname__``).
    metadata: recorded on step-start.
    side_effect: the step acts on the world (mail, payments, writes); a fork
        experiment will not run it live unless a mock is registered.
    model: the model the step calls, known before it runs (in a fork, a model
        other than the recorded one is refused unless the plan allows it).
    capture_input / capture_output: False to omit, or a function mapping the
        arguments / the result to what is recorded.
    revive: in replay mode, turns the recorded JSON output back into the value
        the caller expects (e.g. ``lambda d: Answer(**d)``).
    guard: "warn" | "block": check the call's arguments against known failure
        motifs before it runs (docs/motifs.md); ``guard_task`` is the task it
        quotes (default: the task last given to pitfalls/with_pitfalls).
    """
    _check_type(type, "trace")
    step_type = type

    def decorate(func: F) -> F:
        step_name = name or default_name(func, "step")
        if guard is not None:
            from .pitfalls import guarded  # the pre-execution guard, docs/motifs.md section 5

            func = guarded(func, step_name, guard, guard_task, guard_motif_file)

        def begin(args: tuple[Any, ...], kwargs: dict[str, Any]) -> StepExecution | None:
            return begin_step(
                step_name,
                step_type,
                input=recorded_input(args, kwargs),
                metadata=metadata,
                side_effect=side_effect,
                model=model,
            )

        def recorded_input(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
            if capture_input is False:
                return UNSET
            if capture_input is not True and callable(capture_input):
                try:
                    return capture_input(*args, **kwargs)
                except Exception as exc:  # noqa: BLE001
                    return f"[capture_input failed: {builtins.type(exc).__name__}]"
            return bound_arguments(func, args, kwargs)

        def recorded_output(result: Any) -> Any:
            if capture_output is False:
                return UNSET
            if capture_output is not True and callable(capture_output):
                try:
                    return capture_output(result)
                except Exception as exc:  # noqa: BLE001
                    return f"[capture_output failed: {builtins.type(exc).__name__}]"
            return result

        if inspect.isasyncgenfunction(func):

            @functools.wraps(func)
            async def async_gen_wrapper(*args: Any, **kwargs: Any) -> Any:
                ex = begin(args, kwargs)
                if ex is None:
                    async for item in func(*args, **kwargs):
                        yield item
                    return
                if ex.replayed:
                    for item in ex.replayed_result(revive) or []:
                        yield item
                    return
                items: list[Any] = []
                try:
                    agen = ex.live_target(func)(*args, **kwargs)
                    while True:
                        token = ex.enter()
                        try:
                            item = await agen.__anext__()
                        except StopAsyncIteration:
                            break
                        finally:
                            ex.exit(token)
                        items.append(item)
                        yield item
                except GeneratorExit:
                    ex.step.set_metadata({"closed_early": True})
                    ex.succeed(recorded_output(items))
                    raise
                except BaseException as exc:
                    ex.fail(exc)
                    raise
                ex.succeed(recorded_output(items))

            return async_gen_wrapper  # type: ignore[return-value]

        if inspect.isgeneratorfunction(func):

            @functools.wraps(func)
            def gen_wrapper(*args: Any, **kwargs: Any) -> Any:
                ex = begin(args, kwargs)
                if ex is None:
                    return (yield from func(*args, **kwargs))
                if ex.replayed:
                    yield from ex.replayed_result(revive) or []
                    return None
                items: list[Any] = []
                try:
                    gen = ex.live_target(func)(*args, **kwargs)
                    while True:
                        token = ex.enter()
                        try:
                            item = next(gen)
                        except StopIteration as stop:
                            returned = stop.value
                            break
                        finally:
                            ex.exit(token)
                        items.append(item)
                        yield item
                except GeneratorExit:
                    ex.step.set_metadata({"closed_early": True})
                    ex.succeed(recorded_output(items))
                    raise
                except BaseException as exc:
                    ex.fail(exc)
                    raise
                ex.succeed(recorded_output(items))
                return returned

            return gen_wrapper  # type: ignore[return-value]

        if inspect.iscoroutinefunction(func):

            @functools.wraps(func)
            async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
                ex = begin(args, kwargs)
                if ex is None:
                    return await func(*args, **kwargs)
                if ex.replayed:
                    return ex.replayed_result(revive)
                target = ex.live_target(func)
                token = ex.enter()
                try:
                    result = target(*args, **kwargs)
                    if inspect.isawaitable(result):  # a sync mock may stand in for an async step
                        result = await result
                except BaseException as exc:
                    ex.fail(exc)
                    raise
                finally:
                    ex.exit(token)
                ex.succeed(recorded_output(result))
                return result

            return async_wrapper  # type: ignore[return-value]

        @functools.wraps(func)
        def sync_wrapper(*args: Any, **kwargs: Any) -> Any:
            ex = begin(args, kwargs)
            if ex is None:
                return func(*args, **kwargs)
            if ex.replayed:
                return ex.replayed_result(revive)
            target = ex.live_target(func)
            token = ex.enter()
            try:
                result = target(*args, **kwargs)
            except BaseException as exc:
                ex.fail(exc)
                raise
            finally:
                ex.exit(token)
            ex.succeed(recorded_output(result))
            return result

        return sync_wrapper  # type: ignore[return-value]

    if fn is not None:
        if not callable(fn):
            raise TypeError("trace() takes the function to decorate, or keyword options only")
        return decorate(fn)
    return decorate


class StepBlock:
    """What ``with step(...) as s`` gives: annotate the step, set its output."""

    def __init__(self, execution: StepExecution | None) -> None:
        self._ex = execution
        self._output: Any = UNSET

    @property
    def recording(self) -> bool:
        return self._ex is not None

    @property
    def replayed(self) -> bool:
        """True when a replay plan supplies this step's result: skip the work and use ``recorded_output``."""
        return self._ex is not None and self._ex.replayed

    @property
    def recorded_output(self) -> Json:
        if self._ex is None or not self._ex.replayed:
            return None
        decision = self._ex.decision
        return decision.output if decision.kind == "override" else (decision.entry or {}).get("output")

    def set_output(self, value: Any) -> None:
        self._output = value


class step:  # noqa: N801 - used as `with step(...)`, reads like a statement
    """A step around a block of code::

        with step("rerank", type="tool", input=candidates) as s:
            ranked = rerank(candidates)
            s.set_output(ranked)

    The block always runs (Python cannot skip a with-block). In a fork
    experiment's replayed prefix ``s.replayed`` is True and ``s.recorded_output``
    holds the recorded result: skip the work yourself, or prefer ``@trace``,
    which does that for you. A side-effect block in a fork is refused unless
    the plan allows live side effects (a mock cannot stand in for a block).
    """

    def __init__(
        self,
        name: str,
        *,
        type: str = "generic",  # noqa: A002
        input: Any = UNSET,
        metadata: Mapping[str, Any] | None = None,
        side_effect: bool = False,
        model: str | None = None,
    ) -> None:
        _check_type(type, "step")
        self._args = dict(name=str(name), step_type=type, input=input, metadata=metadata, side_effect=side_effect, model=model)
        self._active: list[tuple[StepExecution | None, StepBlock, Any]] = []

    def __enter__(self) -> StepBlock:
        args = self._args
        ex = begin_step(
            args["name"],
            args["step_type"],
            input=args["input"],
            metadata=args["metadata"],
            side_effect=args["side_effect"],
            model=args["model"],
        )
        block = StepBlock(ex)
        token = None
        if ex is not None and not ex.replayed:
            ex.live_target(_no_op, allow_mock=False)  # applies side-effect refusal, instructions and the model check
            token = ex.enter()
        self._active.append((ex, block, token))
        return block

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> bool:
        ex, block, token = self._active.pop()
        if ex is None:
            return False
        if token is not None:
            ex.exit(token)
        if ex.replayed:
            if exc is not None:
                ex.fail(exc)
            else:
                try:
                    ex.replayed_result()
                except Exception:  # noqa: BLE001 - the block already ran; a recorded error is not re-raised here
                    pass
            return False
        if exc is not None:
            ex.fail(exc)
        else:
            ex.succeed(block._output)
        return False

    async def __aenter__(self) -> StepBlock:
        return self.__enter__()

    async def __aexit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> bool:
        return self.__exit__(exc_type, exc, tb)


def _no_op(*_args: Any, **_kwargs: Any) -> None:
    return None


def run_step(
    name: str,
    fn: Callable[[Any], Any],
    *,
    type: str = "generic",  # noqa: A002
    input: Any = UNSET,
    metadata: Mapping[str, Any] | None = None,
    side_effect: bool = False,
    model: str | None = None,
    revive: Callable[[Json], Any] | None = None,
) -> Any:
    """Run ``fn(step_handle)`` now as a step and return what it returns (an
    awaitable when ``fn`` is an ``async def``). Unlike ``with step(...)``, a
    fork experiment's replay skips ``fn`` entirely. A registered mock for a
    side-effect step is called with ``input`` (or no argument)."""
    _check_type(type, "run_step")
    from .handles import current_step

    mock_args: tuple[Any, ...] = () if input is UNSET else (input,)

    def begin() -> StepExecution | None:
        return begin_step(str(name), type, input=input, metadata=metadata, side_effect=side_effect, model=model)

    if inspect.iscoroutinefunction(fn):

        async def run_async() -> Any:
            ex = begin()
            if ex is None:
                return await fn(current_step())
            if ex.replayed:
                return ex.replayed_result(revive)
            target = ex.live_target(lambda *_: fn(current_step()))
            token = ex.enter()
            try:
                result = target(*mock_args)
                if inspect.isawaitable(result):
                    result = await result
            except BaseException as exc:
                ex.fail(exc)
                raise
            finally:
                ex.exit(token)
            ex.succeed(result)
            return result

        return run_async()

    ex = begin()
    if ex is None:
        return fn(current_step())
    if ex.replayed:
        return ex.replayed_result(revive)
    target = ex.live_target(lambda *_: fn(current_step()))
    token = ex.enter()
    try:
        result = target(*mock_args)
    except BaseException as exc:
        ex.fail(exc)
        raise
    finally:
        ex.exit(token)
    ex.succeed(result)
    return result
