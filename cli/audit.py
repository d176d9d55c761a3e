"""``hookport audit verify FILE``: check a decision log's hash chain (`hookport.policy.verify`).

Exit status 0 when every line is whole and chained, 1 naming the first bad line
(changed, removed, inserted, moved, cut short), 2 when the file cannot be read.
"""

from __future__ import annotations

from typing import TextIO

from hookport.policy.verify import verify

EXIT_BROKEN = 1
EXIT_UNREADABLE = 2


def run(path: str, head: str | None, out: TextIO, err: TextIO) -> int:
    if head is not None and len(head) < 8:
        print("hookport audit verify: --head needs at least 8 hex digits of the sha256", file=err)
        return EXIT_UNREADABLE
    try:
        verdict = verify(path, head)
    except OSError as error:
        print(f"hookport audit verify: cannot read {path}: {error.strerror or error}", file=err)
        return EXIT_UNREADABLE
    print(verdict.message(), file=out if verdict.intact else err)
    return 0 if verdict.intact else EXIT_BROKEN
