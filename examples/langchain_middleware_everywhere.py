"""LangChain's prebuilt middleware guarding a framework that is not LangChain.

    python examples/langchain_middleware_everywhere.py

Runs offline: a small "framework" here is a loop around `hookport.calls`, the same
call path every adapter uses, with a scripted model. With `adapters.install("crewai")`
(or "praisonai", "openai-agents", ...) the same three lines guard that framework.
"""

from __future__ import annotations

from langchain.agents.middleware import ModelCallLimitMiddleware, PIIMiddleware

import hookport
from hookport import LLMCallHookContext
from hookport.calls import ResponseShape, model_call
from hookport.compat.langchain import use_middleware

SCRIPT = ["Sure, I will mail bob@example.com", "Second answer", "Third answer"]


def scripted_model(ctx: LLMCallHookContext) -> str:
    print("  model saw:", ctx.messages[-1]["content"])
    return SCRIPT.pop(0)


def main() -> None:
    handle = use_middleware(
        PIIMiddleware("email", strategy="redact", apply_to_input=True, apply_to_output=True),
        ModelCallLimitMiddleware(run_limit=2, exit_behavior="end"),
    )
    with hookport.execution("demo"):
        for question in ("Please write to alice@example.com", "And again?", "Once more?"):
            answer = model_call(LLMCallHookContext([{"role": "user", "content": question}]), scripted_model,
                                ResponseShape())
            print("  answer:", answer)
    handle.remove()


if __name__ == "__main__":
    main()
