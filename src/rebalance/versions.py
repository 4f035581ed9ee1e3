"""The Kafka release the book models, in one place.

:data:`KAFKA_VERSION` is the release whose jars the Java module pins (``kafka.version`` in ``java/pom.xml``;
a test keeps the two equal): the package's algorithms follow it, the vectors are recomputed by it
(``make vectors``) and the book's prose names it.  Kafka 4.4.0's class jars resolve too, but Maven Central
serves no ``-sources`` or ``test`` jars for it (measured 2026-11-27), and the book cites Kafka's source by
line: 4.3.1 is the newest release with all three.

:data:`ADMINUTILS_RELEASE` is the last release with ``org.apache.kafka.admin.AdminUtils``: ZooKeeper mode's replica
assignment up to 3.9, which 4.0 kept (the same source as 3.9.2) only for ``kafka-reassign-partitions --generate``
(``ReassignPartitionsCommand`` at 4.0.0, line 585); by 4.3.1 that tool uses ``StripedReplicaPlacer`` and the class
is gone.  Chapter 12 teaches it as history, checked against that release's jar.

:data:`KAFKA_3_RELEASE` is the last 3.x release, the one the pinned release is set against in the book's "what
changed in Kafka 4" table (``kafka-vectors/releases.json``).
"""
from __future__ import annotations

KAFKA_VERSION = "4.3.1"
ADMINUTILS_RELEASE = "4.0.2"
KAFKA_3_RELEASE = "3.9.2"

__all__ = ["ADMINUTILS_RELEASE", "KAFKA_3_RELEASE", "KAFKA_VERSION"]
