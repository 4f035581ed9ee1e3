"""The committed Kafka vectors as the tests read them (pytest puts this folder on ``sys.path``, so a test folder's
conftest does ``from vector_files import ...``)."""
import json

from rebalance.vectors import vectors_dir

VECTORS = vectors_dir()


def load_vectors(*names):
    """Every line of the named vector files, in order (none from a file that is not installed)."""
    lines = []
    for name in names:
        path = VECTORS / name
        if path.exists():
            with open(path, encoding="utf-8") as stream:
                lines.extend(json.loads(t) for t in stream if t.strip())
    return lines


def parametrize(metafunc, fixture, names, id_of):
    """Parametrize ``fixture`` (when the test asks for it) with the lines of ``names``, each named ``id_of(line)``."""
    if fixture in metafunc.fixturenames:
        lines = load_vectors(*names)
        metafunc.parametrize(fixture, lines, ids=[id_of(line) for line in lines])


def oracle_or_skip(release=None):
    """Kafka's oracle (:class:`rebalance.kafka.oracle.Oracle`) for ``release`` (default: the pinned one), or the
    test skipped with the one-line reason when the Java module is not built."""
    from rebalance.errors import JavaUnavailableError
    from rebalance.kafka import oracle

    args = (release,) if release else ()
    try:
        oracle.classpath(*args)
    except JavaUnavailableError as exc:
        import pytest

        pytest.skip(str(exc))
    return oracle.Oracle(*args, short=True)
