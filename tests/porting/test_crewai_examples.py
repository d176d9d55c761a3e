"""CrewAI's published hook examples, ported by their import line, behave as their authors meant."""

from __future__ import annotations

import pytest

from hookport import HookAborted, LLMCallBlockedError, LLMCallHookContext
from hookport.boundary import run_execution
from hookport.calls import ResponseShape, model_call
from tests.conformance.harness import Harness, Turn
from tests.porting.conftest import load

GUARDRAIL = "Ensure responses are factual and cite sources when possible."
LEAKY = "Reach me at 123-45-6789, card 4111 1111 1111 1111, key API_KEY"


class Model:
    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.sent: list[list[dict[str, object]]] = []

    def __call__(self, ctx: LLMCallHookContext) -> str:
        self.sent.append([dict(m) for m in ctx.messages])
        return self.answer


def ask(model: Model, *, iterations: int = 0, agent: str = "Researcher") -> str:
    ctx = LLMCallHookContext([{"role": "user", "content": "Who are you?"}], iterations=iterations, agent_role=agent)
    return model_call(ctx, model, ResponseShape())


def test_llm_call_hooks_on_the_engine() -> None:
    load("crewai_llm_call_hooks")
    model = Model(LEAKY)
    assert ask(model) == "Reach me at [SSN-REDACTED], card [CARD-REDACTED], key [REDACTED]"
    assert model.sent[0][-1] == {"role": "system", "content": GUARDRAIL}
    assert ask(Model(LEAKY), agent="Writer").endswith("key API_KEY")  # sanitize_response is for Researchers only
    with pytest.raises(HookAborted, match="exceeded 15 iterations") as caught:
        ask(model, iterations=16)
    assert caught.value.source == "loop-guard"
    with pytest.raises(LLMCallBlockedError):
        ask(model, iterations=11)  # the legacy hook's `return False`
    assert len(model.sent) == 1  # neither blocked call reached the model


def test_llm_call_hooks_through_the_adapter(framework: Harness) -> None:
    load("crewai_llm_call_hooks")
    result = framework.run([Turn.final(LEAKY)], agent="Researcher")
    result.raise_error()
    assert result.output is not None and "[SSN-REDACTED]" in result.output
    assert "[CARD-REDACTED]" in result.output and "[REDACTED]" in result.output
    assert "123-45-6789" not in result.output and "API_KEY" not in result.output
    assert result.model_inputs and all(GUARDRAIL in str(messages) for messages in result.model_inputs)
    other = framework.run([Turn.final(LEAKY)], agent="Writer")
    other.raise_error()
    assert other.output is not None and "API_KEY" in other.output and "[SSN-REDACTED]" in other.output


def test_the_contract_example_adds_a_default_input() -> None:
    load("crewai_interception_contract")
    assert run_execution("app", lambda inputs: dict(inputs), {"topic": "AI"}) == {"topic": "AI", "locale": "en-US"}
