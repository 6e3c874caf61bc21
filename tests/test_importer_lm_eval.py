"""lm-evaluation-harness ``--log_samples`` output read as suites (rouge_tui.importers.lm_eval).

The fixtures are written here by hand from the harness's own source (lm_eval/evaluator.py,
the ``example`` dict logged per doc and filter; loggers/evaluation_tracker.py, the file names
and ``str(target)``; utils.py, ``sanitize_model_name``), never copied from its files."""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from suite_helpers import error_of, within

from rouge_tui import importers
from rouge_tui.errors import SuiteError
from rouge_tui.importers.base import ImportedBuild, ImportedSuite
from rouge_tui.importers.lm_eval import IMPORTER
from rouge_tui.suite.toml import SuiteSettings

# A run's date as the harness names its files: datetime.now().isoformat() with ":" made "-".
MONDAY = "2026-11-16T09-30-05.120044"
FRIDAY = "2026-11-20T10-02-33.500000"


def sample(doc_id: object, target: str, response: object, filter_name: str = "none", **more: object) -> dict:
    """One logged line as evaluator.py builds it (resps and filtered_resps one entry per
    request; a generate_until task makes one request per doc)."""
    return {
        "doc_id": doc_id,
        "doc": {"article": f"The article of doc {doc_id}.", "highlights": target},
        "target": target,
        "arguments": {"gen_args_0": {"arg_0": f"Summarise doc {doc_id}.", "arg_1": {"until": ["\n\n"]}}},
        "resps": [[response]],
        "filtered_resps": [response],
        "filter": filter_name,
        "metrics": ["rougeL"],
        "doc_hash": "d" * 64,
        "prompt_hash": "p" * 64,
        "target_hash": "t" * 64,
        **more,
    }


def write_run(folder: Path, date: str, tasks: dict[str, list[dict]]) -> dict[str, Path]:
    """One run of the harness into ``folder``: results_<date>.json and a samples file per task."""
    folder.mkdir(parents=True, exist_ok=True)
    results = {"results": {task: {"alias": task} for task in tasks}, "model_name": folder.name}
    (folder / f"results_{date}.json").write_text(json.dumps(results, indent=2), encoding="utf-8")
    written = {}
    for task, lines in tasks.items():
        path = folder / f"samples_{task}_{date}.jsonl"
        path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
        written[task] = path
    return written


def open_one(path: Path, **given: str) -> ImportedSuite:
    layouts = IMPORTER.open(path, SuiteSettings(fields_given=given))
    assert len(layouts) == 1
    return layouts[0]


def outputs(layout: ImportedSuite, build: ImportedBuild) -> dict[str, str]:
    runs = layout.read_build(build)
    assert len(runs) == 1
    return runs[0].outputs


# --------------------------------------------------------------------------- recognising


def test_recognises_an_output_folder_and_a_model_folder_by_their_file_names(tmp_path: Path) -> None:
    write_run(tmp_path / "out" / "EleutherAI__pythia-160m", FRIDAY, {"xsum": [sample(0, "a", "b")]})
    assert IMPORTER.recognise(tmp_path / "out")
    assert IMPORTER.recognise(tmp_path / "out" / "EleutherAI__pythia-160m")
    assert importers.get("lm-eval") is IMPORTER
    # samples with no results file of the same run beside them: not the harness's layout
    lone = tmp_path / "lone"
    lone.mkdir()
    (lone / f"samples_xsum_{FRIDAY}.jsonl").write_text(json.dumps(sample(0, "a", "b")) + "\n")
    (lone / f"results_{MONDAY}.json").write_text("{}")
    assert not IMPORTER.recognise(lone)
    # a native suite, a file, nothing at all
    native = tmp_path / "native"
    (native / "builds").mkdir(parents=True)
    (native / "references.jsonl").write_text('{"id": 1, "reference": "a"}\n')
    (native / "builds" / "1.jsonl").write_text('{"id": 1, "output": "a"}\n')
    assert not IMPORTER.recognise(native)
    assert not IMPORTER.recognise(native / "references.jsonl")
    assert not IMPORTER.recognise(tmp_path / "absent")


def test_output_path_given_as_a_json_file_and_gzipped_samples(tmp_path: Path) -> None:
    # --output_path evals/nightly.json: the results are evals/nightly_<date>.json, the samples
    # beside them (evaluation_tracker.py); a samples file gzipped afterwards reads the same
    folder = tmp_path / "evals"
    folder.mkdir()
    (folder / f"nightly_{FRIDAY}.json").write_text("{}")
    line = json.dumps(sample(0, "the target", "the output")) + "\n"
    (folder / f"samples_xsum_{FRIDAY}.jsonl.gz").write_bytes(gzip.compress(line.encode()))
    assert IMPORTER.recognise(folder)
    layout = open_one(folder)
    assert [b.name for b in layout.builds] == ["evals 2026-11-20T10:02"]
    assert outputs(layout, layout.builds[0]) == {"0": "the output"}
    assert layout.read_references().texts == {"0": ("the target",)}


def test_a_folder_with_no_run_is_one_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(SuiteError) as caught:
        IMPORTER.open(tmp_path, SuiteSettings())
    assert str(caught.value).startswith(f"{tmp_path}: no lm-evaluation-harness samples_")


# --------------------------------------------------------------------------- listing


def test_two_models_two_dates_are_builds_in_date_order_one_suite_per_task(tmp_path: Path) -> None:
    out = tmp_path / "out"
    lines = [sample(0, "the cat sat", "a cat sat")]
    # model_dir is the model argument with "/" made "__" (sanitize_model_name)
    write_run(out / "meta-llama__Llama-3.1-8B-Instruct", FRIDAY, {"xsum": lines, "cnn_dailymail": lines})
    write_run(out / "meta-llama__Llama-3.1-8B-Instruct", MONDAY, {"xsum": lines})
    write_run(out / "mistralai__Mistral-7B-v0.3", MONDAY, {"xsum": lines})
    write_run(out / "mistralai__Mistral-7B-v0.3", FRIDAY, {"xsum": lines})
    layouts = IMPORTER.open(out, SuiteSettings(name="ignored: two tasks are two suites"))
    assert [layout.name for layout in layouts] == ["cnn_dailymail", "xsum"]
    xsum = layouts[1]
    assert xsum.format == "lm-eval"
    assert [(b.name, b.created) for b in xsum.builds] == [
        ("Llama-3.1-8B-Instruct 2026-11-16T09:30", "2026-11-16T09:30:05.120044"),
        ("Mistral-7B-v0.3 2026-11-16T09:30", "2026-11-16T09:30:05.120044"),
        ("Llama-3.1-8B-Instruct 2026-11-20T10:02", "2026-11-20T10:02:33.500000"),
        ("Mistral-7B-v0.3 2026-11-20T10:02", "2026-11-20T10:02:33.500000"),
    ]
    assert all(len(f"{a.name} vs {b.name}") <= 80 for a in xsum.builds for b in xsum.builds)
    friday = xsum.builds[3]
    assert friday.run_files == (out / "mistralai__Mistral-7B-v0.3" / f"samples_xsum_{FRIDAY}.jsonl",)
    assert [b.name for b in layouts[0].builds] == ["Llama-3.1-8B-Instruct 2026-11-20T10:02"]


def test_names_grow_only_where_they_would_collide(tmp_path: Path) -> None:
    out = tmp_path / "out"
    lines = [sample(0, "the cat sat", "a cat sat")]
    # two organisations' models of one name; one model run twice in a minute
    write_run(out / "org-a__tiny", "2026-11-20T10-02-01", {"t": lines})
    write_run(out / "org-a__tiny", "2026-11-20T10-02-59.25", {"t": lines})
    write_run(out / "org-b__tiny", "2026-11-20T10-02-01", {"t": lines})
    # a long name is cut in its middle, keeping the size and the version
    write_run(out / "mistralai__Mistral-7B-Instruct-v0.3", "2026-11-20T10-02-01", {"t": lines})
    (layout,) = IMPORTER.open(out, SuiteSettings())
    assert [b.name for b in layout.builds] == [
        "Mistral-7B-…struct-v0.3 2026-11-20T10:02",
        "org-a__tiny 2026-11-20T10:02:01",
        "org-b__tiny 2026-11-20T10:02",
        "org-a__tiny 2026-11-20T10:02:59",
    ]
    assert max(len(b.name) for b in layout.builds) == 40


def test_one_model_folder_opened_alone_names_its_runs_by_it(tmp_path: Path) -> None:
    folder = tmp_path / "__models__checkpoint-1200"  # pretrained=/models/checkpoint-1200
    write_run(folder, FRIDAY, {"xsum": [sample(0, "a", "b")]})
    write_run(folder, MONDAY, {"xsum": [sample(0, "a", "c")]})
    layout = IMPORTER.open(folder, SuiteSettings(name="Nightly summaries"))[0]
    assert layout.name == "Nightly summaries"
    assert [b.name for b in layout.builds] == ["checkpoint-1200 2026-11-16T09:30", "checkpoint-1200 2026-11-20T10:02"]
    assert [outputs(layout, b) for b in layout.builds] == [{"0": "c"}, {"0": "b"}]


def test_listing_reads_no_samples_file_and_a_fifo_is_named_when_its_run_is_read(tmp_path: Path) -> None:
    folder = tmp_path / "m"
    write_run(folder, FRIDAY, {"xsum": [sample(0, "a", "x")]})
    (folder / f"results_{MONDAY}.json").write_text("{}")
    fifo = folder / f"samples_xsum_{MONDAY}.jsonl"
    os.mkfifo(fifo)  # opening it for reading would wait for a writer
    layouts = within(10, IMPORTER.open, folder, SuiteSettings())
    assert isinstance(layouts, list)
    (layout,) = layouts
    assert [b.path for b in layout.builds] == [fifo, folder / f"samples_xsum_{FRIDAY}.jsonl"]
    assert outputs(layout, layout.builds[1]) == {"0": "x"}
    caught = within(10, layout.read_build, layout.builds[0])
    assert isinstance(caught, SuiteError)
    assert str(caught) == f"{fifo}: not a regular file (a FIFO)"


# --------------------------------------------------------------------------- the traps


def test_a_task_with_two_filters_gives_each_doc_and_filter_its_id(tmp_path: Path) -> None:
    # evaluator.py writes every doc under the first filter, then every doc under the next
    lines = [
        sample(0, "42", "so the answer is 42", "strict-match"),
        sample(1, "7", "it is 7", "strict-match"),
        sample(0, "42", "42", "flexible-extract"),
        sample(1, "7", "7", "flexible-extract"),
    ]
    folder = tmp_path / "m"
    write_run(folder, FRIDAY, {"gsm8k": lines})
    layout = open_one(folder)
    assert outputs(layout, layout.builds[0]) == {
        "0|strict-match": "so the answer is 42", "1|strict-match": "it is 7",
        "0|flexible-extract": "42", "1|flexible-extract": "7",
    }
    references = layout.read_references()
    assert references.texts == {
        "0|strict-match": ("42",), "1|strict-match": ("7",), "0|flexible-extract": ("42",), "1|flexible-extract": ("7",),
    }
    # one filter: the doc_id alone
    write_run(tmp_path / "one", FRIDAY, {"gsm8k": lines[:2]})
    one = open_one(tmp_path / "one")
    assert outputs(one, one.builds[0]) == {"0": "so the answer is 42", "1": "it is 7"}


def test_a_target_written_as_a_python_list_is_several_references(tmp_path: Path) -> None:
    # save_results_samples writes str(target): a list of references becomes its repr
    lines = [
        sample(0, str(["The cat sat.", "A cat was sitting."]), "x"),
        sample(1, "(\"It's raining\", 'it rains')", "x"),  # str() of a tuple, a quote in an item
        sample(2, "[Music] The song starts.", "x"),  # brackets, but no list of strings
        sample(3, "[1, 2]", "x"),
        sample(4, "plain text, one reference", "x"),
        # A task whose answers are JSON text: str() of a list never writes these, so each is
        # the one text it is (read as a list, an output equal to it scored 0)
        sample(5, '["Paris", "Lyon"]', "x"),
        sample(6, "['Paris','Lyon']", "x"),
        sample(7, "['one', 'two'", "x"),  # cut short: text, not an error
    ]
    write_run(tmp_path / "m", FRIDAY, {"xsum": lines})
    references = open_one(tmp_path / "m").read_references()
    assert references.texts == {
        "0": ("The cat sat.", "A cat was sitting."),
        "1": ("It's raining", "it rains"),
        "2": ("[Music] The song starts.",),
        "3": ("[1, 2]",),
        "4": ("plain text, one reference",),
        "5": ('["Paris", "Lyon"]',),
        "6": ("['Paris','Lyon']",),
        "7": ("['one', 'two'",),
    }
    assert references.sources == {}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.lists(st.text(max_size=12), min_size=1, max_size=3), min_size=1, max_size=4),
       st.lists(st.text(max_size=12), max_size=3))
def test_any_list_of_strings_the_harness_writes_reads_back_and_other_text_is_itself(
    tmp_path_factory: pytest.TempPathFactory, lists: list[list[str]], texts: list[str],
) -> None:
    # the oracle is Python's own str(), which save_results_samples applies to the target
    folder = tmp_path_factory.mktemp("m")
    plain = [text for text in texts if not text.lstrip().startswith(("[", "("))]
    targets = [str(item) for item in lists] + [str(tuple(item)) for item in lists] + plain
    write_run(folder, FRIDAY, {"t": [sample(n, target, "x") for n, target in enumerate(targets)]})
    expected = [tuple(item) for item in lists] * 2 + [(text,) for text in plain]
    assert open_one(folder).read_references().texts == {str(n): refs for n, refs in enumerate(expected)}


def test_filtered_resps_one_list_deeper_gives_its_first_response(tmp_path: Path) -> None:
    nested = sample(0, "a", "unused")
    nested["filtered_resps"] = [["first answer", "second answer"]]  # a filter keeping every repeat
    write_run(tmp_path / "m", FRIDAY, {"xsum": [nested, sample(1, "b", "flat answer")]})
    layout = open_one(tmp_path / "m")
    assert outputs(layout, layout.builds[0]) == {"0": "first answer", "1": "flat answer"}


def test_suite_toml_fields_name_the_source_output_and_references(tmp_path: Path) -> None:
    lines = [sample(0, "the target", "filtered"), sample(1, "another", "filtered")]
    lines[0]["resps"] = [["raw zero"]]
    lines[1]["resps"] = [["raw one"]]
    lines[1]["doc"]["highlights"] = ["first highlight", "second highlight"]
    write_run(tmp_path / "m", FRIDAY, {"xsum": lines})
    layout = open_one(tmp_path / "m", source="doc.article", output="resps.0.0", reference="doc.highlights")
    references = layout.read_references()
    assert references.sources == {"0": "The article of doc 0.", "1": "The article of doc 1."}
    assert references.texts == {"0": ("the target",), "1": ("first highlight", "second highlight")}
    assert outputs(layout, layout.builds[0]) == {"0": "raw zero", "1": "raw one"}
    # the fields are part of what the cache keys on: other fields, other digests
    plain = open_one(tmp_path / "m")
    assert plain.read_references().digest != references.digest
    assert plain.read_build(plain.builds[0])[0].digest != layout.read_build(layout.builds[0])[0].digest


def test_a_null_blank_or_missing_source_is_no_source(tmp_path: Path) -> None:
    """README: a harness's null or blank source is none, as in a native references file; a
    null one was an error ("'doc.article' must be a string, not null"), a missing one too."""
    lines = [sample(0, "a", "x"), sample(1, "b", "y"), sample(2, "c", "z"), sample(3, "d", "w")]
    lines[1]["doc"]["article"] = None
    lines[2]["doc"].pop("article")
    lines[3]["doc"]["article"] = " \n"
    write_run(tmp_path / "m", FRIDAY, {"xsum": lines})
    layout = open_one(tmp_path / "m", source="doc.article")
    assert layout.read_references().sources == {"0": "The article of doc 0."}
    assert outputs(layout, layout.builds[0]) == {"0": "x", "1": "y", "2": "z", "3": "w"}
    lines[1]["doc"]["article"] = 7  # a value that is no text is still refused, naming it
    path = write_run(tmp_path / "n", FRIDAY, {"xsum": lines})["xsum"]
    assert str(error_of(open_one(tmp_path / "n", source="doc.article").read_references)) == (
        f"{path}:2: 'doc.article' must be a string, not number")


def test_a_field_path_with_an_empty_part_is_one_error_when_opened(tmp_path: Path) -> None:
    write_run(tmp_path / "m", FRIDAY, {"xsum": [sample(0, "a", "x")]})
    with pytest.raises(SuiteError) as caught:
        IMPORTER.open(tmp_path / "m", SuiteSettings(fields_given={"output": "filtered_resps..0"}))
    assert str(caught.value) == f"{tmp_path / 'm'}: fields.output: empty part in the field path 'filtered_resps..0'"


def test_references_come_from_the_newest_run(tmp_path: Path) -> None:
    write_run(tmp_path / "m", MONDAY, {"xsum": [sample(0, "old target", "x")]})
    write_run(tmp_path / "m", FRIDAY, {"xsum": [sample(0, "new target", "x"), sample(1, "added", "y")]})
    assert open_one(tmp_path / "m").read_references().texts == {"0": ("new target",), "1": ("added",)}


def test_stored_rouge_is_lm_evals_own_number_never_a_corpus_pair(tmp_path: Path) -> None:
    lines = [
        sample(0, "a", "x", rougeL=0.25),
        sample(1, "b", "y", rougeL=1),
        sample(2, "c", "z", rougeL=["c", "z"]),  # a corpus-level metric: (reference, prediction)
        sample(3, "d", "w"),
    ]
    write_run(tmp_path / "m", FRIDAY, {"xsum": lines})
    layout = open_one(tmp_path / "m")
    assert layout.stored is not None
    assert layout.stored(layout.builds[0]) == {"0": 0.25, "1": 1.0}


def test_nan_and_infinity_that_the_harness_writes_are_read_not_refused(tmp_path: Path) -> None:
    # json.dumps writes a float that is not finite as NaN / Infinity: a failed metric, a doc's
    # missing number
    lines = [sample(0, "a", "x", rougeL=float("nan")), sample(1, "b", "y", rougeL=0.5)]
    lines[0]["doc"]["rating"] = float("-inf")
    path = write_run(tmp_path / "m", FRIDAY, {"xsum": lines})["xsum"]
    assert '"rougeL": NaN' in path.read_text() and "-Infinity" in path.read_text()
    layout = open_one(tmp_path / "m", source="doc.article")
    assert outputs(layout, layout.builds[0]) == {"0": "x", "1": "y"}
    assert layout.read_references().texts == {"0": ("a",), "1": ("b",)}
    assert layout.stored is not None
    assert layout.stored(layout.builds[0]) == {"1": 0.5}


# --------------------------------------------------------------------------- malformed


def _without_doc_id() -> dict:
    line = sample(1, "b", "y")
    del line["doc_id"]
    return line


def _resps_not_a_list() -> dict:
    line = sample(1, "b", "y")
    line["filtered_resps"] = "y"
    return line


def _resps_a_number() -> dict:
    line = sample(1, "b", "y")
    line["filtered_resps"] = [[3]]
    return line


def _resps_empty() -> dict:
    line = sample(1, "b", "y")
    line["filtered_resps"] = []
    return line


def _doc_id_a_list() -> dict:
    return sample([1], "b", "y")


@pytest.mark.parametrize(("make", "message"), [
    (_without_doc_id, "missing field 'doc_id'"),
    (_resps_not_a_list, "'filtered_resps' must be a list, not string"),
    (_resps_a_number, "'filtered_resps.0.0' must be a string, not number"),
    (_resps_empty, "missing field 'filtered_resps.0'"),
    (_doc_id_a_list, "'doc_id' must be a string or an integer, not array"),
])
def test_a_malformed_line_is_one_error_naming_file_line_and_field_only_when_read(
    tmp_path: Path, make: Callable[[], dict], message: str,
) -> None:
    good = write_run(tmp_path / "m", MONDAY, {"xsum": [sample(0, "a", "x"), sample(1, "b", "y")]})
    bad = write_run(tmp_path / "m", FRIDAY, {"xsum": [sample(0, "a", "x"), make()]})
    layout = open_one(tmp_path / "m")  # listing reads no samples file
    assert outputs(layout, layout.builds[0]) == {"0": "x", "1": "y"}  # the other build still reads
    with pytest.raises(SuiteError) as caught:
        layout.read_build(layout.builds[1])
    assert str(caught.value) == f"{bad['xsum']}:2: {message}"
    assert good["xsum"] != bad["xsum"]


def test_a_target_that_is_no_text_is_one_error_and_the_references_come_from_a_run_that_reads(
    tmp_path: Path,
) -> None:
    write_run(tmp_path / "m", MONDAY, {"xsum": [sample(0, "a", "x"), sample(1, "b", "y")]})
    bad = write_run(tmp_path / "m", FRIDAY, {"xsum": [sample(0, "a", "x"), sample(1, ["one", "two"], "y")]})
    message = f"{bad['xsum']}:2: 'target' must be a string, not array"
    layout = open_one(tmp_path / "m")
    with pytest.raises(SuiteError) as caught:
        layout.read_build(layout.builds[1])
    assert str(caught.value) == message
    # the references come from the newest run that reads: the older one's targets
    assert layout.read_references().texts == {"0": ("a",), "1": ("b",)}
    assert outputs(layout, layout.builds[0]) == {"0": "x", "1": "y"}
    # no run reads: the newest run's error
    (tmp_path / "m" / f"samples_xsum_{MONDAY}.jsonl").write_text("{", encoding="utf-8")
    with pytest.raises(SuiteError) as caught:
        layout.read_references()
    assert str(caught.value) == message


def test_a_line_that_is_no_object_and_a_repeated_doc_are_named(tmp_path: Path) -> None:
    path = write_run(tmp_path / "m", FRIDAY, {"xsum": [sample(0, "a", "x")]})["xsum"]
    with path.open("a", encoding="utf-8") as file:
        file.write('["not", "an", "object"]\n')
    layout = open_one(tmp_path / "m")
    with pytest.raises(SuiteError) as caught:
        layout.read_build(layout.builds[0])
    assert str(caught.value) == f"{path}:2: expected a JSON object, found array"
    path.write_text(json.dumps(sample(0, "a", "x")) + "\n" + json.dumps(sample(0, "a", "y")) + "\n")
    with pytest.raises(SuiteError) as caught:
        layout.read_build(layout.builds[0])
    assert str(caught.value) == f"{path}:2: duplicate id '0' (first at line 1)"


def test_a_new_run_with_the_same_targets_keeps_the_references_digest(tmp_path: Path) -> None:
    """The references are read from the newest run's file, but their digest (a cache key of
    every build's scores) is of what they hold: a new nightly run with the same targets
    leaves the earlier builds' scores in use; another target, or another doc, changes it."""
    write_run(tmp_path / "m", MONDAY, {"xsum": [sample(0, "the target", "a"), sample(1, "another", "b")]})
    before = open_one(tmp_path / "m").read_references().digest
    write_run(tmp_path / "m", FRIDAY, {"xsum": [sample(0, "the target", "new"), sample(1, "another", "outputs")]})
    assert open_one(tmp_path / "m").read_references().digest == before
    write_run(tmp_path / "m", "2026-11-21T10-02-33.500000", {"xsum": [sample(0, "the target", "x"), sample(2, "another", "y")]})
    assert open_one(tmp_path / "m").read_references().digest != before
    write_run(tmp_path / "m", "2026-11-22T10-02-33.500000", {"xsum": [sample(0, "the target", "x"), sample(1, "other", "y")]})
    assert open_one(tmp_path / "m").read_references().digest != before
