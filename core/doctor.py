"""``hookport doctor``: the frameworks found here, their versions, and a dry install."""

from __future__ import annotations

from typing import TextIO

from hookport import adapters
from hookport.adapters._versions import installed_version


def run(out: TextIO) -> int:
    """Print one block per known adapter; exit 1 when an installed framework has missing targets."""
    status = 0
    for name in sorted(adapters.available()):
        try:
            cls = adapters.adapter_class(name)
        except Exception as error:  # a broken third-party plugin must not hide the others
            print(f"{name}: cannot load the adapter ({error})", file=out)
            status = 1
            continue
        version = installed_version(cls.distribution)
        if version is None:
            print(f"{name}: {cls.distribution} not installed (pip install 'hookport[{cls.extra}]')", file=out)
            continue
        report = cls().dry_run()
        verdict = "inside" if report.in_supported_range else "OUTSIDE"
        print(f"{name}: {cls.distribution} {version}, {verdict} the supported range {cls.supported}", file=out)
        tested = ", ".join(cls.test_versions) or "none declared"
        print(f"  tested versions: {tested}", file=out)
        print(f"  targets found: {len(report.patched)}", file=out)
        for target in report.missing:
            print(f"  MISSING: {target}", file=out)
            status = 1
        for target in report.skipped:
            print(f"  skipped (optional, not installed): {target}", file=out)
        if report.not_offered:
            print(f"  points not offered: {', '.join(report.not_offered)}", file=out)
    return status
