"""The ``hookport`` command: ``hookport doctor``."""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="hookport", description="hookport command-line tools")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("doctor", help="which frameworks are here, and can hookport attach to them")
    args = parser.parse_args(argv)
    if args.command == "doctor":
        from hookport.doctor import run

        return run(sys.stdout)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
