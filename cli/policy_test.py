"""``hookport policy test POLICY CASES``: run a policy's written cases and print a table.

Exit status 0 when every case decides as it expects, 1 on a mismatch, 2 when the
policy or the cases file cannot be loaded (the message names the file and line),
as ``opa test`` does for Rego. The cases run through the real engine with no
framework (`hookport.policy.cases`).
"""

from __future__ import annotations

from typing import TextIO

from hookport.cli.launch import program_directories_importable
from hookport.policy import PolicyError, load_policy
from hookport.policy.cases import CaseResult, load_cases, run_cases

EXIT_MISMATCH = 1
EXIT_BAD_FILE = 2


def run(policy_path: str, cases_path: str, out: TextIO, err: TextIO) -> int:
    try:
        with program_directories_importable():  # approval hooks import as `hookport run` would
            policy = load_policy(policy_path, register=False)
        cases = load_cases(cases_path)
    except PolicyError as error:
        print(f"hookport policy test: {error}", file=err)
        return EXIT_BAD_FILE
    results = run_cases(policy, cases)
    render(results, out)
    failed = [result for result in results if not result.passed]
    print(f"\n{'FAIL' if failed else 'PASS'}: {len(results) - len(failed)}/{len(results)} cases", file=out)
    return EXIT_MISMATCH if failed else 0


def render(results: list[CaseResult], out: TextIO) -> None:
    rows = [("", "case", "expect", "got", "rule", "reason")]
    for result in results:
        expected = result.case.expect + (f" ({result.case.rule})" if result.case.rule else "")
        rows.append((
            "PASS" if result.passed else "FAIL", result.case.label(result.index), expected, result.got,
            result.rule or "-", result.problem or result.reason or "",
        ))
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    for row in rows:
        print(("  ".join(cell.ljust(width) for cell, width in zip(row[:5], widths)) + f"  {row[5]}").rstrip(), file=out)
    for result in results:
        if not result.passed and result.outcomes:
            reported = ", ".join(f"{o.outcome} by {o.rule}" for o in result.outcomes)
            print(f"  {result.case.label(result.index)}: the rules reported {reported}", file=out)
