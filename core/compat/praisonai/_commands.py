"""Shell-command hooks as PraisonAI runs them, without a shell.

The event's input goes to the program as JSON on stdin; the exit code and a
JSON object on stdout decide (PraisonAI's rules, `parse_command_output`); past
its timeout the program is killed and the hook denies. The program is started
with an argument list (``shell=False``): event data only ever reaches it as
stdin, environment or whole arguments, never as shell syntax.
"""

from __future__ import annotations

import asyncio
import json
import os
from dataclasses import dataclass
from time import perf_counter
from typing import Optional

from hookport.compat.praisonai._events import HookEvent
from hookport.compat.praisonai._inputs import HookInput
from hookport.compat.praisonai._types import CommandHook, HookResult, command_argv

__all__ = ["CommandOutcome", "parse_command_output", "run_command"]

EXIT_CODE_SUCCESS = 0
EXIT_CODE_BLOCKING_ERROR = 2


@dataclass
class CommandOutcome:
    verdict: HookResult
    stdout: Optional[str] = None
    stderr: Optional[str] = None
    exit_code: Optional[int] = None
    duration_ms: float = 0.0
    error: Optional[str] = None


async def run_command(hook: CommandHook, event: HookEvent, data: HookInput, *, cwd: Optional[str] = None,
                      timeout: Optional[float] = None) -> CommandOutcome:
    """Run `hook`'s program for `event`; every failure is a deny, as in PraisonAI 1.7."""
    started = perf_counter()
    project_dir = cwd or os.getcwd()
    limit = timeout if timeout is not None else (float(hook.timeout) if hook.timeout else 60.0)
    env = {**os.environ, **hook.env, "PRAISON_PROJECT_DIR": project_dir, "PRAISON_EVENT": event.value}
    try:
        argv = command_argv(hook.command, project_dir=project_dir, cwd=data.cwd or project_dir)
        process = await asyncio.create_subprocess_exec(
            *argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, env=env, cwd=project_dir,
        )
    except Exception as error:
        return CommandOutcome(HookResult.deny(f"Hook '{hook.name}' raised: {error}"), error=str(error),
                              duration_ms=_since(started))
    payload = json.dumps(data.to_dict(), default=str).encode()
    try:
        stdout, stderr = await asyncio.wait_for(process.communicate(payload), limit)
    except asyncio.TimeoutError:
        process.kill()
        await process.wait()
        reason = f"Hook '{hook.name}' timed out after {limit:g}s"
        return CommandOutcome(HookResult.deny(reason), error=reason, duration_ms=_since(started))
    out = stdout.decode(errors="replace") if stdout else ""
    err = stderr.decode(errors="replace") if stderr else ""
    code = process.returncode if process.returncode is not None else -1
    return CommandOutcome(parse_command_output(out, err, code), out, err, code, _since(started))


def _since(started: float) -> float:
    return (perf_counter() - started) * 1000.0


def parse_command_output(stdout: str, stderr: str, exit_code: int) -> HookResult:
    """PraisonAI's rules: JSON stdout decides (but "allow" with an unexpected exit code
    denies); otherwise exit 0 allows (stdout becomes additional context), exit 2 denies
    with stderr, any other code denies."""
    expected_exit = exit_code in (EXIT_CODE_SUCCESS, EXIT_CODE_BLOCKING_ERROR)
    text = stdout.strip()
    if text:
        try:
            data = json.loads(text)
            if isinstance(data, str):
                data = json.loads(data)
        except json.JSONDecodeError:
            data = None
        if isinstance(data, dict):
            decision = data.get("decision", "allow")
            if decision == "allow" and not expected_exit:
                return HookResult.deny(f"Hook exited with unexpected code {exit_code} after emitting an allow "
                                       f"decision: {stderr.strip() or 'no stderr'}")
            return HookResult(decision=decision, reason=data.get("reason"),
                              modified_input=data.get("modified_input"),
                              additional_context=data.get("additional_context"),
                              suppress_output=data.get("suppress_output", False))
    if exit_code == EXIT_CODE_SUCCESS:
        return HookResult(decision="allow", additional_context=text or None)
    if exit_code == EXIT_CODE_BLOCKING_ERROR:
        return HookResult.deny(stderr.strip() or text or "Blocked by hook")
    return HookResult.deny(f"Hook exited with unexpected code {exit_code}: {stderr.strip() or text or 'no output'}")
