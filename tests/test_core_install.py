"""The core package works without the book's heavy dependencies: `pip install rebalance` gives every algorithm,
the vectors runner and the command line with no numpy, pandas, pyarrow, matplotlib, ipywidgets or pyspark.

A fresh interpreter blocks those imports and then uses the core: any module of the core that imports one of
them, even indirectly, fails this test."""
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

BLOCKER = textwrap.dedent("""
    import importlib.abc, sys
    HEAVY = {"numpy", "pandas", "pyarrow", "matplotlib", "ipywidgets", "pyspark", "tqdm"}
    class Block(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in HEAVY:
                raise ImportError(f"{name} is not part of the core install")
    sys.meta_path.insert(0, Block())
""")


def _run(code: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", BLOCKER + textwrap.dedent(code), *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=300)


def test_the_core_imports_and_computes_without_heavy_dependencies():
    res = _run("""
        import rebalance, rebalance.consumer, rebalance.connect, rebalance.protocol, rebalance.replicas
        import rebalance.kip848, rebalance.vectors, rebalance.java, rebalance.__main__
        from rebalance.consumer import assign
        result = assign("range", {"t": 7}, {m: {"topics": ["t"]} for m in ("c0", "c1", "c2")})
        print(sorted(len(v) for v in dict(getattr(result, "assignment", result)).values()))
    """)
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.strip().splitlines()[-1] == "[2, 2, 3]"


def test_the_command_line_replays_vectors_without_heavy_dependencies(tmp_path):
    source = ROOT / "kafka-vectors" / "consumer_range.jsonl"
    sample = tmp_path / "sample.jsonl"
    sample.write_text("".join(source.read_text().splitlines(keepends=True)[:20]))
    res = _run("""
        import sys
        from rebalance.__main__ import main
        sys.exit(main(["conform", sys.argv[1]]))
    """, str(sample))
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.strip().splitlines()[-1] == "20 passed, 0 failed"


def test_the_main_entry_points_are_importable_from_rebalance():
    res = _run("""
        import rebalance
        for name in rebalance.__all__:
            assert getattr(rebalance, name) is not None, name
        print(sorted(len(v) for v in rebalance.assign("range", {"t": 7}, {m: {"topics": ["t"]} for m in "abc"}).values()))
    """)
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.strip().splitlines()[-1] == "[2, 2, 3]"
