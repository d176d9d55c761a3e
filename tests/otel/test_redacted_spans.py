"""hookport's own spans never carry a value a ``[[redact]]`` rule redacts.

A real LangChain agent puts a card number into send_email's arguments. A user hook
that fails quoting them (fail-open) and an approver that fails quoting them both put
the number into texts hookport exports: the failed hook's error and the refusal's
reason. The twin without the redact rule shows the number really gets there.
"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("langchain_core")

from hookport import InterceptionPoint, register_hook  # noqa: E402
from hookport.policy import parse_policy  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402

from tests.policy.agents import Toolbox, ask, build_agent, call, langchain_installed, told  # noqa: E402,F401

CARD = "4111 1111 1111 1111"
APPROVAL = '[[approval]]\nhook = "tests.policy.approvals:choke_on_the_body"\ntools = ["send_email"]\n'
REDACT = "[[redact]]\npattern = '\\b\\d(?:[ -]?\\d){12,15}\\b'\nreplacement = \"[CARD]\"\n"


def quote_the_arguments(ctx: Any) -> None:
    raise RuntimeError(f"audit log is down, lost {ctx.tool_input}")


def texts(spans: InMemorySpanExporter) -> str:
    from hookport import otel

    otel.flush()
    found = []
    for span in spans.get_finished_spans():
        found.append(str(span.status.description))
        for attributes in (span.attributes or {}, *(event.attributes or {} for event in span.events)):
            for value in attributes.values():
                found.extend(value if isinstance(value, (list, tuple)) else [value])
    return "\n".join(str(v) for v in found)


def run(spans: InMemorySpanExporter, policy: str) -> tuple[Toolbox, str, str]:
    register_hook(InterceptionPoint.PRE_TOOL_CALL, quote_the_arguments)
    parse_policy(policy, "policy.toml").register()
    box = Toolbox()
    state = build_agent(box, call("send_email", to="a@example.com", body=f"card {CARD} please")).invoke(ask())
    return box, told(state, "send_email"), texts(spans)


@pytest.mark.usefixtures("langchain_installed")
def test_without_a_redact_rule_the_number_reaches_the_spans(spans: InMemorySpanExporter) -> None:
    box, message, exported = run(spans, APPROVAL)
    assert box.ran["send_email"] == 0
    assert CARD in exported and "audit log is down" in exported and "choke_on_the_body failed" in exported


@pytest.mark.usefixtures("langchain_installed")
def test_with_the_rule_no_span_and_no_refusal_carries_it(spans: InMemorySpanExporter) -> None:
    box, message, exported = run(spans, APPROVAL + REDACT)
    assert box.ran["send_email"] == 0
    assert "audit log is down" in exported and "choke_on_the_body failed" in exported  # the texts are there,
    assert CARD not in exported and "[CARD]" in exported  # redacted
    assert CARD not in message and "[CARD]" in message  # the refusal the model reads, too
