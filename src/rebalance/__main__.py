"""Command line: ``python -m rebalance {conform,run,simulate,diagnose,assign} ...``.

* ``conform FILE...``  replays Kafka's conformance vectors and ends with ``N passed, M failed``;
* ``run FILE``         writes one ``{"id", "output"}`` line per scenario line (``-`` reads stdin);
  ``--oracle kafka`` computes them with Kafka's own classes instead (:mod:`rebalance.kafka.oracle`);
* ``simulate FILE``    runs each group scenario through the classic or KIP-848 simulator and writes one
  line per completed rebalance and a summary line (:mod:`rebalance.simulate`); ``--on kafka`` runs it with
  real consumers on a real broker instead (:mod:`rebalance.kafka.consumers`);
* ``diagnose LOG...``  reads a broker's log (and consumers' logs) and writes one line per rebalance of each group
  with its trigger, then a summary per group with the likely cause (:mod:`rebalance.diagnose`);
* ``assign SCENARIO.json [--assignor NAME]``  prints a consumer group's assignment as a table (the
  assignor: the flag, else the file's ``"assignor"``, else range; a flag that disagrees with the file wins,
  with a note on stderr).
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Callable, Iterable, List, Optional, TextIO, Tuple

from .common import JsonRecord

from .errors import InputError, LiveClientError
from .gcpause import paused_gc
from .vectors import Line, conform_lines, read_lines, run_lines


def _conform(args: argparse.Namespace) -> int:
    total_passed = total_failed = 0
    for path in args.files:
        try:
            result = conform_lines(read_lines(path), lambda text: print(text, flush=True))
        except OSError as exc:
            print(f"FAIL {path}: cannot read file ({exc.strerror})", flush=True)
            total_failed += 1
            continue
        if len(args.files) > 1 or args.verbose:
            print(f"{path}: {result.passed} passed, {result.failed} failed", flush=True)
        total_passed += result.passed
        total_failed += result.failed
    print(f"{total_passed} passed, {total_failed} failed")
    return 1 if total_failed else 0


def _write_outputs(args: argparse.Namespace, read: Callable[[str], Iterable[Line]],
                   compute: Callable[[Iterable[Line], Callable[[JsonRecord], None]], Tuple[int, int]]) -> int:
    """The loop of ``run`` and ``simulate``: apply ``--max-cells``, write ``compute``'s JSON lines for every
    file to stdout or ``--output``, keep going past bad lines and unreadable files, exit 1 if any."""
    if args.max_cells is not None:
        from . import validation as limits

        # 0 lifts the limit: the caller takes responsibility for the memory (benchmarks at Kafka's scale)
        limits.MAX_INPUT_CELLS = args.max_cells if args.max_cells > 0 else float("inf")
    out: TextIO = open(args.output, "w", encoding="utf-8") if args.output else sys.stdout
    written = 0
    try:
        def write(obj: JsonRecord) -> None:
            nonlocal written
            out.write(json.dumps(obj, ensure_ascii=False, separators=(",", ":")))
            out.write("\n")
            out.flush()
            written += 1

        errors = 0
        for path in args.files:
            try:
                with paused_gc():  # the lines create millions of small acyclic objects (see gcpause)
                    _, bad = compute(read(path), write)
            except OSError as exc:
                print(f"{path}: cannot read file ({exc.strerror})", file=sys.stderr)
                errors += 1
                continue
            except KeyboardInterrupt as exc:  # what was running has stopped itself (its message says what)
                raise KeyboardInterrupt(f"{exc or 'stopped'}; the {written} line(s) written before are kept") from None
            errors += bad
        if errors:
            print(f"{errors} line(s) could not be computed; see their 'error' fields", file=sys.stderr)
        return 1 if errors else 0
    finally:
        if out is not sys.stdout:
            out.close()


def _run(args: argparse.Namespace) -> int:
    if args.oracle == "kafka":
        from .kafka.oracle import run_lines as kafka_run_lines  # starts Java: imported only when asked

        return _write_outputs(args, read_lines, kafka_run_lines)
    return _write_outputs(args, read_lines, run_lines)


def _simulate(args: argparse.Namespace) -> int:
    from .simulate import read_scenarios, simulate_lines  # imported lazily, as assign

    if args.on == "kafka":
        from .kafka.consumers import simulate_lines_on_kafka  # starts Kafka: imported only when asked

        return _write_outputs(args, read_scenarios, simulate_lines_on_kafka)
    if args.alternatives:
        return _write_outputs(args, read_scenarios,
                              lambda lines, write: simulate_lines(lines, write, alternatives=args.alternatives))
    return _write_outputs(args, read_scenarios, simulate_lines)


def _diagnose(args: argparse.Namespace) -> int:
    from .diagnose.cli import diagnose_command  # imported lazily, as assign

    return diagnose_command(args)


def _assign(args: argparse.Namespace) -> int:
    from .consumer.cli import assign_command  # imported lazily: keeps `conform` start-up small

    return assign_command(args)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m rebalance", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("conform", help="replay Kafka conformance vectors and compare")
    p.add_argument("files", nargs="+", metavar="FILE", help="vectors files (.jsonl)")
    p.add_argument("-v", "--verbose", action="store_true", help="print a summary line per file")
    p.set_defaults(func=_conform)

    p = sub.add_parser("run", help="compute outputs for scenario lines")
    p.add_argument("files", nargs="+", metavar="FILE", help="scenario files (.jsonl); '-' for stdin")
    p.add_argument("-o", "--output", help="write to this file instead of stdout")
    p.add_argument("--max-cells", type=int, default=None, metavar="N",
                   help="size limit in cells: partitions + subscriptions + owned partitions for a consumer group (default rebalance.validation.MAX_INPUT_CELLS; 0: none)")
    p.add_argument("--oracle", choices=("package", "kafka"), default="package",
                   help="who computes: this package (default) or Kafka's own classes from the pinned jars "
                        "(needs Java 17+ and 'make java')")
    p.set_defaults(func=_run)

    p = sub.add_parser("simulate", help="run group simulations: one line per completed rebalance, then a summary")
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="scenario files: one JSON scenario per line, or one JSON object or array; '-' for stdin")
    p.add_argument("-o", "--output", help="write to this file instead of stdout")
    p.add_argument("--max-cells", type=int, default=None, metavar="N",
                   help="size limit in cells: partitions + subscriptions + events (default rebalance.validation.MAX_INPUT_CELLS; 0: none)")
    p.add_argument("--on", choices=("model", "kafka"), default="model",
                   help="the package's simulators (default), or real KafkaConsumers of the pinned release on a "
                        "one-broker cluster on 127.0.0.1, in wall-clock time (needs Java 17+ and 'make java')")
    p.add_argument("--alternatives", type=int, default=0, metavar="N",
                   help="consumer groups: add to each rebalance line the other assignments it gets over N draws of "
                        "member ids, as a real group's random ids break ties (default 0: none; with the model only)")
    p.set_defaults(func=_simulate)

    p = sub.add_parser("diagnose", help="read Kafka logs: one line per rebalance with its trigger, then a summary "
                                        "per group with the likely cause")
    p.add_argument("files", nargs="+", metavar="LOG",
                   help="a broker's server.log (rotated files oldest first) and, optionally, consumers' logs; '-' for stdin")
    p.add_argument("-o", "--output", help="write to this file instead of stdout")
    p.add_argument("-v", "--verbose", action="store_true", help="also write every line not recognised")
    p.set_defaults(func=_diagnose)

    p = sub.add_parser("assign", help="assign partitions of a consumer group scenario")
    p.add_argument("scenario", metavar="SCENARIO.json")
    p.add_argument("--assignor", default=None,
                   help="range | roundrobin | sticky | cooperative-sticky (default: the file's \"assignor\" "
                        "field, else range; the flag wins over a different value in the file, with a note)")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(func=_assign)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        status: int = args.func(args)
        return status
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except LiveClientError as exc:  # Java missing (JavaUnavailableError), or a JVM or cluster that failed
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # pragma: no cover
        return 1
    except KeyboardInterrupt as exc:  # Ctrl-C: one line, no traceback (what ran has stopped its processes)
        print(f"interrupted (Ctrl-C): {exc or 'stopped'}", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
