"""Tests for rouge_tui.importers.inspect_ai: Inspect AI logs read where they are.

Every log here is written by hand from inspect_ai's own source (``log/_recorders/eval.py``,
``chunked/format.py``, ``json.py``, ``log/_log.py``): deflate members through the standard
zipfile, zstd members (method 93) through a zip writer below that sets each header field
itself, so the reader is never checked against its own way of reading a zip. (The importer
was also run by hand on logs inspect_ai 0.3.285 wrote: .eval in zstd, .json, and chunked by
its own converter; none of them is copied here.)
"""

from __future__ import annotations

import json
import os
import struct
import sys
import zipfile
import zlib
from functools import partial
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from suite_helpers import error_of, within

from rouge_tui.errors import SuiteError
from rouge_tui.importers import get, recognise
from rouge_tui.importers.base import ImportedSuite
from rouge_tui.suite.toml import SuiteSettings

if sys.version_info >= (3, 14):
    from compression import zstd
else:
    from backports import zstd

IMPORTER = get("inspect")
ZSTD = 93


# --------------------------------------------------------------------------- writing logs


def header(task: str = "summarise", model: str = "openai/gpt-4o", created: str = "2026-11-20T14:03:12+00:00",
           epochs: int = 1) -> dict:
    """A finished log's header.json: the EvalLog less its samples."""
    return {
        "version": 2,
        "status": "success",
        "eval": {
            "eval_id": "Ab3", "run_id": "Rz9", "created": created, "task": task, "task_version": 0,
            "dataset": {"name": "incidents", "samples": 2}, "model": model,
            "config": {"epochs": epochs}, "packages": {"inspect_ai": "0.3.210"},
        },
        "plan": {"name": "plan", "steps": [{"solver": "generate", "params": {}}]},
        "results": {"total_samples": 2, "completed_samples": 2, "scores": []},
        "stats": {"started_at": created, "completed_at": created, "model_usage": {}},
    }


def sample(id: int | str, target: str | list[str], completion: str | None, epoch: int = 1,
           metadata: dict | None = None, content: object = None) -> dict:
    """An EvalSample as inspect_ai dumps it; ``completion`` None: a log before 0.3.154,
    whose output has only its choices (``content`` the first message's content)."""
    output: dict = {
        "model": "gpt-4o",
        "choices": [{
            "message": {"role": "assistant", "content": completion if content is None else content,
                        "source": "generate"},
            "stop_reason": "stop",
        }],
        "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15},
    }
    if completion is not None:
        output["completion"] = completion
    return {
        "id": id, "epoch": epoch, "input": f"Summarise incident {id}.", "target": target,
        "messages": [{"role": "user", "content": f"Summarise incident {id}.", "source": "input"}],
        "output": output,
        "scores": {"rouge": {"value": float("nan")}},
        "metadata": metadata or {},
        "store": {}, "events": [], "model_usage": {}, "attachments": {},
    }


def dumps(value: object) -> bytes:
    return json.dumps(value, indent=2).encode()  # NaN written as inspect_ai writes it


def zstd_zip(members: list[tuple[str, bytes]] | list[tuple[str, bytes, dict]]) -> bytes:
    """A zip whose members are zstd (method 93) unless a member says otherwise: local
    headers, central directory and end record written field by field (APPNOTE 4.3)."""
    body = b""
    central = b""
    for member in members:
        name, data = member[0], member[1]
        given = member[2] if len(member) > 2 else {}  # type: ignore[misc]
        method = given.get("method", ZSTD)
        packed = given.get("packed", zstd.compress(data) if method == ZSTD else data)
        crc = given.get("crc", zlib.crc32(data))
        size = given.get("size", len(data))
        encoded = name.encode()
        offset = len(body)
        body += struct.pack("<IHHHHHIIIHH", 0x04034B50, 63, 0, method, 0, 0x5B21, crc, len(packed),
                            size, len(encoded), 0) + encoded + packed
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 63, 63, 0, method, 0, 0x5B21, crc,
                               len(packed), size, len(encoded), 0, 0, 0, 0, 0, offset) + encoded
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(members), len(members), len(central), len(body), 0)
    return body + central + end


def eval_log(path: Path, samples: list[dict], head: dict | None = None, deflate: bool = False) -> Path:
    """A finished .eval log: header.json and one monolith member per sample and epoch."""
    members = [("_journal/start.json", dumps({"version": 2, "eval": (head or header())["eval"], "plan": {}}))]
    members += [(f"samples/{s['id']}_epoch_{s['epoch']}.json", dumps(s)) for s in samples]
    members += [("header.json", dumps(head or header()))]
    if deflate:
        with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=5) as archive:
            for name, data in members:
                archive.writestr(name, data)
    else:
        path.write_bytes(zstd_zip(members))
    return path


def open_one(path: Path, settings: SuiteSettings | None = None) -> ImportedSuite:
    layouts = IMPORTER.open(path, settings or SuiteSettings())
    assert len(layouts) == 1
    return layouts[0]


def outputs(layout: ImportedSuite, index: int = -1) -> list[dict[str, str]]:
    return [run.outputs for run in layout.read_build(layout.builds[index])]


TWO = [sample(1, "The disk filled at 02:14.", "Disk full at 02:14."),
       sample(2, ["Rolled back.", "The deploy was rolled back."], "We rolled back the deploy.")]


# --------------------------------------------------------------------------- shapes


@pytest.mark.parametrize("deflate", [False, True], ids=["zstd", "deflate"])
def test_an_eval_log_zstd_or_deflate_is_one_build(tmp_path: Path, deflate: bool) -> None:
    log = eval_log(tmp_path / "2026-11-20T14-03-12+00-00_summarise_Ab3.eval", TWO, deflate=deflate)
    methods = {info.compress_type for info in zipfile.ZipFile(log).infolist()}
    assert methods == ({zipfile.ZIP_DEFLATED} if deflate else {ZSTD})
    assert IMPORTER.recognise(log) and IMPORTER.recognise(tmp_path)
    assert recognise(tmp_path) == recognise(log) == ["inspect"]  # no other format claims it
    layout = open_one(tmp_path)
    assert layout.format == "inspect" and layout.name == "summarise"
    [build] = layout.builds
    assert build.name == "gpt-4o 2026-11-20T14:03"
    assert build.created == "2026-11-20T14:03:12+00:00" and build.path == log and build.problem is None
    references = layout.read_references()
    assert references.texts == {
        "1": ("The disk filled at 02:14.",),
        "2": ("Rolled back.", "The deploy was rolled back."),
    }
    assert references.sources == {}
    [run] = layout.read_build(build)
    assert run.outputs == {"1": "Disk full at 02:14.", "2": "We rolled back the deploy."}
    assert run.path == log


def test_a_chunked_sample_and_its_metadata_give_the_source(tmp_path: Path) -> None:
    shell = sample("inc-7", "Power cut.", "A power cut.")
    metadata = shell.pop("metadata") | {"document": "At 09:00 the power was cut."}
    for key in ("messages", "events", "attachments"):
        shell.pop(key)
    prefix = "samples/inc-7_epoch_1/"
    members = [
        ("header.json", dumps(header())),
        (prefix + "sample.json", dumps(shell | {"message_refs": [[0, 1]]})),
        (prefix + "metadata.json", dumps(metadata)),
        (prefix + "skeleton.json", b"{}"),
        (prefix + "messages/0.json", b"[]"),
        (prefix + "events/0.json", b"[]"),
        (prefix + "attachments/0.json", b"[]"),
        ("samples/8_epoch_1.json", dumps(sample(8, "Fan failed.", "The fan failed.",
                                                metadata={"document": "The fan stopped."}))),
    ]
    (tmp_path / "chunked.eval").write_bytes(zstd_zip(members))
    settings = SuiteSettings(fields_given={"source": "metadata.document"})
    layout = open_one(tmp_path, settings)
    references = layout.read_references()
    assert references.texts == {"8": ("Fan failed.",), "inc-7": ("Power cut.",)}
    assert references.sources == {"inc-7": "At 09:00 the power was cut.", "8": "The fan stopped."}
    assert outputs(layout) == [{"8": "The fan failed.", "inc-7": "A power cut."}]
    # Without a source asked for, metadata.json is not needed and nothing is a source.
    assert open_one(tmp_path).read_references().sources == {}


def test_a_null_or_blank_source_is_no_source(tmp_path: Path) -> None:
    """A null source was "must be a string, not null", where a native suite reads it as no
    source; a blank one was a source there and none after `rouge-tui import` (a review)."""
    samples = [sample(1, "Disk full.", "Full.", metadata={"document": None}),
               sample(2, "Rolled back.", "Back.", metadata={"document": "  "}),
               sample(3, "Fan failed.", "Fan.", metadata={"document": "The fan stopped."})]
    eval_log(tmp_path / "a.eval", samples)
    settings = SuiteSettings(fields_given={"source": "metadata.document"})
    assert open_one(tmp_path, settings).read_references().sources == {"3": "The fan stopped."}


def test_a_log_before_completion_takes_the_first_choices_text_parts(tmp_path: Path) -> None:
    parts = [
        {"type": "reasoning", "reasoning": "Think about the disk."},
        {"type": "text", "text": "Disk full."},
        {"type": "image", "image": "data:image/png;base64,AAAA"},
        {"type": "text", "text": "Cleared at 02:20."},
    ]
    old = [
        sample(1, "Disk full.", None, content=parts),
        sample(2, "Rolled back.", None, content="Rolled it back."),
        sample(3, "Timed out.", None) | {"output": {"model": "gpt-4", "choices": []}},  # an error
    ]
    eval_log(tmp_path / "old.eval", old, deflate=True)
    assert all("completion" not in s["output"] for s in old)
    assert outputs(open_one(tmp_path)) == [
        {"1": "Disk full.\nCleared at 02:20.", "2": "Rolled it back.", "3": ""}
    ]


def test_two_epochs_are_two_replicate_runs(tmp_path: Path) -> None:
    epochs = [sample(i, f"Reference {i}.", f"Epoch {e} says {i}.", epoch=e) for e in (2, 1) for i in (2, 1)]
    eval_log(tmp_path / "epochs.eval", epochs, head=header(epochs=2))
    layout = open_one(tmp_path)
    [build] = layout.builds
    assert len(build.run_files) == 2
    assert layout.read_references().texts == {"1": ("Reference 1.",), "2": ("Reference 2.",)}
    assert outputs(layout) == [
        {"1": "Epoch 1 says 1.", "2": "Epoch 1 says 2."},
        {"1": "Epoch 2 says 1.", "2": "Epoch 2 says 2."},
    ]
    first, second = layout.read_build(build)
    assert first.digest != second.digest  # two runs of one file never share a cache entry


def test_references_read_only_each_ids_lowest_epoch(tmp_path: Path) -> None:
    members = [("header.json", dumps(header(epochs=2))),
               ("samples/1_epoch_1.json", dumps(sample(1, "Disk full.", "One."))),
               ("samples/1_epoch_2.json", b"not json")]
    log = tmp_path / "half.eval"
    log.write_bytes(zstd_zip(members))
    layout = open_one(log)
    assert layout.read_references().texts == {"1": ("Disk full.",)}
    assert str(error_of(layout.read_build, layout.builds[0])).startswith(
        f"{log}:samples/1_epoch_2.json: invalid JSON"
    )


def test_a_json_log_with_two_epochs(tmp_path: Path) -> None:
    epochs = [sample(i, f"Reference {i}.", f"Epoch {e} says {i}.", epoch=e) for e in (1, 2) for i in (1, 2)]
    log = tmp_path / "epochs.json"
    log.write_bytes(dumps(header(epochs=2) | {"samples": epochs}))
    layout = open_one(log)
    assert layout.read_references().texts == {"1": ("Reference 1.",), "2": ("Reference 2.",)}
    assert outputs(layout) == [
        {"1": "Epoch 1 says 1.", "2": "Epoch 1 says 2."},
        {"1": "Epoch 2 says 1.", "2": "Epoch 2 says 2."},
    ]


def test_a_json_log_is_the_whole_evallog(tmp_path: Path) -> None:
    log = tmp_path / "2026-11-21T09-00-00+00-00_summarise_Xy1.json"
    whole = header(model="anthropic/claude-3-5-sonnet-latest", created="2026-11-21T09:00:00Z")
    log.write_bytes(dumps(whole | {"samples": TWO}))
    (tmp_path / "listing.json").write_text('{"logs": ["a.eval"]}')  # inspect's own, no log
    (tmp_path / "results_2026.json").write_text('{"results": {"eval": 1}, "versions": {}}')
    assert IMPORTER.recognise(log) and IMPORTER.recognise(tmp_path)
    assert recognise(log) == ["inspect"]
    assert not IMPORTER.recognise(tmp_path / "listing.json")
    layout = open_one(tmp_path)
    [build] = layout.builds
    assert build.name == "claude-3-5-…nnet-latest 2026-11-21T09:00"  # 11 + … + 11 of 24
    assert layout.read_references().texts["2"] == ("Rolled back.", "The deploy was rolled back.")
    assert outputs(layout) == [{"1": "Disk full at 02:14.", "2": "We rolled back the deploy."}]


def test_a_json_log_whose_eval_runs_past_the_first_bytes_is_still_named(tmp_path: Path) -> None:
    whole = header(task="long", created="2026-11-22T08:30:00+00:00")
    whole["eval"]["task_args"] = {"prompt": "x" * 200_000}  # past the 64 KiB looked at first
    (tmp_path / "long.json").write_bytes(dumps(whole | {"samples": TWO}))
    layout = open_one(tmp_path)
    assert layout.name == "long" and layout.builds[0].name == "gpt-4o 2026-11-22T08:30"


def test_a_folder_of_two_tasks_is_two_suites_in_history_order(tmp_path: Path) -> None:
    # 10:00 at UTC-5 is 15:00 UTC: after 14:00 UTC though its text sorts first.
    eval_log(tmp_path / "a.eval", TWO, header(created="2026-11-20T10:00:00-05:00"))
    eval_log(tmp_path / "b.eval", TWO, header(created="2026-11-20T14:00:00+00:00", model="openai/gpt-4o-mini"))
    eval_log(tmp_path / "c.eval", TWO, header(task="classify", created="2026-11-20T14:00:30+00:00",
                                             model="openai/gpt-4o-mini"))
    summarise, classify = sorted(IMPORTER.open(tmp_path, SuiteSettings()), key=lambda s: s.name, reverse=True)
    assert (summarise.name, classify.name) == ("summarise", "classify")
    assert [b.name for b in summarise.builds] == ["gpt-4o-mini 2026-11-20T14:00", "gpt-4o 2026-11-20T15:00"]
    assert [b.path.name for b in summarise.builds] == ["b.eval", "a.eval"]
    assert [b.path.name for b in classify.builds] == ["c.eval"]
    # Names are told apart within a suite: another task's log in the same minute is no reason.
    assert [b.name for b in classify.builds] == ["gpt-4o-mini 2026-11-20T14:00"]
    # suite.toml's name names a folder's one suite, not each of several.
    assert open_one(tmp_path / "a.eval", SuiteSettings(name="Incidents")).name == "Incidents"


def test_builds_in_one_minute_are_told_apart(tmp_path: Path) -> None:
    for name, created in (("x.eval", "2026-11-20T14:03:12+00:00"), ("y.eval", "2026-11-20T14:03:40+00:00"),
                          ("z.eval", "2026-11-20T14:03:40+00:00")):
        eval_log(tmp_path / name, TWO, header(created=created))
    names = [build.name for build in open_one(tmp_path).builds]
    assert names == ["gpt-4o 2026-11-20T14:03:12", "gpt-4o 2026-11-20T14:03:40 #1",
                     "gpt-4o 2026-11-20T14:03:40 #2"]


def test_a_log_still_running_is_read_from_its_journal(tmp_path: Path) -> None:
    start = {"version": 2, "eval": header(created="2026-11-23T07:00:00+00:00")["eval"], "plan": {}}
    members = [("_journal/start.json", dumps(start)),
               ("_journal/summaries/1.json", b"[]"),
               ("samples/1_epoch_1.json", dumps(TWO[0]))]
    log = tmp_path / "running.eval"
    log.write_bytes(zstd_zip(members))
    assert IMPORTER.recognise(log)
    layout = open_one(log)
    assert layout.builds[0].name == "gpt-4o 2026-11-23T07:00"
    assert outputs(layout) == [{"1": "Disk full at 02:14."}]


def test_a_sample_run_again_is_its_last_member(tmp_path: Path) -> None:
    log = tmp_path / "requeued.eval"
    members = [("header.json", dumps(header())),
               ("samples/1_epoch_1.json", dumps(sample(1, "Disk full.", "First try."))),
               ("samples/1_epoch_1.json", dumps(sample(1, "Disk full.", "Second try.")))]
    log.write_bytes(zstd_zip(members))
    assert outputs(open_one(log)) == [{"1": "Second try."}]


def test_a_member_in_several_zstd_frames_is_read_whole(tmp_path: Path) -> None:
    data = dumps(sample(1, "Disk full.", "Disk " + "very " * 5000 + "full."))
    half = len(data) // 2
    frames = zstd.compress(data[:half]) + zstd.compress(data[half:])  # as inspect_ai cuts big ones
    members = [("header.json", dumps(header())), ("samples/1_epoch_1.json", data, {"packed": frames})]
    (tmp_path / "frames.eval").write_bytes(zstd_zip(members))
    assert outputs(open_one(tmp_path)) == [{"1": "Disk " + "very " * 5000 + "full."}]


def test_ids_keep_their_type_as_text_and_fields_can_be_named(tmp_path: Path) -> None:
    samples = [sample(7, "Seven.", "7 out", metadata={"answer": "seven", "doc": "d7"}),
               sample("07", "Oh seven.", "07 out", metadata={"answer": "oh seven"})]
    eval_log(tmp_path / "ids.eval", samples)
    layout = open_one(tmp_path, SuiteSettings(fields_given={"reference": "metadata.answer",
                                                            "output": "metadata.doc", "source": "metadata.doc"}))
    references = layout.read_references()
    assert references.texts == {"7": ("seven",), "07": ("oh seven",)}
    assert references.sources == {"7": "d7"}
    assert str(error_of(layout.read_build, layout.builds[0])) == (
        f"{tmp_path}/ids.eval:samples/07_epoch_1.json: missing field 'metadata.doc'"
    )


def test_outputs_are_in_id_order_whatever_the_ids(tmp_path: Path) -> None:
    huge = "1" + "0" * 5000  # past what int() takes from text
    ids: list[int | str] = ["a", "\u00b2", huge, 10, 2]
    eval_log(tmp_path / "ids.eval", [sample(i, "x", f"out {i}"[:20]) for i in ids])
    [run] = open_one(tmp_path).read_build(open_one(tmp_path).builds[0])
    assert list(run.outputs) == ["2", "10", huge, "a", "\u00b2"]


def test_the_newest_log_of_one_epoch_is_read_once_for_references_and_outputs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rouge_tui.importers import inspect_log

    reads: list[str] = []
    real = inspect_log.read_member

    def counted(archive, raw, info, path):  # type: ignore[no-untyped-def]
        reads.append(f"{path.name}:{info.filename}")
        return real(archive, raw, info, path)

    monkeypatch.setattr(inspect_log, "read_member", counted)
    eval_log(tmp_path / "a.eval", TWO, header(created="2026-11-19T00:00:00+00:00"))
    eval_log(tmp_path / "b.eval", TWO)
    layout = open_one(tmp_path)
    reads.clear()
    layout.read_references()
    baseline, candidate = (layout.read_build(build) for build in layout.builds)
    assert baseline[0].outputs == candidate[0].outputs == {"1": "Disk full at 02:14.", "2": "We rolled back the deploy."}
    samples = ["samples/1_epoch_1.json", "samples/2_epoch_1.json"]
    assert reads == [f"b.eval:{name}" for name in samples] + [f"a.eval:{name}" for name in samples]
    # Read again, or after the file changed, it is read afresh.
    reads.clear()
    assert outputs(layout) == [candidate[0].outputs] and len(reads) == 2
    eval_log(tmp_path / "b.eval", [sample(1, "x", "Changed."), TWO[1]])
    layout.read_references()
    layout.read_build(layout.builds[0])
    assert outputs(layout) == [{"1": "Changed.", "2": "We rolled back the deploy."}]


def test_references_come_from_the_newest_log_whose_samples_read(tmp_path: Path) -> None:
    eval_log(tmp_path / "old.eval", TWO, header(created="2026-11-19T00:00:00+00:00"))
    untargeted = sample(2, "x", "A newer output.")
    del untargeted["target"]
    new = eval_log(tmp_path / "new.eval", [TWO[0], untargeted])
    layout = open_one(tmp_path)
    assert [b.path for b in layout.builds] == [tmp_path / "old.eval", new]
    assert layout.read_references().texts["2"] == ("Rolled back.", "The deploy was rolled back.")
    assert outputs(layout, 0) == [{"1": "Disk full at 02:14.", "2": "We rolled back the deploy."}]  # the older log
    # The newest log, used, is its error: its outputs read, but its target did not (a
    # newcomer's report compared it against the older log's targets, without a word).
    assert str(error_of(layout.read_build, layout.builds[-1])) == f"{new}:samples/2_epoch_1.json: missing field 'target'"
    (tmp_path / "old.eval").unlink()
    assert str(error_of(open_one(tmp_path).read_references)) == (
        f"{new}:samples/2_epoch_1.json: missing field 'target'"
    )


def test_an_output_error_of_the_newest_log_waits_for_its_build(tmp_path: Path) -> None:
    log = eval_log(tmp_path / "bad.eval", [TWO[0], sample(2, "Rolled back.", None, content=7)])
    layout = open_one(log)
    assert layout.read_references().texts["2"] == ("Rolled back.",)
    assert str(error_of(layout.read_build, layout.builds[0])) == (
        f"{log}:samples/2_epoch_1.json: 'output.choices.0.message.content' must be a string or a list of "
        "parts, not number"
    )


# --------------------------------------------------------------------------- what is no log


def test_what_is_not_an_inspect_log_is_not_recognised(tmp_path: Path) -> None:
    native = tmp_path / "native"
    (native / "builds").mkdir(parents=True)
    (native / "references.jsonl").write_text('{"id": "1", "reference": "r"}\n')
    plain = tmp_path / "plain.eval"
    with zipfile.ZipFile(plain, "w") as archive:
        archive.writestr("data.json", "{}")
    not_zip = tmp_path / "text.eval"
    not_zip.write_text("hello")
    array = tmp_path / "array.json"
    array.write_text('[{"eval": 1, "version": 2}]')
    for path in (native, plain, not_zip, array, tmp_path / "missing.eval"):
        assert not IMPORTER.recognise(path), path
    for path, message in ((tmp_path / "missing.eval", "no such file or folder"),
                          (array, "not an Inspect log (a .eval zip or a .json EvalLog)"),
                          (native, "no Inspect logs in this folder (.eval or .json)")):
        assert str(error_of(IMPORTER.open, path, SuiteSettings())) == f"{path}: {message}"
    fifo = tmp_path / "fifos" / "pipe.eval"
    fifo.parent.mkdir()
    os.mkfifo(fifo)  # nobody writes: an open() that blocks would hang
    assert within(5, IMPORTER.recognise, fifo.parent) is False


def test_a_broken_log_is_a_build_that_fails_only_when_read(tmp_path: Path) -> None:
    eval_log(tmp_path / "good.eval", TWO)
    (tmp_path / "cut.eval").write_bytes(b"PK\x03\x04 cut short")
    no_date = header()
    del no_date["eval"]["created"]
    eval_log(tmp_path / "undated.eval", TWO, head=no_date)
    layout = open_one(tmp_path)
    # Dateless, the broken go last: either may be the newest (`base.history_order`).
    assert [b.name for b in layout.builds] == ["gpt-4o 2026-11-20T14:03", "cut.eval", "undated.eval"]
    good, cut, undated = layout.builds
    assert good.problem is None and cut.created == undated.created == ""
    assert str(error_of(layout.read_build, cut)).startswith(f"{tmp_path}/cut.eval: not a zip file")
    assert str(error_of(layout.read_build, undated)) == (
        f"{tmp_path}/undated.eval:header.json: missing field 'eval.created'"
    )
    assert outputs(layout, 0) == [{"1": "Disk full at 02:14.", "2": "We rolled back the deploy."}]
    assert layout.read_references().texts["1"] == ("The disk filled at 02:14.",)


# --------------------------------------------------------------------------- malformed samples


def test_a_sample_member_that_is_not_json(tmp_path: Path) -> None:
    members = [("header.json", dumps(header())), ("samples/1_epoch_1.json", b'{"id": 1, "target": ')]
    log = tmp_path / "bad.eval"
    log.write_bytes(zstd_zip(members))
    layout = open_one(log)
    message = f"{log}:samples/1_epoch_1.json: invalid JSON: Expecting value (line 1, column 21)"
    assert str(error_of(layout.read_build, layout.builds[0])) == message
    assert str(error_of(layout.read_references)) == message


def test_a_sample_member_nested_too_deeply_or_with_a_huge_number(tmp_path: Path) -> None:
    member = "samples/1_epoch_1.json"
    cases = {
        b"[" * 100_000 + b"]" * 100_000: "invalid JSON: nested too deeply",
        b'{"id": 1' + b"0" * 5000 + b"}": "invalid JSON: Exceeds the limit (4300 digits)",
    }
    for data, message in cases.items():
        log = tmp_path / "bad.eval"
        log.write_bytes(zstd_zip([("header.json", dumps(header())), (member, data)]))
        assert str(error_of(open_one(log).read_references)).startswith(f"{log}:{member}: {message}")


def test_a_sample_without_target(tmp_path: Path) -> None:
    untargeted = sample(2, "x", "An output.")
    del untargeted["target"]
    log = eval_log(tmp_path / "bad.eval", [TWO[0], untargeted])
    layout = open_one(log)
    assert str(error_of(layout.read_references)) == f"{log}:samples/2_epoch_1.json: missing field 'target'"


@pytest.mark.parametrize(("field", "value", "message"), [
    ("target", 3, "'target' must be a string or an array of strings, not number"),
    ("target", ["a", None], "'target' must be a string or an array of strings, not array"),
    ("target", [], "'target' must be a string or an array of strings, not array"),
    ("id", 1.5, "'id' must be a string or an integer, not number"),
    ("epoch", "1", "'epoch' must be a whole number, not string"),
])
def test_a_sample_field_of_the_wrong_type(tmp_path: Path, field: str, value: object, message: str) -> None:
    bad = sample(1, "x", "y") | {field: value}
    log = eval_log(tmp_path / "bad.eval", [bad], deflate=True)
    member = f"samples/{bad['id']}_epoch_{bad['epoch']}.json"
    assert str(error_of(open_one(log).read_references)) == f"{log}:{member}: {message}"


def test_old_outputs_of_the_wrong_shape_name_their_field(tmp_path: Path) -> None:
    content = "output.choices.0.message.content"
    bad = {
        f"'{content}.0.text' must be a string, not number": [{"type": "text", "text": 5}],
        f"'{content}' must be a string or a list of parts, not number": 7,
    }
    for index, (message, value) in enumerate(bad.items()):
        log = eval_log(tmp_path / f"bad{index}.eval", [sample(1, "x", None, content=value)])
        layout = open_one(log)
        error = str(error_of(layout.read_build, layout.builds[0]))
        assert error == f"{log}:samples/1_epoch_1.json: {message}"


def test_a_json_log_sample_is_named_by_its_place(tmp_path: Path) -> None:
    log = tmp_path / "bad.json"
    log.write_bytes(dumps(header() | {"samples": [TWO[0], sample(2, "x", "y") | {"target": {}}]}))
    assert str(error_of(open_one(log).read_references)) == (
        f"{log}:samples.1: 'target' must be a string or an array of strings, not object"
    )


def test_an_id_with_control_characters_is_named_on_one_line(tmp_path: Path) -> None:
    hostile = sample("a\nb\x1b[31m", "x", "y")
    del hostile["target"]
    log = eval_log(tmp_path / "hostile.eval", [hostile])
    error = error_of(open_one(log).read_references)  # one line, no escape byte: error_of checks
    assert error.line == "samples/a\nb\x1b[31m_epoch_1.json" and error.message == "missing field 'target'"


def test_a_zstd_bomb_is_refused(tmp_path: Path) -> None:
    flood = b"\n" * (80 << 20)  # 80 MiB of one byte, a few KiB packed
    packed = zstd.compress(flood)
    assert len(packed) * 200 < len(flood)
    member = "samples/1_epoch_1.json"
    for name, size in (("honest.eval", len(flood)), ("lying.eval", 100)):
        members = [("header.json", dumps(header())), (member, flood, {"packed": packed, "size": size})]
        log = tmp_path / name
        log.write_bytes(zstd_zip(members))
        layout = open_one(log)
        assert str(error_of(layout.read_build, layout.builds[0])) == (
            f"{log}:{member}: decompresses to over 200 times its size (a zip bomb?)"
        )
        log.unlink()


def test_many_small_members_of_a_few_packed_bytes_are_a_bomb_together(tmp_path: Path) -> None:
    # Each member is 1 MiB from a few hundred bytes (under the 64 MiB any member may take);
    # 80 of them are 80 MiB from a file of some 30 KiB: over 200 times its size.
    members = [("header.json", dumps(header()))]
    members += [(f"samples/{i}_epoch_1.json", dumps(sample(i, "x", " " * (1 << 20)))) for i in range(80)]
    log = tmp_path / "many.eval"
    log.write_bytes(zstd_zip(members))
    assert log.stat().st_size * 200 < 80 << 20
    layout = open_one(log)
    assert str(error_of(layout.read_build, layout.builds[0])) == (
        f"{log}: its members decompress to over 200 times its size (a zip bomb?)"
    )


def test_a_damaged_member_is_named(tmp_path: Path) -> None:
    data = dumps(sample(1, "x", "y"))
    cases = {
        "crc.eval": {"crc": 1},
        "frame.eval": {"packed": zstd.compress(data)[:-6]},
        "method.eval": {"method": 12, "packed": b"BZh9"},
    }
    for name, fields in cases.items():
        log = tmp_path / name
        log.write_bytes(zstd_zip([("header.json", dumps(header())), ("samples/1_epoch_1.json", data, fields)]))
        layout = open_one(log)
        error = error_of(layout.read_build, layout.builds[0])
        assert isinstance(error, SuiteError) and error.line == "samples/1_epoch_1.json", name
        assert str(error).startswith(f"{log}:samples/1_epoch_1.json: "), name
    assert str(error_of(open_one(tmp_path / "method.eval").read_references)).endswith(
        ": compression method 12 (Inspect writes deflate or zstd)"
    )


# --------------------------------------------------------------------------- anything at all

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
FIELDS = st.sampled_from(["output.choices.0.message.content", "output.choices", "output", "output.completion",
                          "target", "id", "epoch", "metadata"])


def read_all(path: Path) -> None:
    """Everything a caller asks of a log; a SuiteError is the one allowed failure."""
    for layout in IMPORTER.open(path, SuiteSettings(fields_given={"source": "metadata.doc"})):
        for read in [layout.read_references] + [partial(layout.read_build, b) for b in layout.builds]:
            try:
                read()
            except SuiteError as exc:
                assert "\n" not in str(exc) and str(exc).startswith(str(path))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(field=FIELDS, value=st.lists(JSON, min_size=1, max_size=3) | JSON, noise=st.binary(max_size=64))
def test_any_sample_or_bytes_is_read_or_one_line(tmp_path: Path, field: str, value: object, noise: bytes) -> None:
    old = field.startswith("output.choices")  # a log before output.completion
    good = sample(1, "Disk full.", None if old else "Disk full.", metadata={"doc": "The disk."},
                  content="Disk full.")
    spot = good
    *parents, last = field.split(".")
    for part in parents:
        spot = spot[int(part)] if part.isdigit() else spot[part]
    spot[last] = value  # type: ignore[index]
    log = tmp_path / "any.eval"
    log.write_bytes(zstd_zip([("header.json", dumps(header())), ("samples/1_epoch_1.json", dumps(good)),
                              ("samples/2_epoch_1.json", noise)]))
    read_all(log)
    log.write_bytes(noise + zstd_zip([("header.json", dumps(header()))])[len(noise):])
    read_all(tmp_path)
