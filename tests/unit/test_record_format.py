"""The explorer's record (explain/record_format.py): a Report written and read back is the same
Report, whatever dataclasses and fields it holds; what the reader cannot know is refused."""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from thunder_docs.explain import record_format
from thunder_docs.explain.record_format import RecordError, dumps, from_data, loads, read_record, to_data, write_record
from thunder_docs.explain.report import Block, Compilation, Executed, Function, Graph, Part, Report
from thunder_docs.shared.trace_map import Line, Name, Step, Trace, TraceMap, Walk


def _report() -> Report:
    """A report with every dataclass and kind of field the explorer's has: tuples, dicts, None, defaults."""
    trace = Trace(3, "computation", ("AUGMENTED_FORWARD",), {"t0": "cpu f32[3]", "a": "cpu f32[3]"}, ("a",))
    lines = (Line(1, 0, "signature"),
             Line(2, 0, "op", "torch.sin", "torch", "f.py:2", 0, ("t0",), ("a",), (Name(2, 4, "t0", True),), 0),
             Line(3, 0, "source", source="f.py:2", col=2))
    walk = Walk((Step("", "def computation(a):\n  t0 = sin(a)", lines, trace),
                 Step("Dead Code Elimination", "# DCE\ndef computation(a):", (), Trace(-1))))
    block = Block("the computation trace", "def computation(a):\n  t0 = sin(a)\n  # f.py:2", TraceMap((trace,), lines, (walk,)),
                  stepper=True)
    executed = {"computation": [Executed("t0", "torch.sin", "torch"),
                                Executed("t1", "fusion", "nvfuser", ("sin", "cos"), ("sdpa: no implementation",))]}
    compilation = Compilation([block, Block("the prologue", "def prologue():", TraceMap())],
                              [("computation", "Dead Code Elimination", 0), ("computation", "Grad transform pass", None)],
                              executed)
    graph = Graph(0, 12, [Part("thunder_0", "Thunder"), Part("inductor_1", "fallback")], [("GraphBreak", "print", "")])
    return Report("train.py", [Function("f", 2, 1, 1, [compilation])], [graph], {"f.py": "def f(a):\n    return a.sin()\n"})


def test_a_report_reads_back_equal_with_its_tuples_tuples():
    report = _report()
    back = loads(dumps(report))
    assert back == report
    line = back.functions[0].compilations[0].blocks[0].trace_map.lines[1]
    assert isinstance(line.names, tuple) and isinstance(line.names[0], Name) and line.defines == ("t0",)
    assert back.functions[0].compilations[0].passes[1] == ("computation", "Grad transform pass", None)
    assert isinstance(back.functions[0].compilations[0].passes[1], tuple)


def test_a_record_is_gzip_json_of_a_known_format_and_the_same_report_gives_the_same_bytes(tmp_path):
    data = dumps(_report())
    assert data == dumps(_report())
    record = json.loads(gzip.decompress(data))
    assert (record["format"], record["version"]) == ("thunder-explain-record", record_format.VERSION)
    assert "stepper" not in record["report"]["functions"][0]["compilations"][0]["blocks"][1]  # at its default
    write_record(_report(), tmp_path / "run" / "train.record.json.gz")
    assert read_record(tmp_path / "run" / "train.record.json.gz") == _report()
    assert [p.name for p in (tmp_path / "run").iterdir()] == ["train.record.json.gz"]  # no temporary left


def _rewrite(data: bytes, change) -> bytes:
    record = json.loads(gzip.decompress(data))
    change(record)
    return gzip.compress(json.dumps(record).encode())


def test_a_record_of_a_newer_format_version_is_refused_naming_both_versions():
    newer = _rewrite(dumps(_report()), lambda r: r.update(version=record_format.VERSION + 1))
    with pytest.raises(RecordError) as refused:
        loads(newer, "old.json.gz")
    message = str(refused.value)
    assert message.startswith("old.json.gz: ")
    assert f"version {record_format.VERSION + 1}" in message and f"(version {record_format.VERSION})" in message


@pytest.mark.parametrize(("data", "says"), [
    (b"<html></html>", "not gzip-compressed JSON"),
    (gzip.compress(b"{\"report\": {}}", mtime=0), "no \"format\""),
    (gzip.compress(b"{\"format\": \"thunder-explain-record\", \"version\": \"1\"}", mtime=0), "not a version number"),
])
def test_what_is_no_record_is_refused(data, says):
    with pytest.raises(RecordError, match=says):
        loads(data)


def test_a_field_the_reader_has_no_place_for_or_a_missing_required_one_is_refused():
    def add(record):
        record["report"]["functions"][0]["colour"] = "red"

    with pytest.raises(RecordError, match=r"report.functions\[0\]: Function has no field colour"):
        loads(_rewrite(dumps(_report()), add))

    def drop(record):
        del record["report"]["functions"][0]["title"]

    with pytest.raises(RecordError, match=r"report.functions\[0\]: Function's field title is missing"):
        loads(_rewrite(dumps(_report()), drop))


def test_a_value_a_record_cannot_hold_is_an_error_naming_where_it_is():
    report = _report()
    report.sources = {"f.py": Path("f.py")}  # type: ignore[dict-item]
    with pytest.raises(TypeError, match=r"report.sources\['f.py'\]: a record cannot hold a PosixPath"):
        dumps(report)


# Fields added later, anywhere under the report: the code reads the dataclasses, not a list of fields.
@dataclass
class Later:
    name: str
    sizes: tuple[int, ...] = ()
    ratio: float | None = None


@dataclass
class Holder:
    items: list[Later]
    by_name: dict[str, Later] = field(default_factory=dict)
    note: str = "none"  # a field added with a default: a record written before it reads


def test_any_dataclass_tree_round_trips_and_a_field_added_with_a_default_reads_from_an_older_record():
    value = Holder([Later("a", (1, 2), 0.5), Later("b")], {"c": Later("c", ratio=2.0)}, "set")
    assert from_data(Holder, to_data(value, "holder"), "holder") == value
    older = to_data(Holder([Later("a")]), "holder")
    assert "note" not in older and "by_name" not in older
    assert from_data(Holder, older, "holder") == Holder([Later("a")])
    with pytest.raises(RecordError, match=r"holder.items\[0\].sizes\[0\]: 'x' is not a int"):
        from_data(Holder, {"items": [{"name": "a", "sizes": ["x"]}]}, "holder")
