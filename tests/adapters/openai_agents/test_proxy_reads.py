"""What the SDK reads on its proxied objects every call answers as on the objects themselves.

The body guard and the model proxy answer a few names themselves instead of through the proxy's
lookup (each miss there raises several ``AttributeError``s): these tests pin that the answers are
the body's and the model's, so the SDK's decisions built on them stay what they are without
hookport (each assertion compares the proxy with the object it stands for)."""

from __future__ import annotations

import inspect
import typing
from typing import Any

import pytest

pytest.importorskip("agents")

from agents import FunctionTool, RunContextWrapper, function_tool  # noqa: E402
from agents.models.interface import Model  # noqa: E402
from agents.run_internal.prompt_cache_key import _model_supports_default_prompt_cache_key  # noqa: E402

from hookport.adapters.openai_agents._bodies import BodyGuard  # noqa: E402
from hookport.adapters.openai_agents._models import hooked  # noqa: E402

pytestmark = pytest.mark.usefixtures("openai_agents_adapter")


def _hints(target: Any) -> Any:
    try:
        return typing.get_type_hints(target, include_extras=True)
    except TypeError as error:
        return type(error)


async def _plain_body(ctx: RunContextWrapper[Any], arguments: str) -> str:
    return arguments


def test_a_guarded_decorated_body_answers_its_own_signature_and_hints() -> None:
    @function_tool
    def multiply(a: int, b: int) -> str:
        """Multiply two integers."""
        return str(a * b)

    guard = multiply.on_invoke_tool
    assert isinstance(guard, BodyGuard), "the tool's body is not guarded"
    body = guard.__wrapped__
    assert inspect.signature(guard) == inspect.signature(body)
    assert inspect.signature(guard) == inspect.signature(guard)  # the second read (the kept one) too
    assert _hints(guard) == _hints(body)
    assert getattr(guard, "__no_type_check__", None) == getattr(body, "__no_type_check__", None)


def test_a_guarded_plain_function_body_keeps_its_annotations() -> None:
    tool = FunctionTool(name="echo", description="echo", params_json_schema={"type": "object", "properties": {}},
                        on_invoke_tool=_plain_body)
    guard = tool.on_invoke_tool
    assert isinstance(guard, BodyGuard), "the tool's body is not guarded"
    assert inspect.signature(guard) == inspect.signature(_plain_body)
    assert list(inspect.signature(guard).parameters) == ["ctx", "arguments"]
    assert _hints(guard) == _hints(_plain_body)
    assert guard.__annotations__ == _plain_body.__annotations__


def test_a_signature_set_on_the_guard_is_the_bodys_and_read_live() -> None:
    async def body(ctx: Any, arguments: str) -> str:
        return arguments

    tool = FunctionTool(name="late", description="late", params_json_schema={"type": "object", "properties": {}},
                        on_invoke_tool=body)
    guard = tool.on_invoke_tool
    assert list(inspect.signature(guard).parameters) == ["ctx", "arguments"]
    replaced = inspect.Signature([inspect.Parameter("only", inspect.Parameter.POSITIONAL_OR_KEYWORD)])
    guard.__signature__ = replaced
    assert body.__signature__ is replaced, "the body did not get the signature set on its guard"
    assert inspect.signature(guard) == replaced, "the guard kept the signature it read before"


class _PlainModel(Model):
    async def get_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError


class _CachingModel(_PlainModel):
    def _supports_default_prompt_cache_key(self) -> bool:
        return True


@pytest.mark.parametrize("model_class", [_PlainModel, _CachingModel])
def test_the_model_proxy_answers_what_the_run_loop_reads_as_the_model(model_class: type[Model]) -> None:
    model = model_class()
    proxy = hooked(model)
    assert proxy is not model and proxy.__wrapped__ is model
    assert _model_supports_default_prompt_cache_key(proxy) is _model_supports_default_prompt_cache_key(model)
    assert proxy.get_retry_advice == model.get_retry_advice
    assert proxy._cleanup_on_run_end == model._cleanup_on_run_end
