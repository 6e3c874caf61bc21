"""Tests for rouge_tui.importers.promptfoo: promptfoo's ``eval -o results.json`` (v3) and
``-o results.jsonl``, read where they are.

Every fixture is written here by hand from promptfoo's own source (``src/types``
``OutputFile`` / ``EvaluateSummaryV3`` / ``EvaluateResult``, ``src/models/evalResult.ts``,
the ``writeOutput`` in ``src/util``): a ``.json`` export is ``JSON.stringify(OutputFile,
null, 2)`` with ``evalId`` first; a ``.jsonl`` line is one stored ``EvalResult`` (its
``evalId`` ends in the eval's creation time, ``createEvalId``). Expected ids, names and
texts are written out by hand.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from suite_helpers import error_of

from rouge_tui.importers import IMPORTERS, get
from rouge_tui.importers.promptfoo import IMPORTER
from rouge_tui.suite.toml import SuiteSettings

STAMP = "2024-05-01T12:34:56.789Z"
EVAL_ID = "eval-Xy1-2024-05-01T12:34:56"


def result(prompt_idx: int, test_idx: int, provider: str, label: str, variables: dict | None,
           output: object, asserts: list | None = None, **extra: object) -> dict:
    """One EvaluateResult as toEvaluateResult() writes it into a .json export."""
    test_case: dict = {"assert": asserts if asserts is not None else [], "options": {}, "metadata": {}}
    if variables is not None:
        test_case["vars"] = variables
    record = {
        "cost": 0, "gradingResult": None, "id": f"r-{prompt_idx}-{test_idx}", "latencyMs": 12,
        "namedScores": {}, "prompt": {"raw": f"raw {label}", "label": label},
        "promptId": "p" * 8, "promptIdx": prompt_idx, "provider": {"id": provider},
        "response": {"output": output, "tokenUsage": {}}, "score": 1, "success": True,
        "testCase": test_case, "testIdx": test_idx, "vars": variables or {}, "metadata": {},
        "failureReason": 0,
    }
    record.update(extra)
    return record


def rouge(reference: str) -> list[dict]:
    return [{"type": "rouge-n", "value": reference, "threshold": 0.6}]


def write_export(path: Path, results: list[dict], *, eval_id: str = EVAL_ID, stamp: str = STAMP,
                 description: str | None = "Incident summaries", version: int = 3, pretty: bool = True) -> Path:
    """A .json export in promptfoo's key order (evalId, results{version, timestamp, prompts,
    results, stats}, config, shareableUrl, metadata), two-space indented as it writes it
    (``pretty``), or on one line as another tool might re-save it. ``prompts`` holds one
    CompletedPrompt per column, its ``provider`` the provider's label, else its id."""
    prompts: dict[int, dict] = {}
    for record in results:
        column, provider = record.get("promptIdx"), record.get("provider")
        if type(column) is int and type(provider) is dict and column not in prompts:
            prompts[column] = {"raw": record["prompt"].get("raw"), "label": record["prompt"].get("label"),
                               "provider": provider.get("label") or provider.get("id"),
                               "metrics": {"score": 1, "testPassCount": 1, "testFailCount": 0}}
    config: dict = {"prompts": ["summarize"], "providers": []}
    if description is not None:
        config["description"] = description
    document = {
        "evalId": eval_id,
        "results": {"version": version, "timestamp": stamp, "prompts": [prompts[k] for k in sorted(prompts)],
                    "results": results, "stats": {"successes": len(results), "failures": 0, "errors": 0}},
        "config": config,
        "shareableUrl": None,
        "metadata": {"promptfooVersion": "0.90.0", "exportedAt": stamp},
    }
    path.write_text(json.dumps(document, indent=2) if pretty else json.dumps(document))
    return path


def repeated_exports(folder: Path, evals: int = 3) -> Path:
    """``evals`` exports of `promptfoo eval --repeat 2` (one file, two runs of each test) in
    ``folder``: a suite whose builds have one file but two runs."""
    folder.mkdir(parents=True)
    for e in range(evals):
        records = [result(0, i, "openai:gpt-4o", "s", {"n": i % 2}, f"out {i} {e} word", rouge(f"ref {i % 2} word"))
                   for i in range(4)]
        write_export(folder / f"{e}.json", records, eval_id=f"eval-{e}", stamp=f"2024-05-0{e + 1}T12:34:56.789Z")
    return folder


def stored_line(record: dict, eval_id: str = EVAL_ID) -> dict:
    """The same result as one .jsonl line: a stored EvalResult, its fields in its order."""
    line = {"id": record["id"], "evalId": eval_id}
    for key in ("promptIdx", "testIdx", "testCase", "prompt", "promptId", "error", "score",
                "success", "response", "gradingResult", "namedScores", "provider", "latencyMs",
                "cost", "metadata", "failureReason"):
        if key in record:
            line[key] = record[key]
    line["persisted"] = True
    return line


def open_one(path: Path, settings: SuiteSettings | None = None):
    assert IMPORTER.recognise(path)
    (layout,) = IMPORTER.open(path, settings or SuiteSettings())
    return layout


def outputs(layout, name: str) -> dict[str, str]:
    (build,) = [b for b in layout.builds if b.name == name]
    (run,) = layout.read_build(build)
    return run.outputs


TWO_PROVIDERS = [
    result(0, 0, "openai:gpt-4o", "summarize", {"text": "pool"}, "the pool timed out", rouge("pool timed out")),
    result(1, 0, "ollama:llama3", "summarize", {"text": "pool"}, "a pool", rouge("pool timed out")),
    result(0, 1, "openai:gpt-4o", "summarize", {"text": "disk"}, "disk full", rouge("the disk filled")),
    result(1, 1, "ollama:llama3", "summarize", {"text": "disk"}, "disk is full", rouge("the disk filled")),
]


def test_registry_names_the_module() -> None:
    assert IMPORTERS["promptfoo"] == "rouge_tui.importers.promptfoo"
    assert get("promptfoo") is IMPORTER


@pytest.mark.parametrize("pretty", [True, False])
def test_two_providers_with_a_rouge_n_assertion(tmp_path: Path, pretty: bool) -> None:
    layout = open_one(write_export(tmp_path / "results.json", TWO_PROVIDERS, pretty=pretty))
    assert layout.format == "promptfoo"
    assert layout.name == "Incident summaries"  # config.description
    # One eval: no date in the names; same date, so name order ("ollama" < "openai").
    assert [b.name for b in layout.builds] == ["ollama:llama3 · summarize", "openai:gpt-4o · summarize"]
    assert [b.created for b in layout.builds] == [STAMP, STAMP]
    references = layout.read_references()
    assert references.texts == {'{"text":"pool"}': ("pool timed out",), '{"text":"disk"}': ("the disk filled",)}
    assert references.sources == {}
    assert outputs(layout, "openai:gpt-4o · summarize") == {
        '{"text":"pool"}': "the pool timed out", '{"text":"disk"}': "disk full"}
    assert outputs(layout, "ollama:llama3 · summarize") == {
        '{"text":"pool"}': "a pool", '{"text":"disk"}': "disk is full"}


def test_the_two_columns_never_share_a_digest(tmp_path: Path) -> None:
    layout = open_one(write_export(tmp_path / "results.json", TWO_PROVIDERS))
    digests = {layout.read_build(build)[0].digest for build in layout.builds}
    assert len(digests) == 2


def test_jsonl_export(tmp_path: Path) -> None:
    path = tmp_path / "nightly.jsonl"
    path.write_text("".join(json.dumps(stored_line(r)) + "\n" for r in TWO_PROVIDERS))
    layout = open_one(path)
    assert layout.name == "nightly"  # a .jsonl carries no config: the file's name
    # The eval's date is the one in its evalId (createEvalId: first 19 characters of ISO).
    assert [b.created for b in layout.builds] == ["2024-05-01T12:34:56"] * 2
    assert outputs(layout, "openai:gpt-4o · summarize") == {
        '{"text":"pool"}': "the pool timed out", '{"text":"disk"}': "disk full"}
    assert layout.read_references().texts['{"text":"disk"}'] == ("the disk filled",)


def test_jsonl_error_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "nightly.jsonl"
    broken = stored_line(TWO_PROVIDERS[2])
    del broken["response"]
    lines = [stored_line(TWO_PROVIDERS[0]), stored_line(TWO_PROVIDERS[1]), broken]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    layout = open_one(path)
    (gpt,) = [b for b in layout.builds if b.name.startswith("openai")]
    assert str(error_of(layout.read_build, gpt)) == f"{path}:3: missing field 'response'"


@pytest.mark.parametrize("pretty", [True, False])
def test_an_output_that_is_an_object_is_canonical_json_text(tmp_path: Path, pretty: bool) -> None:
    records = [result(0, 0, "openai:gpt-4o", "extract", {"q": 1}, {"b": 2, "a": ["x", None]}, rouge("x"))]
    layout = open_one(write_export(tmp_path / "results.json", records, pretty=pretty))
    assert outputs(layout, "openai:gpt-4o · extract") == {'{"q":1}': '{"a":["x",null],"b":2}'}


@pytest.mark.parametrize("pretty", [True, False])
def test_vars_are_the_id_across_two_evals_in_different_orders(tmp_path: Path, pretty: bool) -> None:
    old = [
        result(0, 0, "openai:gpt-4o", "summarize", {"text": "pool", "lang": "en"}, "old pool", rouge("pool timed out")),
        result(0, 1, "openai:gpt-4o", "summarize", {"text": "disk", "lang": "en"}, "old disk", rouge("disk filled")),
    ]
    new = [  # the tests in the other order, their vars written in another key order
        result(0, 0, "openai:gpt-4o", "summarize", {"lang": "en", "text": "disk"}, "new disk", rouge("the disk filled")),
        result(0, 1, "openai:gpt-4o", "summarize", {"lang": "en", "text": "pool"}, "new pool", rouge("pool timed out")),
    ]
    # File names sort against the dates: the eval's own date orders the history.
    write_export(tmp_path / "a-new.json", new, eval_id="eval-Bbb-2024-06-02T09:00:00",
                 stamp="2024-06-02T09:00:00.000Z", pretty=pretty)
    write_export(tmp_path / "b-old.json", old, eval_id="eval-Aaa-2024-05-01T12:34:56", pretty=pretty)
    layout = open_one(tmp_path)
    assert layout.name == "Incident summaries"  # both evals say so
    assert [b.name for b in layout.builds] == [
        "2024-05-01 12:34 openai:gpt-4o · summarize",
        "2024-06-02 09:00 openai:gpt-4o · summarize",
    ]
    pool, disk = '{"lang":"en","text":"pool"}', '{"lang":"en","text":"disk"}'
    assert outputs(layout, layout.builds[0].name) == {pool: "old pool", disk: "old disk"}
    assert outputs(layout, layout.builds[1].name) == {disk: "new disk", pool: "new pool"}
    # The newer eval's references win where the two differ.
    assert layout.read_references().texts == {disk: ("the disk filled",), pool: ("pool timed out",)}


@pytest.mark.parametrize("pretty", [True, False])
def test_a_missing_assertion_without_a_reference_var(tmp_path: Path, pretty: bool) -> None:
    records = [result(0, i, "openai:gpt-4o", "s", {"n": i}, "out", rouge("ref")) for i in range(3)]
    records.append(result(0, 3, "openai:gpt-4o", "s", {"n": 3}, "out", [{"type": "contains", "value": "x"}]))
    path = write_export(tmp_path / "results.json", records, pretty=pretty)
    layout = open_one(path)
    message = str(error_of(layout.read_references))
    assert message.startswith(f"{path}:results.results[3].testCase: no reference: no 'rouge-n', "
                              "'similar' or 'equals' assertion")
    assert '[fields] reference = "vars.expected"' in message


def test_vars_named_in_suite_toml_give_id_reference_and_source(tmp_path: Path) -> None:
    records = [
        result(0, 0, "openai:gpt-4o", "s", {"id": "inc-1", "expected": "db down", "doc": "The db went down."}, "db is down"),
        result(0, 1, "openai:gpt-4o", "s", {"id": 7, "expected": ["disk full", "disk filled"], "doc": "Disk."}, "disk"),
    ]
    settings = SuiteSettings(name="ops", fields_given={"id": "vars.id", "reference": "vars.expected", "source": "vars.doc"})
    layout = open_one(write_export(tmp_path / "results.json", records), settings)
    assert layout.name == "ops"  # suite.toml's name wins over the description
    references = layout.read_references()
    assert references.texts == {"inc-1": ("db down",), "7": ("disk full", "disk filled")}
    assert references.sources == {"inc-1": "The db went down.", "7": "Disk."}
    assert outputs(layout, "openai:gpt-4o · s") == {"inc-1": "db is down", "7": "disk"}


def test_a_null_or_missing_source_var_is_no_source(tmp_path: Path) -> None:
    """README: a harness's null or blank source is none; a null var was an error."""
    records = [
        result(0, 0, "openai:gpt-4o", "s", {"id": "a", "expected": "db down", "doc": "The db went down."}, "x"),
        result(0, 1, "openai:gpt-4o", "s", {"id": "b", "expected": "disk full", "doc": None}, "y"),
        result(0, 2, "openai:gpt-4o", "s", {"id": "c", "expected": "dns"}, "z"),
    ]
    settings = SuiteSettings(fields_given={"id": "vars.id", "reference": "vars.expected", "source": "vars.doc"})
    layout = open_one(write_export(tmp_path / "results.json", records), settings)
    assert layout.read_references().sources == {"a": "The db went down."}
    records[1]["testCase"]["vars"]["doc"] = ["not", "text"]
    path = write_export(tmp_path / "other.json", records)
    assert str(error_of(open_one(path, settings).read_references)) == (
        f"{path}:results.results[1]: 'testCase.vars.doc' must be a string, not array")


def test_an_assertion_value_naming_one_var_is_that_var(tmp_path: Path) -> None:
    records = [result(0, 0, "openai:gpt-4o", "s", {"text": "t", "expected": "the pool timed out"}, "out",
                      [{"type": "similar", "value": "{{ expected }}", "threshold": 0.8},
                       {"type": "equals", "value": "exactly this"}])]
    layout = open_one(write_export(tmp_path / "results.json", records))
    (texts,) = layout.read_references().texts.values()
    assert texts == ("the pool timed out", "exactly this")


def test_a_result_promptfoo_marked_as_an_error_is_left_out(tmp_path: Path) -> None:
    records = [
        result(0, 0, "openai:gpt-4o", "s", {"n": 0}, "fine", rouge("fine")),
        result(0, 1, "openai:gpt-4o", "s", {"n": 1}, None, rouge("ok"), error="429 Too Many Requests",
               response=None, failureReason=2),
    ]
    layout = open_one(write_export(tmp_path / "results.json", records))
    assert outputs(layout, "openai:gpt-4o · s") == {'{"n":0}': "fine"}


def test_untrusted_names_are_made_visible_and_short(tmp_path: Path) -> None:
    records = [result(0, 0, "evil:\x1b[31mred\x1b[0m", "a\nprompt that goes on and on and on", {"n": 0}, "x", rouge("x"))]
    layout = open_one(write_export(tmp_path / "results.json", records))
    (build,) = layout.builds
    assert "\x1b" not in build.name and "\n" not in build.name
    # Provider at most 24 characters, prompt label at most 20 (cut with an ellipsis).
    assert build.name == "evil:\\x1b[31mred\\x1b[0m · a prompt that goes…"


@pytest.mark.parametrize("pretty", [True, False])
def test_a_provider_label_that_is_null_is_no_label(tmp_path: Path, pretty: bool) -> None:
    records = [result(0, 0, "openai:gpt-4o", "s", {"n": 0}, "x", rouge("x")),
               result(1, 0, "openai:gpt-4o", "s", {"n": 0}, "y", rouge("x"))]
    records[0]["provider"]["label"] = None  # toEvaluateResult copies a label the store holds as null
    records[1]["provider"]["label"] = "fast"
    layout = open_one(write_export(tmp_path / "results.json", records, pretty=pretty))
    assert [b.name for b in layout.builds] == ["fast · s", "openai:gpt-4o · s"]


@pytest.mark.parametrize("pretty", [True, False])
def test_duplicate_names_get_their_column(tmp_path: Path, pretty: bool) -> None:
    records = [result(0, 0, "openai:gpt-4o", "s", {"n": 0}, "x", rouge("x")),
               result(1, 0, "openai:gpt-4o", "s", {"n": 0}, "y", rouge("x"))]
    layout = open_one(write_export(tmp_path / "results.json", records, pretty=pretty))
    assert [b.name for b in layout.builds] == ["openai:gpt-4o · s", "openai:gpt-4o · s #1"]
    assert outputs(layout, "openai:gpt-4o · s #1") == {'{"n":0}': "y"}


# --------------------------------------------------------------------------- recognising


def test_recognises_only_its_own_shape(tmp_path: Path) -> None:
    export = write_export(tmp_path / "results.json", TWO_PROVIDERS)
    assert IMPORTER.recognise(export) and IMPORTER.recognise(tmp_path)
    other = tmp_path / "other"
    other.mkdir()
    (other / "results.json").write_text(json.dumps({"results": {"version": 3}, "evalId": "e"}))
    (other / "references.jsonl").write_text('{"id": "a", "reference": "x"}\n')
    (other / "b.jsonl").write_text('{"promptIdx": 0, "testIdx": 0}\n')  # no provider
    (other / "c.json").write_text("[1, 2]")
    assert not IMPORTER.recognise(other)
    for child in other.iterdir():
        assert not IMPORTER.recognise(child), child
    assert not IMPORTER.recognise(tmp_path / "absent.json")


def test_a_jsonl_whose_first_line_is_longer_than_the_peek(tmp_path: Path) -> None:
    line = stored_line(result(0, 0, "openai:gpt-4o", "s", {"n": 0}, "word " * 300_000, rouge("x")))
    path = tmp_path / "long.jsonl"
    path.write_text(json.dumps(line) + "\n")
    assert IMPORTER.recognise(path)


# --------------------------------------------------------------------------- malformed


def test_invalid_json_is_a_problem_build_naming_the_line(tmp_path: Path) -> None:
    path = write_export(tmp_path / "results.json", TWO_PROVIDERS)
    text = path.read_text().splitlines()
    assert text[5] == '    "prompts": ['
    text[5] += " ,,"  # in the head: listing cannot skim it, and reads it all
    path.write_text("\n".join(text))
    (layout,) = IMPORTER.open(path, SuiteSettings())  # listing still works
    (build,) = layout.builds
    assert build.name == "results" and build.problem is not None
    message = str(error_of(layout.read_build, build))
    assert message.startswith(f"{path}:6: invalid JSON:")


def test_invalid_json_among_the_results_is_found_when_a_build_is_read(tmp_path: Path) -> None:
    path = write_export(tmp_path / "results.json", TWO_PROVIDERS)
    text = path.read_text().splitlines()
    line = next(n for n, row in enumerate(text) if '"latencyMs"' in row)
    text[line] += " ,,"
    path.write_text("\n".join(text))
    (layout,) = IMPORTER.open(path, SuiteSettings())  # skimmed: named from results.prompts
    assert [b.name for b in layout.builds] == ["ollama:llama3 · summarize", "openai:gpt-4o · summarize"]
    for build in layout.builds:
        assert str(error_of(layout.read_build, build)).startswith(f"{path}:{line + 1}: invalid JSON:")


def test_version_2_is_named(tmp_path: Path) -> None:
    path = write_export(tmp_path / "results.json", TWO_PROVIDERS, version=2)
    (layout,) = IMPORTER.open(path, SuiteSettings())
    assert str(layout.builds[0].problem) == (
        f"{path}:results.version: results.version 2 (rouge-tui reads version 3: export the "
        "eval again with a current promptfoo)")


@pytest.mark.parametrize(("change", "member", "message"), [
    (lambda r: r.pop("promptIdx"), "results.results[1]", "'promptIdx' must be a whole number >= 0, not missing"),
    (lambda r: r.update(promptIdx="1"), "results.results[1]", "'promptIdx' must be a whole number >= 0, not a string"),
    (lambda r: r.update(provider={}), "results.results[1]", "missing field 'provider.id'"),
    (lambda r: r.update(prompt={"label": 3}), "results.results[1]", "'prompt.label' must be a string, not number"),
])
def test_a_result_that_cannot_be_listed(tmp_path: Path, change, member: str, message: str) -> None:
    records = json.loads(json.dumps(TWO_PROVIDERS))
    change(records[1])
    path = write_export(tmp_path / "results.json", records, pretty=False)  # listed from its results
    (layout,) = IMPORTER.open(path, SuiteSettings())
    (build,) = layout.builds
    assert str(error_of(layout.read_build, build)) == f"{path}:{member}: {message}"


@pytest.mark.parametrize(("change", "message"), [
    (lambda r: r["testCase"].pop("vars"), "missing field 'testCase.vars'"),
    (lambda r: r["testCase"].update(vars=["a"]), "'testCase.vars' must be an object, not array"),
    (lambda r: r["response"].pop("output"), "missing field 'response.output'"),
    (lambda r: r["response"].update(output=None), "'response.output' is null and the result holds no error"),
])
def test_a_result_that_cannot_be_read(tmp_path: Path, change, message: str) -> None:
    records = json.loads(json.dumps(TWO_PROVIDERS))
    change(records[2])
    path = write_export(tmp_path / "results.json", records)
    layout = open_one(path)
    (gpt,) = [b for b in layout.builds if b.name.startswith("openai")]
    assert str(error_of(layout.read_build, gpt)) == f"{path}:results.results[2]: {message}"


@pytest.mark.parametrize(("asserts", "message"), [
    ([{"type": "rouge-n", "value": 3}],
     "'testCase.assert.0.value' must be a string or an array of strings, not number"),
    ([{"type": "equals", "value": "The {{ answer }} is"}],
     "'testCase.assert.0.value' is a template or a file ('The {{ answer }} is'), which rouge-tui does not render"),
    ([{"type": "similar", "value": "{{missing}}"}], "missing field 'testCase.vars.missing'"),
    ("not a list", "'testCase.assert' must be an array, not string"),
])
def test_an_assertion_that_gives_no_reference(tmp_path: Path, asserts, message: str) -> None:
    path = write_export(tmp_path / "results.json", [result(0, 0, "openai:gpt-4o", "s", {"n": 0}, "x", asserts)])
    layout = open_one(path)
    assert str(error_of(layout.read_references)).startswith(f"{path}:results.results[0]: {message}")


def test_two_tests_with_the_same_vars_and_other_references_are_duplicates(tmp_path: Path) -> None:
    records = [result(0, 0, "openai:gpt-4o", "s", {"n": 0}, "x", rouge("x")),
               result(0, 1, "openai:gpt-4o", "s", {"n": 0}, "y", rouge("y"))]
    path = write_export(tmp_path / "results.json", records)
    layout = open_one(path)
    assert str(error_of(layout.read_references)) == (
        f"{path}:results.results[1]: duplicate id '{{\"n\":0}}' (first at member 'results.results[0]')")


def test_repeat_gives_replicate_runs(tmp_path: Path) -> None:
    # promptfoo eval --repeat 2: the tests again with new testIdx, the same vars.
    records = [result(0, i, "openai:gpt-4o", "s", {"n": i % 2}, f"out {i}", rouge(f"ref {i % 2}")) for i in range(4)]
    records[3] = result(0, 3, "openai:gpt-4o", "s", {"n": 1}, None, rouge("ref 1"), error="timeout", response=None)
    layout = open_one(write_export(tmp_path / "results.json", records))
    first, second = layout.read_build(layout.builds[0])
    assert first.outputs == {'{"n":0}': "out 0", '{"n":1}': "out 1"}
    assert second.outputs == {'{"n":0}': "out 2"}  # the errored repeat is left out of its run
    assert first.digest != second.digest
    assert layout.read_references().texts == {'{"n":0}': ("ref 0",), '{"n":1}': ("ref 1",)}


def test_an_id_repeated_unevenly_is_a_duplicate(tmp_path: Path) -> None:
    records = [result(0, 0, "openai:gpt-4o", "s", {"n": 0}, "a", rouge("x")),
               result(0, 1, "openai:gpt-4o", "s", {"n": 1}, "b", rouge("x")),
               result(0, 2, "openai:gpt-4o", "s", {"n": 0}, "c", rouge("x"))]
    path = write_export(tmp_path / "results.json", records)
    layout = open_one(path)
    assert str(error_of(layout.read_build, layout.builds[0])) == (
        f"{path}:results.results[2]: duplicate id '{{\"n\":0}}' (first at member 'results.results[0]')")


def test_a_bad_field_path_in_suite_toml(tmp_path: Path) -> None:
    path = write_export(tmp_path / "results.json", TWO_PROVIDERS)
    message = str(error_of(IMPORTER.open, path, SuiteSettings(fields_given={"id": "vars..id"})))
    assert message == f"{path}: [fields] id: empty part in the field path 'vars..id'"


def test_a_timestamp_that_is_no_date_is_no_date(tmp_path: Path) -> None:
    records = [result(0, 0, "openai:gpt-4o", "s", {"n": 0}, "x", rouge("x"))]
    write_export(tmp_path / "a.json", records, stamp="yesterday\x1b[2J")
    write_export(tmp_path / "b.json", records, stamp="2024-05-01T12:34:56.789Z")
    layout = open_one(tmp_path)
    # No date: first in history, named by its file where the date would be.
    assert [(b.created, b.name) for b in layout.builds] == [
        ("", "a openai:gpt-4o · s"), ("2024-05-01T12:34:56.789Z", "2024-05-01 12:34 openai:gpt-4o · s")]


def test_batches_glued_on_one_line_are_named(tmp_path: Path) -> None:
    # promptfoo's first .jsonl writer joined each batch of results with line breaks but
    # appended the batches with none between them: the last of one batch and the first of
    # the next share a line.
    lines = [json.dumps(stored_line(r)) for r in TWO_PROVIDERS]
    path = tmp_path / "old.jsonl"
    path.write_text(lines[0] + "\n" + lines[1] + lines[2] + "\n" + lines[3])
    layout = open_one(path)
    (build,) = layout.builds
    message = str(error_of(layout.read_build, build))
    assert message.startswith(f"{path}:2: invalid JSON: Extra data (column {len(lines[1]) + 1})")
    assert message.endswith("two results on one line, as older promptfoo versions wrote .jsonl exports: export the eval again")


def test_two_exports_import_as_one_suite_unless_their_descriptions_differ(tmp_path: Path) -> None:
    """A review: `import promptfoo week1.json week2.json` was refused ("holds the suite
    'week2', not 'week1'") since an export with no description is named after its file,
    though the same two files in one folder import as one suite. A name made from a path
    tells no task apart; two descriptions that differ do."""
    from rouge_tui.suite.writer import import_suites

    rows = [result(0, 0, "openai:gpt-4o", "s", {"text": "t"}, "out", [{"type": "equals", "value": "ref"}])]
    first = write_export(tmp_path / "week1.json", rows, description=None, eval_id="eval-1", stamp="2024-05-01T00:00:00Z")
    second = write_export(tmp_path / "week2.json", rows, description=None, eval_id="eval-2", stamp="2024-06-01T00:00:00Z")
    suite = import_suites([first, second], "promptfoo", tmp_path / "out")
    assert len(suite.builds) == 2
    other = write_export(tmp_path / "other.json", rows, description="Another task", eval_id="eval-3")
    ops = write_export(tmp_path / "ops.json", rows, description="Ops answers", eval_id="eval-4")
    assert str(error_of(import_suites, [other, ops], "promptfoo", tmp_path / "out2")) == (
        f"{ops}: holds the suite 'Ops answers', not 'Another task' as {other} does: import one suite at a time")
