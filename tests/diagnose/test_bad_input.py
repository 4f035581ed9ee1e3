"""``diagnose`` never stops on bad input: binary data, truncated lines, another program's log, an empty file, a
missing file, a folder, an over-long line, text that is not UTF-8.  Lines it cannot read are counted as "not
recognised" (listed with ``-v``), never written one output line each; a file that cannot be read is an error line
naming it and makes the exit status 1."""
from __future__ import annotations

import json
import random

import pytest

from rebalance.__main__ import main
from rebalance.diagnose import diagnose
from rebalance.diagnose.layout import MAX_LINE

GOOD = ("[2026-11-29 03:51:14,480] INFO [GroupCoordinator id=1 topic=__consumer_offsets partition=0] Preparing to "
        "rebalance group g in state PreparingRebalance with old generation 1 (reason: removing member "
        "c1-5d283b65-fe25-4735-9143-ee3f7f195b71 on heartbeat expiration.). "
        "(org.apache.kafka.coordinator.group.GroupMetadataManager)\n")


def _run(capsys, *argv: str):
    code = main(["diagnose", *argv])
    out, err = capsys.readouterr()
    return code, [json.loads(line) for line in out.splitlines()], err


def _log(lines, name):
    return next(line["log"] for line in lines if "log" in line and line["log"]["file"] == name)


def test_binary_data(tmp_path, capsys):
    blob = tmp_path / "core.bin"
    rng = random.Random(7)
    blob.write_bytes(bytes(rng.randrange(256) for _ in range(200_000)))
    code, lines, _ = _run(capsys, str(blob))
    log = _log(lines, str(blob))
    assert code == 0 and log["error"] is None
    assert log["recognised"] == 0 and log["not_recognised"] > 0
    assert all("log" in line for line in lines)   # no rebalance, no line per unreadable line


def test_a_good_line_after_binary_garbage_and_nul_bytes_is_still_read(tmp_path, capsys):
    f = tmp_path / "mixed.log"
    f.write_bytes(b"\x00\xff\xfe garbage \x00\n" + b"\xc3\x28 not utf-8\n" + GOOD.encode() + b"\x00" * 50)
    code, lines, _ = _run(capsys, str(f))
    rebalances = [line for line in lines if "trigger" in line]
    assert code == 0 and [r["trigger"]["kind"] for r in rebalances] == ["session timeout"]
    assert _log(lines, str(f))["not_recognised"] == 3


def test_truncated_lines(tmp_path, capsys):
    """A log cut anywhere in a line (a copy taken while the broker wrote): the cut line is not recognised, or read as
    far as it goes; never an error."""
    for cut in range(0, len(GOOD), 7):
        f = tmp_path / f"cut{cut}.log"
        f.write_text(GOOD + GOOD[:cut], encoding="utf-8")
        code, lines, _ = _run(capsys, str(f))
        assert code == 0
        assert _log(lines, str(f))["recognised"] >= 1


def test_another_programs_log(tmp_path, capsys):
    f = tmp_path / "other.log"
    f.write_text(
        '127.0.0.1 - - [29/Nov/2026:03:51:14 +0000] "GET / HTTP/1.1" 200 612 "-" "curl/8.5.0"\n'
        "Nov 29 03:51:14 host systemd[1]: Started Session 3 of User root.\n"
        "{\"level\": \"info\", \"msg\": \"json logs\"}\n"
        "[2026-11-29 03:51:14,480] INFO Starting the server (com.example.Server)\n"
        "2026-11-29T03:51:14.480Z INFO  [main] o.a.c.Foo: a log4j line of some other program\n", encoding="utf-8")
    code, lines, err = _run(capsys, str(f))
    log = _log(lines, str(f))
    assert code == 0 and log["recognised"] == 0
    assert log["records"] == 2 and log["other"] == 2 and log["not_recognised"] == 3
    assert "3 line(s) not recognised" in err


def test_a_message_of_several_lines_and_an_exception_belong_to_their_record(tmp_path):
    """A record whose first line has no "(logger)" continues up to the line that has one (kafka-clients' banner); an
    exception's first line after a record is part of it; garbage after a closed record is not."""
    f = tmp_path / "client.log"
    f.write_text("[2026-11-29 03:51:14,480] INFO ****\n* The consumer rebalance protocol (KIP-848) is production-ready!\n"
                 "**** (org.apache.kafka.clients.consumer.internals.ClassicKafkaConsumer)\n"
                 "[2026-11-29 03:51:14,481] ERROR failed (org.apache.kafka.clients.consumer.internals.ConsumerUtils)\n"
                 "java.util.concurrent.CompletionException: org.apache.kafka.common.errors.TimeoutException: x\n"
                 "\tat java.base/java.lang.Thread.run(Thread.java:840)\n"
                 "free text that belongs to nothing\n", encoding="utf-8")
    log = diagnose([str(f)]).logs[0]
    assert (log["records"], log["continuation"], log["not_recognised"]) == (2, 4, 1)


def test_verbose_lists_the_lines_not_recognised(tmp_path, capsys):
    f = tmp_path / "other.log"
    f.write_text("first bad line\n" + GOOD + "second bad line\n", encoding="utf-8")
    _, lines, _ = _run(capsys, "-v", str(f))
    listed = [line["not_recognised"] for line in lines if "not_recognised" in line]
    assert [(u["line"], u["text"]) for u in listed] == [(1, "first bad line"), (3, "second bad line")]
    _, quiet, _ = _run(capsys, str(f))
    assert not any("not_recognised" in line for line in quiet)


def test_a_group_coordinator_line_no_pattern_reads_is_not_recognised(tmp_path):
    """A line of the coordinator's own logger that no pattern knows (another release's text) is counted as not
    recognised, where another logger's unknown line is only "other"."""
    f = tmp_path / "new-release.log"
    f.write_text("[2026-11-29 03:51:14,480] INFO Rebalancing group g because the moon is full "
                 "(org.apache.kafka.coordinator.group.GroupMetadataManager)\n", encoding="utf-8")
    log = diagnose([str(f)]).logs[0]
    assert log["not_recognised"] == 1 and log["other"] == 0


def test_empty_file(tmp_path, capsys):
    f = tmp_path / "empty.log"
    f.write_bytes(b"")
    code, lines, _ = _run(capsys, str(f))
    assert code == 0 and lines == [{"log": {"file": str(f), "lines": 0, "records": 0, "continuation": 0,
                                            "recognised": 0, "broker": 0, "client": 0, "other": 0,
                                            "not_recognised": 0, "error": None}}]


def test_a_missing_file_and_a_folder_are_error_lines_and_the_others_are_still_read(tmp_path, capsys):
    good = tmp_path / "server.log"
    good.write_text(GOOD, encoding="utf-8")
    missing = tmp_path / "nope.log"
    code, lines, err = _run(capsys, str(missing), str(tmp_path), str(good))
    assert code == 1
    assert _log(lines, str(missing))["error"] == "cannot read file (No such file or directory)"
    assert _log(lines, str(tmp_path))["error"].startswith("cannot read file")
    assert _log(lines, str(good))["recognised"] == 1
    assert [line["trigger"]["kind"] for line in lines if "trigger" in line] == ["session timeout"]
    assert f"{missing}: cannot read file" in err


def test_an_over_long_line_is_cut_and_the_next_line_read(tmp_path, capsys):
    f = tmp_path / "long.log"
    f.write_bytes(b"x" * (MAX_LINE * 3 + 5) + b"\n" + GOOD.encode())
    code, lines, _ = _run(capsys, str(f))
    log = _log(lines, str(f))
    assert code == 0 and log["lines"] == 2 and log["recognised"] == 1 and log["not_recognised"] == 1


def test_odd_fields_in_a_recognised_line_never_stop_it(tmp_path, capsys):
    """Lines of the right shape with odd contents: a generation past any int, lines of one group out of order, a
    group whose name has spaces and brackets."""
    f = tmp_path / "odd.log"
    f.write_text(
        "[2026-11-29 03:51:14,480] INFO Stabilized group g generation 99999999999999999999999 with 1 members. "
        "(org.apache.kafka.coordinator.group.GroupMetadataManager)\n"
        "[2026-11-29 03:51:14,481] INFO Assignment received from leader m for group g for generation 3. The group has "
        "1 members, 0 of which are static. (org.apache.kafka.coordinator.group.GroupMetadataManager)\n"
        "[2026-11-29 03:51:14,482] INFO Group weird (name) [x] with generation 4 is now empty. "
        "(org.apache.kafka.coordinator.group.GroupMetadataManager)\n"
        "[2026-11-29 03:51:14,483] INFO [GroupId g] Bumped group epoch to 7 with metadata hash 1. "
        "(org.apache.kafka.coordinator.group.GroupMetadataManager)\n", encoding="utf-8")
    code, lines, _ = _run(capsys, str(f))
    assert code == 0
    groups = {line["group"] for line in lines if "trigger" in line}
    assert groups == {"g", "weird (name) [x]"}


@pytest.mark.parametrize("seed", range(5))
def test_random_mutations_of_a_real_log_never_stop_it(tmp_path, seed):
    """Bytes flipped and lines shuffled in a real broker log: diagnose reads every line and returns."""
    from pathlib import Path

    base = (Path(__file__).parent / "logs" / "classic-4.3.1.log").read_bytes()
    rng = random.Random(seed)
    data = bytearray(base)
    for _ in range(300):
        data[rng.randrange(len(data))] = rng.randrange(256)
    lines = bytes(data).split(b"\n")
    rng.shuffle(lines)
    f = tmp_path / "mutated.log"
    f.write_bytes(b"\n".join(lines))
    log = diagnose([str(f)]).logs[0]
    assert log["error"] is None and log["lines"] == len(lines) - (1 if lines[-1] == b"" else 0)
