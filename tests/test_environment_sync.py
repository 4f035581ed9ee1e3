"""environment.yml (for conda users) must describe the same pinned environment as pyproject.toml."""
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]


def _pyproject_pins():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    project = data["project"]
    pins = list(project["dependencies"])
    for extra in project.get("optional-dependencies", {}).values():
        pins.extend(extra)
    return pins


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


def test_every_dependency_is_pinned_exactly():
    for pin in _pyproject_pins():
        assert "==" in pin, f"pyproject.toml: {pin!r} is not pinned with =="


def test_environment_yml_matches_pyproject():
    py = sorted(_pyproject_pins(), key=str.lower)
    env = sorted(_environment_pip_pins(), key=str.lower)
    assert env == py, (
        "environment.yml pip pins differ from pyproject.toml:\n"
        f" only in pyproject: {sorted(set(py) - set(env))}\n only in environment.yml: {sorted(set(env) - set(py))}"
    )


def test_environment_yml_has_java_node_python():
    text = (ROOT / "environment.yml").read_text()
    for needed in ("python=3.11", "openjdk=17", "nodejs"):
        assert needed in text, f"environment.yml lacks {needed}"
