"""hookport's bootstrap: `hookport run` puts this directory on the child's PYTHONPATH.

Python imports ``sitecustomize`` at start-up, before the program's own code, so
hookport starts here from the HOOKPORT_* variables (hookport.cli.launch), right
after the ``sitecustomize`` this one shadows, if any, has been imported as it
would have been without us.
"""

import importlib
import os
import sys


def _start_hookport() -> None:
    try:
        from hookport.cli.launch import bootstrap
    except ImportError as error:
        print(
            f"hookport: not starting {' '.join(sys.argv) or sys.executable}: hookport cannot be imported by "
            f"{sys.executable} ({error}); run the program with the Python where hookport is installed",
            file=sys.stderr,
        )
        sys.stderr.flush()
        os._exit(2)
    bootstrap()


def _import_shadowed_sitecustomize() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    ours = sys.modules.get("sitecustomize")
    saved = list(sys.path)
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    try:
        del sys.modules["sitecustomize"]
        try:
            importlib.import_module("sitecustomize")
        except ImportError as error:
            if error.name != "sitecustomize":
                raise
    finally:
        sys.path[:] = saved
        if "sitecustomize" not in sys.modules and ours is not None:
            sys.modules["sitecustomize"] = ours


_import_shadowed_sitecustomize()  # first, as it would have run without us (it may set up sys.path)
_start_hookport()
