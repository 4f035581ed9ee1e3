"""The three descriptions of the environment agree: pyproject.toml (compatible ranges, a pure-Python core),
constraints.txt (the exact versions the book was executed with) and environment.yml (conda users)."""
import re
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("pyspark", "pandas", "pyarrow", "matplotlib", "numpy", "ipywidgets")


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[;\s]", requirement, maxsplit=1)[0].lower()


def _project():
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _pins(lines):
    return [line.strip() for line in lines if line.strip() and not line.strip().startswith("#")]


def _constraints():
    return _pins((ROOT / "constraints.txt").read_text().splitlines())


def _environment_pip_pins():
    pins, in_pip = [], False
    for line in (ROOT / "environment.yml").read_text().splitlines():
        stripped = line.strip()
        if stripped.startswith("- pip:"):
            in_pip = True
            continue
        if in_pip:
            if stripped.startswith("- ") and line.startswith(" " * 6):
                pins.append(stripped[2:].strip())
            elif stripped and not stripped.startswith("#"):
                in_pip = False
    return pins


def test_the_core_needs_no_heavy_dependency():
    core = [_name(r) for r in _project()["dependencies"]]
    assert not [n for n in core if n in HEAVY], f"pyproject.toml's core dependencies pull {core}"


def test_every_constraint_is_an_exact_pin():
    for pin in _constraints():
        assert re.fullmatch(r"[A-Za-z0-9_.\-]+==[0-9][\w.]*", pin), f"constraints.txt: {pin!r} is not pinned with =="


def test_every_extra_dependency_is_pinned_in_constraints_and_satisfies_its_range():
    from packaging.requirements import Requirement

    pinned = {_name(p): p.split("==")[1] for p in _constraints()}
    for extra, requirements in _project()["optional-dependencies"].items():
        for text in requirements:
            req = Requirement(text)
            if req.name == "rebalance":
                continue
            name = req.name.lower()
            assert name in pinned, f"[{extra}] {text}: no exact pin in constraints.txt"
            assert req.specifier.contains(pinned[name], prereleases=True), (
                f"[{extra}] {text} does not admit the pinned {name}=={pinned[name]}")


def test_environment_yml_matches_constraints():
    env = sorted(_environment_pip_pins(), key=str.lower)
    pins = sorted(_constraints(), key=str.lower)
    assert env == pins, (
        "environment.yml pip pins differ from constraints.txt:\n"
        f" only in constraints.txt: {sorted(set(pins) - set(env))}\n only in environment.yml: {sorted(set(env) - set(pins))}")


def test_environment_yml_has_java_node_python():
    text = (ROOT / "environment.yml").read_text()
    for needed in ("python=3.11", "openjdk=17", "nodejs"):
        assert needed in text, f"environment.yml lacks {needed}"
