"""What Pydantic AI's own capabilities and models see when hookport's model points are in the run
(the framework's behaviour unchanged where no hook asked for a change)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import pytest

from hookport import ExtensionPoint, InterceptionPoint, on, register_hook

pytest.importorskip("pydantic_ai")

from pydantic_ai import Agent  # noqa: E402
from pydantic_ai.capabilities import AbstractCapability  # noqa: E402
from pydantic_ai.exceptions import UserError  # noqa: E402
from pydantic_ai.messages import ModelResponse, TextPart  # noqa: E402
from pydantic_ai.models import Model  # noqa: E402
from pydantic_ai.models.function import FunctionModel  # noqa: E402

P = InterceptionPoint


async def _chunks(messages: Any, info: Any) -> Any:
    yield "from "
    yield "swapped"


def _swapped() -> FunctionModel:
    return FunctionModel(lambda messages, info: ModelResponse(parts=[TextPart("from swapped")]),
                         stream_function=_chunks, model_name="swapped")


@dataclass
class _SwapsTheModel(AbstractCapability[Any]):
    """A capability that serves each request with another model and checks it in ``after_model_request``."""

    model: Model = field(default_factory=_swapped)
    after: list[Any] = field(default_factory=list)

    async def wrap_model_request(self, ctx: Any, *, request_context: Any, handler: Any) -> Any:
        request_context.model = self.model
        return await handler(request_context)

    async def after_model_request(self, ctx: Any, *, request_context: Any, response: Any) -> Any:
        self.after.append(request_context.model)
        return response


def _run(agent: Agent[None, str], streamed: bool) -> str:
    if not streamed:
        return agent.run_sync("go").output

    async def stream() -> str:
        async with agent.run_stream("go") as result:
            return await result.get_output()

    return asyncio.run(stream())


@pytest.mark.parametrize("streamed", [False, True], ids=["run_sync", "run_stream"])
def test_after_model_request_sees_the_model_a_capability_swapped_in(pydantic_ai_adapter: Any,
                                                                     streamed: bool) -> None:
    served: list[Any] = []
    on(P.PRE_MODEL_CALL)(lambda ctx: served.append(ctx.llm))
    swap = _SwapsTheModel()
    agent: Agent[None, str] = Agent(FunctionModel(lambda m, i: ModelResponse(parts=[TextPart("original")]),
                                                  stream_function=_chunks), capabilities=[swap])
    assert _run(agent, streamed) == "from swapped"
    assert served == [swap.model]  # hookport's hooks ran around the model that served the request
    assert swap.after == [swap.model]  # and the capability sees its own model, not hookport's wrapper


class _RequestOnlyModel(Model):
    """A model with no ``request_stream`` of its own."""

    @property
    def model_name(self) -> str:
        return "request-only"

    @property
    def system(self) -> str:
        return "test"

    async def request(self, messages: Any, model_settings: Any, model_request_parameters: Any) -> ModelResponse:
        return ModelResponse(parts=[TextPart("ok")])


def _refuses_before_the_request() -> bool:
    """Whether this Pydantic AI checks a streamed step's model before requesting (later 2.x releases:
    a ``UserError``); earlier ones (1.107, 2.0) call the model, whose base ``request_stream`` raises
    ``NotImplementedError``."""
    from pydantic_ai import _agent_graph

    return hasattr(_agent_graph, "_ensure_model_supports_streaming")


def _raised_in_pydantic_ai(error: BaseException) -> bool:
    """The innermost frame of `error`'s traceback is Pydantic AI's own code, not hookport's."""
    tb = error.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    filename = tb.tb_frame.f_code.co_filename.replace("\\", "/") if tb is not None else ""
    return "/pydantic_ai/" in filename and "/hookport/" not in filename and "/adapters/" not in filename


@pytest.mark.parametrize("wrap", [False, True], ids=["pre", "pre+wrap"])
def test_a_model_that_cannot_stream_fails_with_pydantic_ais_own_error(pydantic_ai_adapter: Any, wrap: bool) -> None:
    """Streaming a request-only model fails with Pydantic AI's own error, with hooks as without: a
    ``UserError`` before any request where Pydantic AI checks first, else the base model's
    ``NotImplementedError`` once the request is made (PRE has run then); never an error from behind
    hookport's model wrapper."""
    refused_first = _refuses_before_the_request()
    expected: type[Exception] = UserError if refused_first else NotImplementedError
    with pytest.raises(expected) as bare:
        _run(Agent(_RequestOnlyModel()), streamed=True)
    pre: list[Any] = []
    on(P.PRE_MODEL_CALL)(pre.append)
    if wrap:
        async def passthrough(ctx: Any, call_next: Any) -> Any:
            return await call_next(ctx)

        register_hook(ExtensionPoint.WRAP_MODEL_CALL, passthrough)
    with pytest.raises(expected) as hooked:
        _run(Agent(_RequestOnlyModel()), streamed=True)
    assert str(hooked.value) == str(bare.value) and "_RequestOnlyModel" in str(bare.value)
    assert _raised_in_pydantic_ai(hooked.value), hooked.traceback[-1]
    assert len(pre) == (0 if refused_first else 1)
    assert _run(Agent(_RequestOnlyModel()), streamed=False) == "ok"
    assert len(pre) == (1 if refused_first else 2)
