"""The ``hookport`` command: ``hookport doctor``."""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
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
    args = parser.parse_args(argv)
    if args.command == "doctor":
        from hookport.doctor import run

        return run(sys.stdout, json_output=args.json)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
