"""``kafka-consumer-groups.sh --describe``: Kafka's own ``ConsumerGroupCommand`` run against a cluster.

``bin/kafka-consumer-groups.sh`` runs ``org.apache.kafka.tools.consumer.group.ConsumerGroupCommand`` of the
``kafka-tools`` jar (4.3.1, in the distribution's ``libs/``; here in the broker's classpath,
``java/target/broker-RELEASE``, resolved from Maven Central by ``make java``).  :func:`describe_group` runs it
in a JVM of its own (:class:`~rebalance.kafka.jvm.JvmProcess`) with ``--describe --group G`` and ``--members
--verbose`` or ``--state``, and returns what it printed; :func:`parse_table` reads its table (left-aligned
columns under a header, as ``ConsumerGroupCommand.printMembers`` and ``printStates`` format them), and
:func:`normalise_rows` replaces what changes from run to run (the group id, member ids, hosts, ports) so that a
chapter can print it.

Defined in chapter 16, *Diagnosing rebalances*.
"""
from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path
from typing import Dict, List, Mapping, Optional

from ..errors import LiveClientError
from ..validation import require
from ..versions import KAFKA_VERSION
from .jvm import CLIENT_JVM_OPTIONS, JvmProcess, broker_lib, log4j2_properties

__all__ = ["MAIN_CLASS", "VIEWS", "describe_group", "parse_table", "normalise_rows"]

MAIN_CLASS = "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand"
#: the views :func:`describe_group` asks for -> the command's options after ``--describe --group G``
VIEWS = {"members": ("--members", "--verbose"), "state": ("--state",), "offsets": ("--offsets",)}
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
#: a consumer-protocol member id: a ``Uuid`` in Kafka's URL-safe base64 (22 characters)
_BASE64_ID = re.compile(r"^[A-Za-z0-9_-]{22}$")


def describe_group(bootstrap: str, group: str, view: str = "members", timeout: float = 60.0,
                   folder: Optional[Path] = None, release: str = KAFKA_VERSION) -> str:
    """What ``kafka-consumer-groups.sh --bootstrap-server B --describe --group G <view's options>`` prints
    (its stdout) for ``view`` ``members``, ``state`` or ``offsets`` (:data:`VIEWS`).  The JVM's log lines go to
    a file of ``folder`` (a temporary one, removed after, when none is given); a command that fails (its exit
    status is not 0) or runs longer than ``timeout`` s is a :class:`~rebalance.errors.LiveClientError` with the
    tail of its stderr."""
    require(view in VIEWS, "view", f"must be one of {', '.join(VIEWS)}, got {view!r}")
    require(bool(group), "group", "must be a group id")
    own = folder is None
    where = Path(tempfile.mkdtemp(prefix="rebalance-groups-")) if folder is None else folder
    jvm = JvmProcess(f"consumer-groups-{view}", MAIN_CLASS, [str(broker_lib(release) / "*")], where,
                     ["--bootstrap-server", bootstrap, "--describe", "--group", group, *VIEWS[view]],
                     heap="128m", jvm_options=CLIENT_JVM_OPTIONS, log4j2=log4j2_properties("ConsumerGroupCommand"))
    try:
        jvm.start()
        code = jvm.wait(timeout)
        if code is None:
            raise LiveClientError(f"kafka-consumer-groups --describe {view}: no answer within {timeout:g} s\n"
                                  f"{jvm.stderr_tail()}")
        if code != 0:
            raise LiveClientError(f"kafka-consumer-groups --describe {view} exited with {code}\n{jvm.stderr_tail()}")
        return jvm.out_file.read_text(encoding="utf-8", errors="replace")
    finally:
        jvm.stop()
        if own:
            shutil.rmtree(where, ignore_errors=True)


def parse_table(text: str) -> List[Dict[str, str]]:
    """The rows of the first table in ``text``: the header line is the first whose every word is in capitals
    (``GROUP  CONSUMER-ID ...``); each column runs from its header's first character to the next header's (the
    command pads every column to its widest cell with ``%-Ns``, so a value never starts left of its header).
    Blank lines end it; lines before the header (a note such as ``Consumer group 'g' has no active members``)
    are left out."""
    lines = text.splitlines()
    head = next((k for k, line in enumerate(lines)
                 if line.strip() and all(re.fullmatch(r"[A-Z#-]+(?:\(ID\))?|\(ID\)", w) for w in line.split())), None)
    if head is None:
        return []
    header = lines[head]
    starts = [m.start() for m in re.finditer(r"(?<!\S)\S", header)]
    # "COORDINATOR (ID)" is one column whose header holds a space
    names: List[str] = []
    bounds: List[int] = []
    for k, start in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(header)
        word = header[start:end].strip()
        if word == "(ID)" and names:
            names[-1] += " (ID)"
            continue
        names.append(word)
        bounds.append(start)
    rows: List[Dict[str, str]] = []
    for line in lines[head + 1:]:
        if not line.strip():
            break
        row = {}
        for k, name in enumerate(names):
            end = bounds[k + 1] if k + 1 < len(bounds) else len(line)
            row[name] = line[bounds[k]:end].strip()
        rows.append(row)
    return rows


def normalise_rows(rows: List[Dict[str, str]], group_label: str = "<group>",
                   names: Optional[Mapping[str, str]] = None) -> List[Dict[str, str]]:
    """``rows`` of :func:`parse_table` with what changes from run to run replaced: ``GROUP`` by
    ``group_label``, a classic member id's UUID (``<client.id>-<UUID>``) by ``<id>``, a consumer-protocol member id
    by its name in ``names`` (member id -> name) or ``<member-id>``, a host (``/127.0.0.1``) by ``/HOST`` and a
    coordinator's ``host:port`` by ``HOST:PORT``."""
    out = []
    for row in rows:
        new = {}
        for key, value in row.items():
            if key == "GROUP":
                value = group_label
            elif key == "CONSUMER-ID":
                if names and value in names:
                    value = f"<{names[value]}'s member id>"
                elif _BASE64_ID.match(value):
                    value = "<member-id>"
                else:
                    value = _UUID.sub("<id>", value)
            elif key == "HOST":
                value = re.sub(r"^/.*$", "/HOST", value)
            elif key.startswith("COORDINATOR"):
                value = re.sub(r"^\S+:\d+", "HOST:PORT", value)
                value = re.sub(r"\s+", " ", value)
            new[key] = value
        out.append(new)
    return out
