"""Each real importer through the command line: `rouge-tui report PATH` on the harness's own
files, checked against rouge-score 0.1.2 (the oracle) on the texts the fixture wrote, and
`rouge-tui import FORMAT PATH --out DIR` then `report DIR`: the same figures.

The fixtures come from each format's own test module (written by hand from the tools'
sources there); the expected texts are restated here, so an importer that read the wrong
field, the wrong epoch or the wrong build would give other means.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
from pathlib import Path

import pytest
from rouge_score import rouge_scorer

from rouge_tui.cli import main

# Per build, in history order: {id: output}; one reference per id.
REFERENCES = {"1": "the disk filled at night and the job stopped",
              "2": "a bad config push took the api down for ten minutes",
              "3": "the cache expired and every request went to the database"}
BUILDS = [
    {"1": "the disk filled and the job stopped", "2": "a config push took the api down",
     "3": "the cache expired so requests hit the database"},
    {"1": "a job stopped", "2": "the api was down after a config push for ten minutes",
     "3": "the database was slow"},
]


def _main_out(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def _oracle_mean(outputs: dict[str, str]) -> float:
    scorer = rouge_scorer.RougeScorer(["rougeL"])
    return math.fsum(scorer.score(REFERENCES[i], outputs[i])["rougeL"].fmeasure for i in sorted(outputs)) / len(outputs)


def _lm_eval(root: Path) -> Path:
    from test_importer_lm_eval import sample, write_run

    for day, outputs in zip(("2026-11-20T10-02-33.500000", "2026-11-21T10-02-33.500000"), BUILDS):
        write_run(root / "org__model-x", day, {"summ": [sample(int(i), REFERENCES[i], outputs[i]) for i in REFERENCES]})
    return root


def _inspect(root: Path) -> Path:
    from test_importer_inspect import eval_log, header, sample

    root.mkdir()
    for day, outputs in zip(("2026-11-20", "2026-11-21"), BUILDS):
        eval_log(root / f"{day}_summ.eval", [sample(int(i), REFERENCES[i], outputs[i]) for i in REFERENCES],
                 header(task="summ", created=f"{day}T14:03:12+00:00"))
    return root


def _promptfoo(root: Path) -> Path:
    from test_importer_promptfoo import result, rouge, write_export

    root.mkdir()
    for n, (day, outputs) in enumerate(zip(("2026-11-20", "2026-11-21"), BUILDS)):
        results = [result(0, t, "openai:gpt-4o", "summarise", {"id": i}, outputs[i], rouge(REFERENCES[i]))
                   for t, i in enumerate(REFERENCES)]
        write_export(root / f"results-{n}.json", results, eval_id=f"eval-{n}-{day}T12:00:00",
                     stamp=f"{day}T12:00:00.000Z", description="summ")
    (root / "suite.toml").write_text('[fields]\nid = "vars.id"\n')
    return root


def _helm(root: Path) -> Path:
    from test_importer_helm import reference, state, write_run

    for n, outputs in enumerate(BUILDS):
        states = [state(f"id{i}", [reference(REFERENCES[i], "correct")], outputs[i]) for i in REFERENCES]
        write_run(root / f"summ:model=m{n}", states, run_name=f"summ:model=m{n}", model=f"org/m{n}")
    return root


@pytest.mark.parametrize("name, write", [("lm-eval", _lm_eval), ("inspect", _inspect),
                                         ("promptfoo", _promptfoo), ("helm", _helm)])
def test_report_on_a_harness_s_files_and_on_its_import(tmp_path: Path, name: str, write) -> None:
    folder = write(tmp_path / "harness")
    before = sorted((p, p.read_bytes()) for p in folder.rglob("*") if p.is_file())
    code, text, err = _main_out("report", str(folder), "--format", "json", "--no-cache", "--tokenizer", "rouge-score")
    assert code in (0, 1) and err == "", err
    found = json.loads(text)
    assert found["paired"] == 3
    if name != "promptfoo":  # promptfoo's ids are the var named in suite.toml, the others their own
        assert sorted(found["only_in_baseline"] + found["only_in_candidate"]) == []
    for role, outputs in zip(("baseline", "candidate"), BUILDS):
        assert found[role]["mean"] == pytest.approx(_oracle_mean(outputs), abs=1e-12), role
    assert found["delta"] == pytest.approx(_oracle_mean(BUILDS[1]) - _oracle_mean(BUILDS[0]), abs=1e-12)

    out = tmp_path / "native"
    code, _, err = _main_out("import", name, str(folder), "--out", str(out))
    assert code == 0, err
    code, text, err = _main_out("report", str(out), "--format", "json", "--no-cache", "--tokenizer", "rouge-score")
    assert code in (0, 1) and err == "", err
    native = json.loads(text)
    for role in ("baseline", "candidate"):
        assert native[role]["mean"] == found[role]["mean"]
    assert native["delta"] == found["delta"] and native["verdict"] == found["verdict"]
    references = {}
    for line in (out / "references.jsonl").read_text().splitlines():
        record = json.loads(line)
        references[record["id"]] = record.get("reference") or record["references"][0]
    assert sorted(references.values()) == sorted(REFERENCES.values())
    assert sorted((p, p.read_bytes()) for p in folder.rglob("*") if p.is_file()) == before  # inputs untouched


@pytest.mark.parametrize("name, write, newest", [("inspect", _inspect, "2026-11-22_summ.eval"),
                                                 ("promptfoo", _promptfoo, "results-2.json")])
def test_a_newest_log_cut_off_is_an_error_not_a_report_on_the_two_before(tmp_path: Path, name: str, write,
                                                                        newest: str) -> None:
    """A red-team pass: a third, newer log cut off as it was written has no date to read, and
    sorted first; the report compared the two logs before it and exited 1 on their drift,
    with no word of the third. README: when one of the two newest builds cannot be read,
    `report` exits 2 with its error."""
    import shutil

    folder = write(tmp_path / "harness")
    last = max(p for p in folder.iterdir() if p.suffix in (".eval", ".json"))
    data = last.read_bytes()
    (folder / newest).write_bytes(data[:100])  # the copy of a newer one, cut short: no date to read
    code, _, err = _main_out("report", str(folder), "--format", "json", "--no-cache")
    assert code == 2, err
    assert newest in err and len(err.strip().splitlines()) == 1, err
    shutil.rmtree(folder)


def test_a_log_that_broke_long_ago_stays_back_in_history(tmp_path: Path) -> None:
    """A review of the change above: a crashed log from months ago went last too, so every
    later report compared it and exited 2. Where the harness's date cannot be read, the
    file's modification time places it: an old one stays back, the two newest are compared."""
    import os

    folder = _inspect(tmp_path / "harness")
    old = folder / "2026-01-01_summ.eval"
    old.write_bytes(max(folder.glob("*.eval")).read_bytes()[:100])
    os.utime(old, (0, 0))  # written in 1970
    code, text, err = _main_out("report", str(folder), "--format", "json", "--no-cache", "--tokenizer", "rouge-score")
    assert code in (0, 1) and err == "", err
    found = json.loads(text)
    assert found["candidate"]["mean"] == pytest.approx(_oracle_mean(BUILDS[1]), abs=1e-12)


@pytest.mark.parametrize("name, write, what, escaped", [
    ("helm", _helm, '"the database was slow"', r'"the database was slow \ud800"'),
    ("helm", _helm, '"id3"', r'"\udc00"'),
    ("promptfoo", _promptfoo, '"the database was slow"', r'"the database was slow \ud800"'),
])
def test_a_lone_surrogate_escape_in_a_harness_json_file_is_named_where_it_is(tmp_path: Path, name: str, write,
                                                                            what: str, escaped: str) -> None:
    """A red-team pass: orjson refuses "\\ud800" and the standard decoder keeps it, so a
    HELM or promptfoo file with one in an id or output reported, then `import` (and
    `--format parquet`) ended on "'utf-8' codec can't encode character", naming nothing.
    Now, like a native suite's, one line naming the file and where, exit 2."""
    folder = write(tmp_path / "harness")
    files = [p for p in sorted(folder.rglob("*.json")) if what.encode() in p.read_bytes()]
    assert files
    files[-1].write_bytes(files[-1].read_bytes().replace(what.encode(), escaped.encode()))
    for argv in (["report", str(folder), "--no-cache"], ["import", name, str(folder), "--out", str(tmp_path / "out")]):
        code, _, err = _main_out(*argv)
        assert code == 2 and "not valid Unicode (a lone surrogate escape)" in err, (argv, err)
        assert str(files[-1]) in err and len(err.strip().splitlines()) == 1, err


def test_json_nested_past_the_decoders_depth_is_no_internal_error(tmp_path: Path) -> None:
    """A red-team pass: a stray .json of 1,000 nested arrays beside a HELM run broke the
    report of the folder with "internal error (RecursionError ...)" (Inspect's recogniser
    read its head), and so did a promptfoo output nested as deep (json.dumps of it). The
    stray file is no Inspect log; the output is named, exit 2."""
    deep = "[" * 1000 + "]" * 1000
    folder = _helm(tmp_path / "helm")
    (folder / "x.json").write_text('{"a": ' + deep + "}")
    code, text, err = _main_out("report", str(folder), "--format", "json", "--no-cache")
    assert code in (0, 1) and json.loads(text)["paired"] == 3, err
    code, _, err = _main_out("report", str(folder / "x.json"))
    assert code == 2 and "internal error" not in err and len(err.strip().splitlines()) == 1, err

    folder = _promptfoo(tmp_path / "promptfoo")
    newest = max(folder.glob("*.json"))
    newest.write_text(newest.read_text().replace('"the database was slow"', '{"x": ' + deep + "}"))
    code, _, err = _main_out("report", str(folder), "--no-cache")
    assert code == 2 and "'response.output' is nested too deeply" in err and str(newest) in err, err


def _promptfoo_same_minute(root: Path) -> Path:
    """Two evals of one provider and prompt in the same minute: the names the importer gives
    (the minute, the provider, the prompt) are the same."""
    from test_importer_promptfoo import result, rouge, write_export

    root.mkdir()
    for n, (second, outputs) in enumerate(zip(("10", "50"), BUILDS)):
        results = [result(0, t, "openai:gpt-4o", "summarise", {"id": i}, outputs[i], rouge(REFERENCES[i]))
                   for t, i in enumerate(REFERENCES)]
        write_export(root / f"results-{n}.json", results, eval_id=f"eval-{n}", stamp=f"2026-11-20T12:34:{second}.000Z",
                     description="summ")
    (root / "suite.toml").write_text('[fields]\nid = "vars.id"\n')
    return root


def _helm_long_models(root: Path) -> Path:
    """Two models whose names differ past the 40 characters a build's name keeps of them."""
    from test_importer_helm import reference, state, write_run

    for n, outputs in enumerate(BUILDS):
        model = f"huggingface/meta-llama-3.1-8b-instruct-finetune-v{n + 1}"
        states = [state(f"id{i}", [reference(REFERENCES[i], "correct")], outputs[i]) for i in REFERENCES]
        write_run(root / f"summ:model=v{n + 1}", states, run_name=f"summ:model=v{n + 1}", model=model)
    return root


@pytest.mark.parametrize("write", [_promptfoo_same_minute, _helm_long_models])
def test_two_builds_an_importer_names_alike_are_told_apart(tmp_path: Path, write) -> None:
    """A red-team pass: two builds given the same name shared one set of figures, kept under
    the name: the history showed the second build's mean for both, with no word, and
    neither could be picked by --baseline. Each has a name of its own and its own figures."""
    folder = write(tmp_path / "harness")
    code, text, err = _main_out("report", str(folder), "--format", "json", "--no-cache", "--history",
                                "--tokenizer", "rouge-score")
    assert code in (0, 1) and err == "", err
    history = json.loads(text)["history"]
    names = [h["name"] for h in history]
    assert len(names) == 2 and len(set(names)) == 2, names
    for entry, outputs in zip(history, BUILDS):
        assert entry["mean"] == pytest.approx(_oracle_mean(outputs), abs=1e-12), entry["name"]
    code, text, err = _main_out("report", str(folder), "--format", "json", "--no-cache", "--baseline", names[1],
                                "--candidate", names[0], "--tokenizer", "rouge-score")
    assert code in (0, 1) and err == "", err
    found = json.loads(text)
    assert (found["baseline"]["name"], found["candidate"]["name"]) == (names[1], names[0])
    assert found["baseline"]["mean"] == pytest.approx(_oracle_mean(BUILDS[1]), abs=1e-12)


def test_helm_runs_with_integer_instance_ids(tmp_path: Path) -> None:
    """A red-team pass: two HELM runs whose instance ids are integers (the README: an id is a
    string or an integer) were refused with a duplicate id '0' that was not one: the later
    run's ids were kept as text, the earlier's compared as integers, so both gave 0."""
    from test_importer_helm import reference, state, write_run

    folder = tmp_path / "harness"
    for n, outputs in enumerate(BUILDS):
        states = [state(i, [reference(REFERENCES[i], "correct")], outputs[i]) for i in REFERENCES]
        for one in states:
            one["instance"]["id"] = int(one["instance"]["id"])
        write_run(folder / f"summ:model=m{n}", states, run_name=f"summ:model=m{n}", model=f"org/m{n}")
    code, text, err = _main_out("report", str(folder), "--format", "json", "--no-cache", "--tokenizer", "rouge-score")
    assert code in (0, 1) and err == "", err
    found = json.loads(text)
    assert found["paired"] == 3
    for role, outputs in zip(("baseline", "candidate"), BUILDS):
        assert found[role]["mean"] == pytest.approx(_oracle_mean(outputs), abs=1e-12), role


@pytest.mark.parametrize("where", ["model", "top"])
def test_a_link_that_loops_hides_no_lm_eval_run(tmp_path: Path, where: str) -> None:
    """A red-team pass: a stray link that loops (``ln -s latest latest``) in the newest model's
    folder hid every run in it, and report compared two older runs, exit 0, no word; at the
    top of the output folder it hid the whole folder ("missing references file"). The link
    is no run and no folder; the runs beside it are read."""
    import os

    from test_importer_lm_eval import FRIDAY, MONDAY, sample, write_run

    folder = tmp_path / "harness"
    write_run(folder / "org__old", MONDAY, {"summ": [sample(int(i), REFERENCES[i], BUILDS[0][i]) for i in REFERENCES]})
    write_run(folder / "org__new", FRIDAY, {"summ": [sample(int(i), REFERENCES[i], BUILDS[1][i]) for i in REFERENCES]})
    os.symlink("latest", (folder / "org__new" if where == "model" else folder) / "latest")
    code, text, err = _main_out("report", str(folder), "--format", "json", "--no-cache", "--tokenizer", "rouge-score")
    assert code in (0, 1) and err == "", err
    found = json.loads(text)
    assert found["candidate"]["name"].startswith("new") and found["baseline"]["name"].startswith("old")
    for role, outputs in zip(("baseline", "candidate"), BUILDS):
        assert found[role]["mean"] == pytest.approx(_oracle_mean(outputs), abs=1e-12), role


def test_an_imported_build_of_replicate_runs_named_like_a_file_reads_back(tmp_path: Path) -> None:
    """A red-team pass: promptfoo --repeat exports whose prompt's label is its file's name,
    "prompts.csv": import wrote each build as a folder of runs named "… prompts.csv", and
    report on the suite it wrote took the folder for a CSV file (exit 2, "is a directory").
    A folder of runs is one whatever its name; the figures are the harness's."""
    from test_importer_promptfoo import result, rouge, write_export

    folder = tmp_path / "harness"
    folder.mkdir()
    for e in range(2):
        records = [result(0, i, "openai:gpt-4o", "prompts.csv", {"n": i % 2}, f"out {i} {e} word",
                          rouge(f"ref {i % 2} word")) for i in range(4)]
        write_export(folder / f"{e}.json", records, eval_id=f"eval-{e}", stamp=f"2024-05-0{e + 1}T12:34:56.789Z")
    code, text, err = _main_out("report", str(folder), "--format", "json", "--no-cache")
    assert code in (0, 1) and err == "", err
    found = json.loads(text)
    assert found["candidate"]["runs"] == 2
    out = tmp_path / "native"
    code, _, err = _main_out("import", "promptfoo", str(folder), "--out", str(out))
    assert code == 0, err
    assert all(p.is_dir() and p.name.endswith("prompts.csv") for p in (out / "builds").iterdir())
    code, text, err = _main_out("report", str(out), "--format", "json", "--no-cache")
    assert code in (0, 1) and err == "", err
    native = json.loads(text)
    for role in ("baseline", "candidate"):
        assert (native[role]["mean"], native[role]["runs"]) == (found[role]["mean"], found[role]["runs"])


def test_two_promptfoo_tests_given_one_id_are_a_duplicate_not_two_runs(tmp_path: Path) -> None:
    """A red-team pass: [fields] id = "vars.id" and two different tests whose ids are 2 and
    "2": they were taken for two runs of one example (`--repeat`), paired 1, runs 2, a band
    from "replicates", no word. A repeat has the same vars; these are a duplicate id."""
    from test_importer_promptfoo import result, rouge, write_export

    folder = tmp_path / "harness"
    folder.mkdir()
    for e in range(2):
        records = [result(0, 0, "openai:gpt-4o", "s", {"id": 2, "q": "first question"}, f"one {e}", rouge("ref one")),
                   result(0, 1, "openai:gpt-4o", "s", {"id": "2", "q": "another question"}, f"two {e}", rouge("ref one"))]
        write_export(folder / f"{e}.json", records, eval_id=f"eval-{e}", stamp=f"2024-05-0{e + 1}T12:34:56.789Z")
    (folder / "suite.toml").write_text('[fields]\nid = "vars.id"\n')
    code, _, err = _main_out("report", str(folder), "--format", "json", "--no-cache")
    assert code == 2 and "duplicate id '2'" in err and "results.results[1]" in err, err
    assert len(err.strip().splitlines()) == 1, err


def test_runs_whose_ids_differ_in_form_say_an_id_of_each(tmp_path: Path) -> None:
    """A red-team pass: an lm-eval run with one filter and one with two (gsm8k's strict-match
    and flexible-extract) key their docs "0" and "0|strict-match": the report said only that
    the builds share no example. It says an id of each, where the difference shows."""
    from test_importer_lm_eval import FRIDAY, MONDAY, sample, write_run

    folder = tmp_path / "harness"
    write_run(folder / "org__m", MONDAY, {"summ": [sample(int(i), REFERENCES[i], BUILDS[0][i], "strict-match")
                                                   for i in REFERENCES]})
    write_run(folder / "org__m", FRIDAY, {"summ": [sample(int(i), REFERENCES[i], BUILDS[1][i], name)
                                                   for i in REFERENCES for name in ("strict-match", "flexible-extract")]})
    code, _, err = _main_out("report", str(folder), "--format", "json", "--no-cache")
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert ("share no example with a usable reference (their first ids: '1' and '1|strict-match'; the references' "
            "'1|strict-match')") in err, err


def test_a_build_added_later_renames_no_build_told_apart(tmp_path: Path) -> None:
    """A review of the numbering: builds told apart by their number in history were
    renumbered when a run that sorts before them was added (HELM's are in name order), so a
    mark and --baseline "… (2)" went to another build. By their places, they stay."""
    from test_importer_helm import reference, state, write_run

    folder = _helm_long_models(tmp_path / "harness")
    code, text, err = _main_out("report", str(folder), "--format", "json", "--no-cache", "--history")
    before = {h["name"]: h["mean"] for h in json.loads(text)["history"]}
    states = [state(f"id{i}", [reference(REFERENCES[i], "correct")], BUILDS[1][i]) for i in REFERENCES]
    write_run(folder / "summ:model=a0", states, run_name="summ:model=a0",
              model="huggingface/meta-llama-3.1-8b-instruct-finetune-v0")
    code, text, err = _main_out("report", str(folder), "--format", "json", "--no-cache", "--history")
    assert code in (0, 1) and err == "", err
    after = {h["name"]: h["mean"] for h in json.loads(text)["history"]}
    assert len(after) == 3 and all(after[name] == mean for name, mean in before.items()), (before, after)
