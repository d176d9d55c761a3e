"""The ``hookport`` command: ``hookport run`` and ``hookport doctor``.

The command line is a layer of its own, above the engine (``hookport`` from core/)
and the adapters (``hookport.adapters``): it may import both, neither imports it.

    hookport run [--adapters a,b] [--hooks mod1,mod2] [--policy file.toml] [--otel] -- python app.py ...
    hookport doctor [--json] [--policy file.toml]
    hookport policy test policy.toml cases.toml
    hookport audit verify decisions.jsonl [--head SHA256]
    hookport approvals list|show ID|approve ID|deny ID [--reason R]|serve [--store URL]
    hookport bootstrap-path      # the directory `hookport run` puts on the child's PYTHONPATH
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hookport", description="hookport command-line tools")
    commands = parser.add_subparsers(dest="command", required=True)

    doctor = commands.add_parser(
        "doctor",
        help="which frameworks are here, and can hookport attach to them",
        description="List the frameworks installed here with their versions, whether each is inside its "
        "adapter's supported range and among the tested versions, and the result of a dry install. "
        "Exit status 1 when an installed framework is out of range or has missing targets.",
    )
    doctor.add_argument("--json", action="store_true", help="print the diagnosis as JSON")
    doctor.add_argument("--policy", help="also check this policy file and list its rules and the tools they name")

    run = commands.add_parser(
        "run",
        help="run an unmodified Python program with adapters, hook modules and a policy in place",
        description="Run PROGRAM (python app.py, python -m module, or a console script) with hookport started "
        "before the program's own code: the adapters installed, the hook modules imported, the policy file "
        "loaded. Exits with the program's exit status; a bad adapter, hook module or policy stops it before "
        "the program starts (status 2). The same settings work without the launcher through the environment "
        "variables HOOKPORT_ADAPTERS, HOOKPORT_HOOKS, HOOKPORT_POLICY and HOOKPORT_OTEL (see docs/cli.md).",
    )
    run.add_argument("--adapters", help="comma-separated adapter names (default: every adapter whose framework is installed)")
    run.add_argument("--hooks", help="comma-separated modules to import, e.g. my_policies,team.guards")
    run.add_argument("--policy", help="a TOML policy file (docs/policy.md)")
    run.add_argument("--otel", action="store_true", help="export each dispatch as an OpenTelemetry span (HOOKPORT_OTEL=1)")
    run.add_argument("--watch", action="store_true",
                     help="reload the policy when its file (or an include) changes (HOOKPORT_POLICY_WATCH=1)")
    run.add_argument("program", nargs=argparse.REMAINDER, help="-- then the command to run")

    add_policy_commands(commands)
    from hookport.cli.approvals import add_parser as add_approvals

    add_approvals(commands)
    commands.add_parser(
        "bootstrap-path",
        help="print the directory to put on PYTHONPATH to start hookport from the environment variables",
    )
    return parser


def add_policy_commands(commands: Any) -> None:
    """``hookport policy test`` and ``hookport audit verify``."""
    policy = commands.add_parser("policy", help="work with policy files").add_subparsers(dest="action", required=True)
    test = policy.add_parser(
        "test", help="run written cases against a policy, without any framework",
        description="Run each [[case]] of CASES (a tool call, its arguments, agent and earlier calls, and the "
        "expected decision) through the policy with the real engine, and print a table. Exit status 1 when a "
        "case decides otherwise, 2 when a file cannot be loaded (the message names the file and line).",
    )
    test.add_argument("policy_file", metavar="POLICY", help="the policy file (TOML)")
    test.add_argument("cases_file", metavar="CASES", help="the cases file (TOML, [[case]] tables)")
    audit = commands.add_parser("audit", help="work with decision logs").add_subparsers(dest="action", required=True)
    verify = audit.add_parser(
        "verify", help="check a decision log's hash chain",
        description="Check that no line of the decision log was changed, removed, inserted, moved or cut short. "
        "Exit status 0 when intact (it prints the head: the last line's sha256), 1 naming the first bad line, "
        "2 when the file cannot be read.",
    )
    verify.add_argument("log_file", metavar="FILE", help="the decision log ([audit] path)")
    verify.add_argument("--head", help="the sha256 (or its first 8+ digits) the last line must have, as a "
                        "previous verify printed it: catches lines cut off the end")


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "doctor":
        from hookport.cli.doctor import run

        return run(sys.stdout, json_output=args.json, policy=args.policy)
    if args.command == "run":
        from hookport.cli.launch import LaunchSettings, launch

        program = list(args.program)
        if program[:1] == ["--"]:
            program = program[1:]
        settings = LaunchSettings.from_options(args.adapters, args.hooks, args.policy, args.otel, args.watch)
        return launch(settings, program)
    if args.command == "policy":
        from hookport.cli.policy_test import run as test

        return test(args.policy_file, args.cases_file, sys.stdout, sys.stderr)
    if args.command == "audit":
        from hookport.cli.audit import run as verify

        return verify(args.log_file, args.head, sys.stdout, sys.stderr)
    if args.command == "approvals":
        from hookport.cli.approvals import run as run_approvals

        return run_approvals(args)
    if args.command == "bootstrap-path":
        from hookport.cli.launch import bootstrap_path

        print(bootstrap_path())
        return 0
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
