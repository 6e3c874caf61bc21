"""Tests for rouge_tui.importers.helm: HELM run folders, read where they are.

Every fixture is written here by hand from HELM's own source: ``scenario_state.py``
(``adapter_spec``, ``request_states``), ``request_state.py`` (``instance``,
``train_trial_index``, ``reference_index``, ``request``, ``result``), ``scenarios/scenario.py``
(``Instance``: ``input.text``, ``references[]`` of ``output.text`` and ``tags``, ``id``,
``perturbation``), ``common/request.py`` (``RequestResult``: ``success``, ``completions``),
``metrics/statistic.py`` and ``metric_name.py`` (a ``Stat``'s ``name`` object and ``mean``),
and ``runner.py``, which writes each file with ``json.dumps(asdict_without_nones(...),
indent=2)``: optional fields left out, NaN and infinities spelled as Python spells them.
Expected ids, names and texts are written out by hand.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from suite_helpers import error_of

from rouge_tui.importers import IMPORTERS, get
from rouge_tui.importers.helm import IMPORTER
from rouge_tui.suite.toml import SuiteSettings

RUN = "summarization_xsum:temperature=0.3,device=cpu,model=openai_gpt2"


def reference(text: str, *tags: str) -> dict:
    return {"output": {"text": text}, "tags": list(tags)}


def state(instance_id: str, references: list[dict], completion: str | None, *, perturbation: str | None = None,
          trial: int = 0, source: str = "The article.", **extra: object) -> dict:
    """One RequestState as asdict_without_nones writes it (no null fields)."""
    instance: dict = {"input": {"text": source}, "references": references, "split": "test", "id": instance_id}
    if perturbation is not None:
        instance["perturbation"] = {"name": perturbation, "robustness": True, "fairness": False,
                                    "computed_on": "perturbed", "seed": 0}
    result: dict = {"success": completion is not None, "embedding": [], "cached": True,
                    "request_time": 0.4, "request_datetime": 1700000000,
                    "completions": [] if completion is None else [
                        {"text": completion, "logprob": -3.5, "tokens": [{"text": completion, "logprob": -3.5}]}]}
    if completion is None:
        result["error"] = "rate limited"
    record = {
        "instance": instance, "train_trial_index": trial,
        "request": {"model_deployment": "openai/gpt2", "model": "openai/gpt2", "embedding": False,
                    "prompt": "Summarize: The article.", "temperature": 0.3, "num_completions": 1,
                    "top_k_per_token": 1, "max_tokens": 64, "stop_sequences": ["\n"], "echo_prompt": False,
                    "top_p": 1, "presence_penalty": 0, "frequency_penalty": 0},
        "result": result, "num_train_instances": 5, "prompt_truncated": False, "num_conditioning_tokens": 0,
    }
    record.update(extra)
    return record


def write_run(folder: Path, states: list[dict], *, run_name: str | None = RUN, model: str | None = "openai/gpt2",
              stats: list[dict] | None = None, trials: int = 1) -> Path:
    folder.mkdir(parents=True)
    adapter = {"method": "generation", "max_train_instances": 5, "num_train_trials": trials,
               "model_deployment": model or "", "model": model or ""}
    if run_name is not None:
        spec = {"name": run_name, "scenario_spec": {"class_name": "helm.benchmark.scenarios.summarization_scenario.SummarizationScenario",
                                                    "args": {"dataset_name": "xsum"}},
                "adapter_spec": adapter, "metric_specs": [], "groups": ["summarization_xsum"]}
        (folder / "run_spec.json").write_text(json.dumps(spec, indent=2))
    (folder / "scenario_state.json").write_text(json.dumps({"adapter_spec": adapter, "request_states": states}, indent=2))
    if stats is not None:
        (folder / "per_instance_stats.json").write_text(json.dumps(stats, indent=2))
    return folder


def stat(name: str, value: float, perturbation: str | None = None) -> dict:
    metric: dict = {"name": name, "split": "test"}
    if perturbation is not None:
        metric["perturbation"] = {"name": perturbation, "robustness": True, "fairness": False, "computed_on": "perturbed"}
    return {"name": metric, "count": 1, "sum": value, "sum_squared": value * value, "min": value,
            "max": value, "mean": value, "variance": 0.0, "stddev": 0.0}


def open_one(path: Path, settings: SuiteSettings | None = None):
    assert IMPORTER.recognise(path)
    (layout,) = IMPORTER.open(path, settings or SuiteSettings())
    return layout


def outputs(layout, build_index: int = 0) -> dict[str, str]:
    (run,) = layout.read_build(layout.builds[build_index])
    return run.outputs


def test_registry_names_the_module() -> None:
    assert IMPORTERS["helm"] == "rouge_tui.importers.helm"
    assert get("helm") is IMPORTER


def test_a_run_with_several_references_counts_only_correct_ones(tmp_path: Path) -> None:
    run = write_run(tmp_path / RUN, [
        state("id4", [reference("the pool timed out", "correct"), reference("the disk filled"),
                      reference("connections ran out", "correct", "other")], " the pool ran out",
              source="At 02:14 the pool timed out."),
        state("id7", [reference("disk full", "correct")], "disk is full"),
    ])
    layout = open_one(run)
    assert layout.format == "helm"
    assert layout.name == "summarization_xsum:temperature=0.3,device=cpu"  # the run name, less its model
    assert [b.name for b in layout.builds] == ["openai/gpt2"]
    references = layout.read_references()
    assert references.texts == {"id4": ("the pool timed out", "connections ran out"), "id7": ("disk full",)}
    assert references.sources == {"id4": "At 02:14 the pool timed out.", "id7": "The article."}
    assert outputs(layout) == {"id4": " the pool ran out", "id7": "disk is full"}


def test_a_perturbation_is_its_own_example(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", [
        state("id4", [reference("the pool timed out", "correct")], "pool out"),
        state("id4", [reference("the pool timed out", "correct")], "pol out", perturbation="typos",
              source="The artcle."),
    ])
    layout = open_one(run)
    assert outputs(layout) == {"id4": "pool out", "id4|typos": "pol out"}
    assert layout.read_references().sources == {"id4": "The article.", "id4|typos": "The artcle."}


def test_several_train_trials_are_in_the_id(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", [
        state("id4", [reference("r", "correct")], "first", trial=0),
        state("id4", [reference("r", "correct")], "second", trial=1),
        state("id4", [reference("r", "correct")], "typo", trial=1, perturbation="robustness"),
    ], trials=2)
    layout = open_one(run)
    assert outputs(layout) == {"id4|0": "first", "id4|1": "second", "id4|robustness|1": "typo"}
    assert set(layout.read_references().texts) == {"id4|0", "id4|1", "id4|robustness|1"}


def test_helms_own_rouge_l_is_stored_by_the_same_ids(tmp_path: Path) -> None:
    stats = [
        {"instance_id": "id4", "train_trial_index": 0,
         "stats": [stat("num_output_tokens", 4), stat("rouge_l", 0.5), stat("rouge_1", 0.6)]},
        {"instance_id": "id4", "perturbation": {"name": "typos", "robustness": True, "fairness": False,
                                                "computed_on": "perturbed"},
         "train_trial_index": 0, "stats": [stat("rouge_l", 0.25, "typos"), stat("logprob", math.nan)]},
        {"instance_id": "id7", "train_trial_index": 0, "stats": [stat("exact_match", 0)]},  # no rouge_l
        {"instance_id": "id9", "train_trial_index": 0, "stats": [stat("rouge_l", math.nan)]},
    ]
    run = write_run(tmp_path / "run", [
        state("id4", [reference("r", "correct")], "a"),
        state("id4", [reference("r", "correct")], "b", perturbation="typos"),
        state("id7", [reference("r", "correct")], "c"),
        state("id9", [reference("r", "correct")], ""),
    ], stats=stats)
    assert "NaN" in (run / "per_instance_stats.json").read_text()  # as Python's json writes it
    layout = open_one(run)
    assert layout.stored(layout.builds[0]) == {"id4": 0.5, "id4|typos": 0.25}


def test_no_per_instance_stats_stores_nothing(tmp_path: Path) -> None:
    layout = open_one(write_run(tmp_path / "run", [state("id4", [reference("r", "correct")], "a")]))
    assert layout.stored(layout.builds[0]) == {}


def test_two_run_folders_are_two_builds_and_other_scenarios_other_suites(tmp_path: Path) -> None:
    runs = tmp_path / "benchmark_output" / "runs" / "v1"
    write_run(runs / RUN, [state("id4", [reference("r", "correct")], "gpt2 says")])
    llama = RUN.replace("openai_gpt2", "meta_llama-3-8b")
    write_run(runs / llama, [state("id4", [reference("r", "correct")], "llama says")],
              run_name=llama, model="meta/llama-3-8b")
    write_run(runs / "mmlu:subject=anatomy,model=openai_gpt2",
              [state("id0", [reference("B", "correct")], "B")], run_name="mmlu:subject=anatomy,model=openai_gpt2")
    assert IMPORTER.recognise(runs)
    mmlu, xsum = IMPORTER.open(runs, SuiteSettings())
    assert (mmlu.name, [b.name for b in mmlu.builds]) == ("mmlu:subject=anatomy", ["openai/gpt2"])
    assert xsum.name == "summarization_xsum:temperature=0.3,device=cpu"
    assert [b.name for b in xsum.builds] == ["meta/llama-3-8b", "openai/gpt2"]  # no dates: name order
    assert [b.created for b in xsum.builds] == ["", ""]
    assert outputs(xsum, 0) == {"id4": "llama says"} and outputs(xsum, 1) == {"id4": "gpt2 says"}
    assert xsum.read_build(xsum.builds[0])[0].digest != xsum.read_build(xsum.builds[1])[0].digest


def test_a_broken_run_leaves_the_others_compared_and_fails_when_it_is_read(tmp_path: Path) -> None:
    """README: report --baseline X --candidate Y works beside a third build that cannot be
    read. A newcomer's third HELM run held a scenario_state.json of "{" and every report of
    the folder stopped at it: the references read every run. They now come from the runs
    that read; the broken one's error is raised when its build is read. A run whose file
    reads but whose reference does not fails the same way, and not silently."""
    runs = tmp_path / "runs"
    llama = RUN.replace("openai_gpt2", "meta_llama-3-8b")
    write_run(runs / RUN, [state("id4", [reference("r gpt", "correct")], "gpt2 says")])
    write_run(runs / llama, [state("id4", [reference("r llama", "correct")], "llama says")], run_name=llama,
              model="meta/llama-3-8b")
    old = RUN.replace("openai_gpt2", "aaa_old")
    broken = write_run(runs / old, [state("id4", [reference("r", "correct")], "old says")], run_name=old, model="aaa/old")
    (broken / "scenario_state.json").write_text("{")
    (layout,) = IMPORTER.open(runs, SuiteSettings())
    assert [b.name for b in layout.builds] == ["aaa/old", "meta/llama-3-8b", "openai/gpt2"]
    assert layout.read_references().texts == {"id4": ("r gpt",)}  # the newest run that reads
    assert outputs(layout, 1) == {"id4": "llama says"} and outputs(layout, 2) == {"id4": "gpt2 says"}
    assert str(error_of(layout.read_build, layout.builds[0])).startswith(f"{broken}/scenario_state.json:1: invalid JSON")
    # The newest run's reference unreadable (an instance with no correct reference): the
    # older ones give it, and that run's build fails when read, naming the state.
    write_run(tmp_path / "again" / RUN, [state("id4", [reference("r", "wrong")], "gpt2 says")])
    write_run(tmp_path / "again" / llama, [state("id4", [reference("r llama", "correct")], "llama says")],
              run_name=llama, model="meta/llama-3-8b")
    (layout,) = IMPORTER.open(tmp_path / "again", SuiteSettings())
    assert layout.read_references().texts == {"id4": ("r llama",)}
    assert "request_states[0]" in str(error_of(layout.read_build, layout.builds[1]))
    (tmp_path / "again" / llama / "scenario_state.json").write_text("{")
    assert "request_states[0]" in str(error_of(layout.read_references))  # none reads: the newest's error


def test_without_run_spec_the_folder_name_says_scenario_and_model(tmp_path: Path) -> None:
    run = write_run(tmp_path / "mmlu:subject=anatomy,model=openai_gpt2",
                    [state("id0", [reference("B", "correct")], "B")], run_name=None)
    layout = open_one(run)
    assert (layout.name, [b.name for b in layout.builds]) == ("mmlu:subject=anatomy", ["openai_gpt2"])
    assert open_one(run, SuiteSettings(name="anatomy")).name == "anatomy"


def test_infinite_logprobs_as_python_writes_them_are_read(tmp_path: Path) -> None:
    record = state("id4", [reference("r", "correct")], "out")
    record["result"]["completions"][0]["logprob"] = -math.inf
    run = write_run(tmp_path / "run", [record])
    assert "-Infinity" in (run / "scenario_state.json").read_text()
    assert outputs(open_one(run)) == {"id4": "out"}


def test_a_failed_request_and_per_reference_requests_are_left_out(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", [
        state("id4", [reference("r", "correct")], "fine"),
        state("id5", [reference("r", "correct")], None),  # success false, no completion
        state("id6", [reference("A", "correct"), reference("B")], "A", reference_index=0),
    ])
    layout = open_one(run)
    assert outputs(layout) == {"id4": "fine"}
    assert set(layout.read_references().texts) == {"id4", "id5"}


def test_fields_in_suite_toml(tmp_path: Path) -> None:
    record = state("id4", [reference("r", "correct")], "out")
    record["instance"]["extra_data"] = {"gold": ["one", "two"], "doc": "the doc"}
    layout = open_one(write_run(tmp_path / "run", [record]), SuiteSettings(
        fields_given={"reference": "extra_data.gold", "source": "extra_data.doc"}))
    references = layout.read_references()
    assert references.texts == {"id4": ("one", "two")} and references.sources == {"id4": "the doc"}


def test_untrusted_model_names_are_made_visible(tmp_path: Path) -> None:
    layout = open_one(write_run(tmp_path / "run", [state("id4", [reference("r", "correct")], "x")],
                                model="evil/\x1b[2Jmodel\n"))
    assert layout.builds[0].name == "evil/\\x1b[2Jmodel\\n"


def test_recognises_only_its_own_shape(tmp_path: Path) -> None:
    (tmp_path / "native").mkdir()
    (tmp_path / "native" / "references.jsonl").write_text('{"id": "a", "reference": "x"}\n')
    (tmp_path / "native" / "builds").mkdir()
    assert not IMPORTER.recognise(tmp_path / "native")
    assert not IMPORTER.recognise(tmp_path / "absent")
    (tmp_path / "deeper" / "a" / "b").mkdir(parents=True)
    (tmp_path / "deeper" / "a" / "b" / "scenario_state.json").write_text("{}")
    assert not IMPORTER.recognise(tmp_path / "deeper")  # run folders are one level down at most
    assert IMPORTER.recognise(tmp_path / "deeper" / "a")


# --------------------------------------------------------------------------- malformed


@pytest.mark.parametrize(("change", "message"), [
    (lambda s: s["instance"].pop("id"), "missing field 'instance.id'"),
    (lambda s: s["result"].update(completions=[]), "missing field 'result.completions.0'"),
    (lambda s: s["result"]["completions"][0].update(text=None), "'result.completions.0.text' must be a string, not null"),
    (lambda s: s.update(train_trial_index="0"), "'train_trial_index' must be a whole number >= 0, not a string"),
    (lambda s: s["instance"].update(perturbation={"robustness": True}), "missing field 'instance.perturbation.name'"),
])
def test_a_request_state_that_cannot_be_read(tmp_path: Path, change, message: str) -> None:
    states = [state("id4", [reference("r", "correct")], "a"), state("id5", [reference("r", "correct")], "b")]
    change(states[1])
    run = write_run(tmp_path / "run", states)
    layout = open_one(run)
    assert str(error_of(layout.read_build, layout.builds[0])) == f"{run}/scenario_state.json:request_states[1]: {message}"


@pytest.mark.parametrize(("change", "message"), [
    (lambda s: s["instance"].update(references={}), "'instance.references' must be an array, not object"),
    (lambda s: s["instance"].update(references=[reference("wrong")]), "no reference tagged 'correct' in 'instance.references'"),
    (lambda s: s["instance"]["references"][0].update(tags="correct"), "'instance.references.0.tags' must be an array, not string"),
    (lambda s: s["instance"]["references"][0]["output"].pop("text"), "missing field 'instance.references.0.output.text'"),
])
def test_an_instance_that_gives_no_reference(tmp_path: Path, change, message: str) -> None:
    states = [state("id4", [reference("r", "correct")], "a"), state("id5", [reference("r", "correct")], "b")]
    change(states[1])
    run = write_run(tmp_path / "run", states)
    layout = open_one(run)
    assert str(error_of(layout.read_references)) == f"{run}/scenario_state.json:request_states[1]: {message}"


def test_an_instance_without_input_text_has_no_source(tmp_path: Path) -> None:
    """A null or missing source is none, in every importer (README); HELM's was an error."""
    states = [state("id4", [reference("r", "correct")], "a"), state("id5", [reference("r", "correct")], "b"),
              state("id6", [reference("r", "correct")], "c")]
    states[1]["instance"].pop("input")
    states[2]["instance"]["input"]["text"] = None
    layout = open_one(write_run(tmp_path / "run", states))
    assert layout.read_references().sources == {"id4": "The article."}


def test_a_file_that_is_not_a_scenario_state(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", [state("id4", [reference("r", "correct")], "a")])
    path = run / "scenario_state.json"
    path.write_text(json.dumps({"adapter_spec": {}}))
    layout = open_one(run)
    assert str(error_of(layout.read_build, layout.builds[0])) == f"{path}: 'request_states' must be an array, not missing"
    path.write_text("[]")  # (it said "'request_states' must be an array, not a null")
    assert str(error_of(layout.read_build, layout.builds[0])) == f"{path}: expected a JSON object, found array"
    lines = json.dumps({"request_states": []}, indent=2).splitlines()
    lines[1] += " oops"
    path.write_text("\n".join(lines))
    assert str(error_of(layout.read_build, layout.builds[0])).startswith(f"{path}:2: invalid JSON:")


def test_duplicate_instances_name_both(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", [state("id4", [reference("r", "correct")], "a"),
                                       state("id4", [reference("r", "correct")], "b")])
    layout = open_one(run)
    assert str(error_of(layout.read_build, layout.builds[0])) == (
        f"{run}/scenario_state.json:request_states[1]: duplicate id 'id4' (first at member 'request_states[0]')")


def test_bad_stored_stats_name_the_entry(tmp_path: Path) -> None:
    bad = stat("rouge_l", 0.5)
    bad["mean"] = "0.5"
    run = write_run(tmp_path / "run", [state("id4", [reference("r", "correct")], "a")],
                    stats=[{"instance_id": "id4", "train_trial_index": 0, "stats": [stat("bleu_1", 0.1), bad]}])
    layout = open_one(run)
    assert str(error_of(layout.stored, layout.builds[0])) == (
        f"{run}/per_instance_stats.json:[0]: 'stats.1.mean' must be a number, not string")


def test_a_multiple_choice_letter_is_the_choice_it_maps_to(tmp_path: Path) -> None:
    # multiple_choice_joint: the model writes a letter, output_mapping says which choice
    # it is, and HELM's own metrics score that choice's text.
    mapping = {"A": "Boston", "B": "New York"}
    refs = [reference("Boston"), reference("New York", "correct")]
    run = write_run(tmp_path / "run", [
        state("id1", refs, " B", output_mapping=mapping),
        state("id2", refs, " M", output_mapping=mapping),  # no such choice: the text as written
        state("id3", refs, "New York"),
    ])
    assert outputs(open_one(run)) == {"id1": "New York", "id2": " M", "id3": "New York"}
    settings = SuiteSettings(fields_given={"output": "result.completions.0.text"})
    assert outputs(open_one(run, settings))["id1"] == " B"  # a path named: that field, as it is
