"""One run's tool calls fanned out to a process pool: how many really execute?

    python fan_out.py CALLS [pool]

Loads a policy with ``[limits] max_tool_calls = 2`` (fan_out_policy.toml) and the
langchain adapter in code, `propagate()`s them, opens one run, and calls a LangChain
tool ``lookup`` CALLS times, each in a spawned pool process of its own
(`hookport.fleet.in_run` carries the run id). Each call appends a line to
$FAN_OUT_LOG when the tool really runs. With ``HOOKPORT_COUNTERS=redis://...`` the
run counts once across the pool; without it, each process counts on its own. Prints
the tool's answers as one JSON line.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from langchain_core.tools import tool  # noqa: E402


@tool
def lookup(query: str) -> str:
    """Look something up."""
    with open(os.environ["FAN_OUT_LOG"], "a", encoding="utf-8") as log:
        log.write(f"{os.getpid()} {query}\n")
    return f"found {query}"


def call(index: int) -> str:
    return str(lookup.invoke({"query": f"q{index}"}))


def main() -> None:
    import hookport
    from hookport import adapters
    from hookport.fleet import in_run

    adapters.install("langchain")
    hookport.load_policy(Path(__file__).with_name("fan_out_policy.toml"))
    hookport.propagate()
    calls = int(sys.argv[1])
    with hookport.execution("fan-out", run_id="ticket-42"):
        with ProcessPoolExecutor(calls, mp_context=multiprocessing.get_context("spawn"), max_tasks_per_child=1) as pool:
            answers = list(pool.map(in_run(call), range(calls)))
    print(json.dumps({"answers": answers}))


if __name__ == "__main__":
    main()
