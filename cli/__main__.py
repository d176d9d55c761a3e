"""``python -m hookport.cli``: the same as the ``hookport`` command."""

from hookport.cli import main

raise SystemExit(main())
