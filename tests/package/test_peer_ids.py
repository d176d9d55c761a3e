"""scripts/peer.py's test ids: what the whole run reports is what the "run again alone" step finds.

A small suite of awkward ids (parameters with brackets, spaces, ``::`` and non-ASCII text,
a nested test class, a test function defined in a helper module and collected by two files)
is run once whole and then each id alone, through peer.py's own functions, without hookport.
Before the ids were node ids, some came back "absent" from the alone run (issue #29: a real
difference listed as ``without: absent``), or two tests shared one id.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import peer  # noqa: E402

SUITE_FILES = {
    "tests/__init__.py": "",
    "tests/shared.py": "def test_shared():\n    pass\n",
    "tests/test_a.py": "from tests.shared import test_shared  # noqa: F401\n",
    "tests/test_b.py": "from tests.shared import test_shared  # noqa: F401\n",
    "tests/test_ids.py": '''
import pytest


@pytest.mark.parametrize("value", ["a b", "x::y", "[1]", "caf\\u00e9", "back\\\\slash", 20])
def test_param(value):
    assert value != "[1]"


@pytest.mark.parametrize("value", [pytest.param(1, id="spaced id [x]"), pytest.param(2, id="odd/id")])
def test_named(value):
    assert value == 1


class TestOuter:
    class TestInner:
        def test_nested(self):
            pass

    def test_method(self):
        pytest.skip("skipped on purpose")
''',
}


@pytest.fixture(scope="module")
def whole_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, peer.Suite, dict[str, str]]:
    source = tmp_path_factory.mktemp("peer-ids") / "source"
    for name, text in SUITE_FILES.items():
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_text(text, encoding="utf-8")
    suite = dataclasses.replace(peer.SUITES["openai-agents"], paths=("tests",), ignore=(), pytest_args=())
    report = source.parent / "base.xml"
    peer.run_pytest(source, suite, "base", "none", report)
    return source, suite, peer.outcomes(report)


def test_every_test_has_its_own_node_id(whole_run: tuple[Path, peer.Suite, dict[str, str]]) -> None:
    ids = whole_run[2]
    assert len(ids) == 12
    assert ids["tests/test_a.py::test_shared"] == ids["tests/test_b.py::test_shared"] == "passed"
    assert ids["tests/test_ids.py::TestOuter::TestInner::test_nested"] == "passed"
    assert ids["tests/test_ids.py::test_param[[1]]"] == "failed"
    assert ids["tests/test_ids.py::test_named[spaced id [x]]"] == "passed"
    assert ids["tests/test_ids.py::TestOuter::test_method"] == "skipped"


def test_an_awkward_id_run_alone_is_found_with_its_outcome(whole_run: tuple[Path, peer.Suite, dict[str, str]]) -> None:
    source, suite, ids = whole_run
    reports = source.parent / "reports"
    reports.mkdir(exist_ok=True)
    awkward = ["tests/test_ids.py::test_param[x::y]", "tests/test_ids.py::test_named[spaced id [x]]",
               "tests/test_ids.py::TestOuter::TestInner::test_nested", "tests/test_b.py::test_shared",
               "tests/test_ids.py::test_param[[1]]"]
    alone = {test_id: peer.run_alone(source, suite, "base", "none", reports, test_id) for test_id in awkward}
    assert alone == {test_id: ids[test_id] for test_id in awkward}


def test_an_id_that_does_not_exist_is_absent_not_an_earlier_runs_outcome(
        whole_run: tuple[Path, peer.Suite, dict[str, str]]) -> None:
    source, suite, _ = whole_run
    reports = source.parent / "reports-missing"
    reports.mkdir(exist_ok=True)
    assert peer.run_alone(source, suite, "base", "none", reports, "tests/test_ids.py::test_param[20]") == "passed"
    assert peer.run_alone(source, suite, "base", "none", reports, "tests/test_ids.py::test_param[21]") == "absent"
