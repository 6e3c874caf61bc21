"""HELM run folders (``benchmark_output/runs/<suite>/<run name>/``), read where they are.

What HELM writes (its ``runner.py``, each file one ``json.dumps(asdict_without_nones(...),
indent=2)``, so absent optional fields are left out, never null):

- ``run_spec.json``: ``name`` (``scenario:arg=value,...,model=org_model``) and
  ``adapter_spec.model`` (``org/model``);
- ``scenario_state.json``: ``adapter_spec`` and ``request_states[]``, each with an
  ``instance`` (``id``, ``input.text``, ``references[]`` of ``output.text`` and ``tags``,
  ``perturbation.name`` for an augmented copy), ``train_trial_index``, ``reference_index``
  (only for adapters that ask once per reference) and ``result.completions[0].text``;
- ``per_instance_stats.json``: ``[{instance_id, perturbation?, train_trial_index, stats:
  [{name: {name: "rouge_l", ...}, mean, ...}]}]``, HELM's own scores.

A build is one run folder, named by its model. An example's id is ``instance.id``, then
``|`` and the perturbation's name for an augmented copy, then ``|`` and the train trial when
the run holds several trials (``id4|typos|0``). Its references are those tagged
``correct``; its output the first completion (a multiple-choice letter: the choice
``output_mapping`` maps it to); its source ``instance.input.text``. A folder of run folders is one suite per
scenario (the run name without its ``model=`` and ``model_deployment=`` arguments: the
subjects of ``mmlu:subject=...`` are different instance sets). These files carry no date
of the run (``result.request_datetime`` is when a request was first sent, kept in HELM's
cache across runs), so builds are in name order.
"""

from __future__ import annotations

import math
from pathlib import Path

from rouge_tui.errors import SuiteError, quoted, type_name
from rouge_tui.importers.base import (
    ImportedBuild,
    ImportedSuite,
    Importer,
    Missing,
    Unread,
    Where,
    check_field_paths,
    fail,
    field_text,
    field_value,
    get_field,
    history_order,
    loose_key,
    make_references,
    make_run,
    read_json,
    reference_texts,
    selector_digest,
    source_text,
)
from rouge_tui.safetext import one_line
from rouge_tui.suite.records import References, Run
from rouge_tui.suite.toml import SuiteSettings

__all__ = ["IMPORTER"]

STATE = "scenario_state.json"
STATS = "per_instance_stats.json"
SPEC = "run_spec.json"
CORRECT = "correct"  # HELM's CORRECT_TAG
STORED_METRIC = "rouge_l"
OUTPUT = "result.completions.0.text"
# HELM writes each file with one json.dumps: these bound what rouge-tui will hold in memory.
STATE_LIMIT = 4 << 30
SPEC_LIMIT = 16 << 20
_MODEL_ARGS = ("model", "model_deployment")
_NAME_LIMIT = 40


# --------------------------------------------------------------------------- listing


def _runs(path: Path) -> list[Path]:
    """The run folders ``path`` is: itself, or its own subfolders that hold a scenario state."""
    if (path / STATE).is_file():
        return [path]
    if not path.is_dir():
        return []
    return sorted(child for child in path.iterdir() if child.is_dir() and (child / STATE).is_file())


def recognise(path: Path) -> bool:
    """A folder with a ``scenario_state.json``, or one whose subfolders have one."""
    try:
        return bool(_runs(Path(path)))
    except OSError:
        return False


def _arguments(run_name: str) -> tuple[str, dict[str, str]]:
    """``"mmlu:subject=x,model=org_m"`` -> ``("mmlu", {"subject": "x", "model": "org_m"})``."""
    scenario, _, rest = run_name.partition(":")
    pairs = (part.partition("=") for part in rest.split(",") if part)
    return scenario, {key: value for key, _, value in pairs}


def _spec(run: Path) -> tuple[str, str | None]:
    """A run's scenario (its name without the model) and its model, from ``run_spec.json``
    where it is readable, else from the folder's name (which HELM makes the run's name)."""
    run_name, model = run.name, None
    try:
        spec, _digest = read_json(run / SPEC, SPEC_LIMIT)
    except SuiteError:
        spec = None  # naming only: the files a build is read from say what is wrong with it
    if type(spec) is dict:
        if type(spec.get("name")) is str and spec["name"]:
            run_name = spec["name"]
        adapter = spec.get("adapter_spec")
        if type(adapter) is dict and type(adapter.get("model")) is str and adapter["model"]:
            model = adapter["model"]
    scenario, arguments = _arguments(run_name)
    kept = ",".join(f"{key}={value}" for key, value in arguments.items() if key not in _MODEL_ARGS)
    return (f"{scenario}:{kept}" if kept else scenario), model or arguments.get("model")


# --------------------------------------------------------------------------- reading


def _trial(record: dict, name: str, where: Where) -> int:
    value = record.get(name, 0)
    if type(value) is not int or value < 0:
        raise fail(where, f"{quoted(name)} must be a whole number >= 0, not a {type_name(value)}")
    return value


def _perturbation(record: dict, path: str, where: Where) -> str | None:
    """The name of the perturbation at ``path`` (an augmented copy); None for the original."""
    try:
        found = get_field(record, path)
    except Missing:
        return None
    return None if found is None else field_text(record, f"{path}.name", where)


def _key(instance_id: object, perturbation: str | None, trial: int | None) -> object:
    """The id rouge-tui keeps: HELM's instance id, its perturbation, its train trial."""
    if type(instance_id) is not str or (perturbation is None and trial is None):
        return instance_id  # make_references / make_run say what is wrong with a bad id
    parts = [instance_id] + ([perturbation] if perturbation is not None else [])
    return "|".join(parts + ([str(trial)] if trial is not None else []))


def _states(run: Path) -> tuple[list[tuple[Where, dict]], str, bool]:
    """A run's request states that generated text (one per instance, trial and
    perturbation), where each is, the file's digest, and whether it holds several trials."""
    path = run / STATE
    top, digest = read_json(path, STATE_LIMIT)
    if type(top) is not dict:
        raise SuiteError(f"expected a JSON object, found {type_name(top)}", path)
    states = top.get("request_states")
    if type(states) is not list:
        found = "missing" if "request_states" not in top else f"a {type_name(states)}"
        raise SuiteError(f"'request_states' must be an array, not {found}", path)
    kept: list[tuple[Where, dict]] = []
    several = False
    for position, state in enumerate(states):
        where: Where = (path, f"request_states[{position}]")
        if type(state) is not dict:
            raise fail(where, f"a request state must be an object, not {type_name(state)}")
        if state.get("reference_index") is not None:
            continue  # one request per reference (multiple choice, separate): no generation
        several = several or _trial(state, "train_trial_index", where) > 0
        kept.append((where, state))
    return kept, digest, several


def _state_id(state: dict, where: Where, several: bool, id_path: str) -> object:
    instance_id = field_value(state, f"instance.{id_path}", where)
    perturbation = _perturbation(state, "instance.perturbation", where)
    trial = _trial(state, "train_trial_index", where) if several else None
    return _key(instance_id, perturbation, trial)


def _correct(state: dict, where: Where) -> tuple[str, ...]:
    """The texts of the instance's references tagged ``correct``, in their order."""
    references = field_value(state, "instance.references", where)
    if type(references) is not list:
        raise fail(where, f"'instance.references' must be an array, not {type_name(references)}")
    texts: list[str] = []
    for position, reference in enumerate(references):
        name = f"instance.references.{position}"
        if type(reference) is not dict:
            raise fail(where, f"{quoted(name)} must be an object, not {type_name(reference)}")
        tags = reference.get("tags", [])
        if type(tags) is not list:
            raise fail(where, f"'{name}.tags' must be an array, not {type_name(tags)}")
        if CORRECT in tags:
            texts.append(field_text(state, f"{name}.output.text", where))
    if not texts:
        raise fail(where, f"no reference tagged {quoted(CORRECT)} in 'instance.references'")
    return tuple(texts)


def _output(state: dict, path: str | None, where: Where) -> str | None:
    """The generated text (``path``, else the first completion, and for a multiple-choice
    letter the choice ``output_mapping`` maps it to, the text HELM's metrics score); None
    for a request HELM recorded as failed (``success`` false)."""
    result = state.get("result")
    if type(result) is dict and result.get("success") is False:
        return None
    if path is not None:
        return field_text(state, path, where)
    text = field_text(state, OUTPUT, where)
    mapping = state.get("output_mapping")
    mapped = mapping.get(text.strip()) if type(mapping) is dict else None
    return mapped if type(mapped) is str else text


def _stored(run: Path) -> dict[str, float]:
    """HELM's own per-instance ``rouge_l`` of a run, by rouge-tui's id; {} without the file."""
    path = run / STATS
    if not path.exists():
        return {}
    entries, _digest = read_json(path, STATE_LIMIT)
    if type(entries) is not list:
        raise SuiteError(f"expected an array of per-instance stats, found {type_name(entries)}", path)
    checked: list[tuple[Where, dict]] = []
    for position, entry in enumerate(entries):
        where: Where = (path, f"[{position}]")
        if type(entry) is not dict:
            raise fail(where, f"per-instance stats must be an object, not {type_name(entry)}")
        checked.append((where, entry))
    several = any(_trial(entry, "train_trial_index", where) > 0 for where, entry in checked)
    scores: dict[str, float] = {}
    for where, entry in checked:
        stats = field_value(entry, "stats", where)
        if type(stats) is not list:
            raise fail(where, f"'stats' must be an array, not {type_name(stats)}")
        for position, stat in enumerate(stats):
            if type(stat) is dict and type(stat.get("name")) is dict and stat["name"].get("name") == STORED_METRIC:
                mean = stat.get("mean")
                if type(mean) not in (int, float):
                    raise fail(where, f"'stats.{position}.mean' must be a number, not {type_name(mean)}")
                if not math.isfinite(mean):
                    break  # a NaN agrees with no score: left out, as HELM's absent ones are
                instance_id = field_text(entry, "instance_id", where)
                key = _key(instance_id, _perturbation(entry, "perturbation", where),
                           _trial(entry, "train_trial_index", where) if several else None)
                scores[str(key)] = float(mean)
                break
    return scores


# --------------------------------------------------------------------------- the suites


def _builds(models: dict[Path, str | None]) -> list[ImportedBuild]:
    """One build a run folder, named by its model (the folder's name where two share one)."""
    counts: dict[str | None, int] = {}
    for model in models.values():
        counts[model] = counts.get(model, 0) + 1
    builds = []
    for run, model in models.items():
        name = model if model and counts[model] == 1 else run.name
        builds.append(ImportedBuild(one_line(name, _NAME_LIMIT), run, (run / STATE,)))
    return history_order(builds)


def _open(path: Path, settings: SuiteSettings) -> list[ImportedSuite]:
    path = Path(path)
    runs = _runs(path)
    if not runs:
        raise SuiteError(f"no HELM run folder (one with {STATE}) found", path)
    check_field_paths(settings.fields_given, path)
    groups: dict[str, dict[Path, str | None]] = {}
    for run in runs:
        scenario, model = _spec(run)
        groups.setdefault(scenario, {})[run] = model
    return [_suite(path, scenario, models, settings) for scenario, models in sorted(groups.items())]


def _suite(path: Path, scenario: str, models: dict[Path, str | None], settings: SuiteSettings) -> ImportedSuite:
    fields = settings.fields_given
    id_path = fields.get("id", "id")
    reference_path = fields.get("reference") or fields.get("references")
    source_path = fields.get("source", "input.text")
    output_path = fields.get("output")
    builds = _builds(models)
    unread = Unread()  # README: a broken third build stops only itself

    def read_build(build: ImportedBuild) -> list[Run]:
        states, digest, several = _states(build.path)
        unread.check(build.path, digest)
        rows: list[tuple[Where, object, str]] = []
        for where, state in states:
            text = _output(state, output_path, where)
            if text is not None:
                rows.append((where, _state_id(state, where, several, id_path), text))
        return [make_run(rows, build.path, selector_digest(digest, "run"))]

    def references_of(build: ImportedBuild, later: set[str]) -> tuple[list, set[str]]:
        """One run's references: the rows of the ids no later run gave, and its ids."""
        states, _digest, several = _states(build.path)
        rows: list[tuple[Where, object, tuple[str, ...], str | None]] = []
        ids: set[str] = set()
        for where, state in states:
            raw = _state_id(state, where, several, id_path)
            key = loose_key(raw)  # an integer id is its decimal text, as the references keep it
            if key in later:
                continue
            ids.add(key)
            if reference_path is None:
                texts = _correct(state, where)
            else:
                name = f"instance.{reference_path}"
                texts = reference_texts(field_value(state, name, where), name, where)
            source = source_text(state, f"instance.{source_path}", where)
            rows.append((where, raw, texts, source))
        return rows, ids

    def read_references() -> References:
        rows: list[tuple[Where, object, tuple[str, ...], str | None]] = []
        later: set[str] = set()  # ids a later build gave references for: those win
        failed: list[SuiteError] = []
        for build in reversed(builds):
            try:
                found, ids = references_of(build, later)
            except SuiteError as exc:  # left out; its build fails when it is read
                failed.append(exc)
                unread.keep(build.path, build.path / STATE, exc)
                continue
            rows += found
            later |= ids
        if failed and not rows:
            raise failed[0]  # no run's references read: the newest one's error
        return make_references(rows, empty_where=(path, None))

    def stored(build: ImportedBuild) -> dict[str, float]:
        return _stored(build.path)

    name = settings.name or scenario
    return ImportedSuite("helm", path, name, builds, read_references, read_build, stored)


IMPORTER = Importer(
    "helm",
    "HELM run folders (scenario_state.json): a build is one run folder, an id an instance",
    recognise,
    _open,
)
