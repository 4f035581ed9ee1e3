"""Chapter 18's claims about the Java client and the coordinator, held to Kafka 4.3.1's ``-sources`` jars (as
``tests/release_claims.py`` reads them): what ``ConsumerConfig`` refuses with ``group.protocol=consumer``, who
accepts a ``SubscriptionPattern``, the migration policies and the refusals of ``GroupMetadataManager``."""
import re
import sys
import zipfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from release_claims import jar_path  # noqa: E402

from rebalance.kip848 import ConsumerGroupMigrationPolicy  # noqa: E402

CLIENTS = jar_path("kafka-clients", "4.3.1")
COORDINATOR = jar_path("kafka-group-coordinator", "4.3.1")
pytestmark = pytest.mark.skipif(not (CLIENTS.exists() and COORDINATOR.exists()),
                                reason="Kafka 4.3.1's -sources jars are not in ~/.m2 (tests/test_release_claims.py fetches them)")


def source(jar: Path, cls: str) -> str:
    with zipfile.ZipFile(jar) as z:
        return z.read(cls.replace(".", "/") + ".java").decode("utf-8")


def unsupported(text: str, name: str) -> list:
    body = re.search(name + r" = List\.of\((.*?)\);", text, re.S)
    assert body, name
    return [s.strip() for s in body.group(1).split(",") if s.strip()]


def test_consumer_protocol_refuses_the_client_side_group_settings():
    cfg = source(CLIENTS, "org.apache.kafka.clients.consumer.ConsumerConfig")
    refused = unsupported(cfg, "CONSUMER_PROTOCOL_UNSUPPORTED_CONFIGS")
    for name in ("PARTITION_ASSIGNMENT_STRATEGY_CONFIG", "HEARTBEAT_INTERVAL_MS_CONFIG", "SESSION_TIMEOUT_MS_CONFIG"):
        assert name in refused
    assert "GROUP_REMOTE_ASSIGNOR_CONFIG" not in refused and "MAX_POLL_INTERVAL_MS_CONFIG" not in refused
    assert "GROUP_REMOTE_ASSIGNOR_CONFIG" in unsupported(cfg, "CLASSIC_PROTOCOL_UNSUPPORTED_CONFIGS")
    assert 'throw new ConfigException(String.join(", ", invalidConfigs) +\n                        " cannot be set when "' in cfg


def test_planted_name_is_not_refused():
    cfg = source(CLIENTS, "org.apache.kafka.clients.consumer.ConsumerConfig")
    assert "AUTO_OFFSET_RESET_CONFIG" not in unsupported(cfg, "CONSUMER_PROTOCOL_UNSUPPORTED_CONFIGS")


def test_subscription_pattern_only_on_the_consumer_protocol():
    classic = source(CLIENTS, "org.apache.kafka.clients.consumer.internals.ClassicKafkaConsumer")
    m = re.search(r"public void subscribe\(SubscriptionPattern pattern, ConsumerRebalanceListener callback\) \{\s*"
                  r"throw new UnsupportedOperationException", classic)
    assert m
    modern = source(CLIENTS, "org.apache.kafka.clients.consumer.internals.AsyncKafkaConsumer")
    assert "public void subscribe(Pattern pattern)" in modern
    assert "subscribeToRegex(pattern, Optional.empty());" in modern
    assert "RE2/J" in source(CLIENTS, "org.apache.kafka.clients.consumer.SubscriptionPattern")


def test_migration_policies_match_kafkas_enum():
    enum = source(COORDINATOR, "org.apache.kafka.coordinator.group.ConsumerGroupMigrationPolicy")
    found = re.findall(r'^\s+([A-Z]+)\("(\w+)", (true|false), (true|false)\)', enum, re.M)
    assert [(name, value, up == "true", down == "true") for name, value, up, down in found] == [
        (p.name, p.value, p.is_upgrade_enabled, p.is_downgrade_enabled) for p in ConsumerGroupMigrationPolicy]
    cfg = source(COORDINATOR, "org.apache.kafka.coordinator.group.GroupCoordinatorConfig")
    assert "CONSUMER_GROUP_MIGRATION_POLICY_DEFAULT = ConsumerGroupMigrationPolicy.BIDIRECTIONAL.toString();" in cfg


def test_coordinator_refusals():
    gmm = source(COORDINATOR, "org.apache.kafka.coordinator.group.GroupMetadataManager")
    upgrade = gmm[gmm.index("private void validateOnlineUpgrade("):]
    upgrade = upgrade[:upgrade.index("\n    }\n")]
    assert "isUpgradeEnabled()" in upgrade and "throw new GroupIdNotFoundException" in upgrade
    assert "usesConsumerGroupProtocol()" in upgrade
    join = gmm[gmm.index("private void throwIfClassicMemberCannotJoinConsumerGroup("):]
    join = join[:join.index("\n    }\n")]
    assert "ConsumerGroupMigrationPolicy.DISABLED" in join and "INCONSISTENT_GROUP_PROTOCOL" in join
    assert "isDowngradeEnabled()" in gmm[gmm.index("private boolean validateOnlineDowngradeWithFencedMembers("):]
    assert "an unsupported custom assignor is in use" in gmm
    assert 'log.info("[GroupId {}] Converted the classic group to a consumer group."' in gmm
    assert 'log.info("[GroupId {}] Converted the consumer group to a classic group."' in gmm
    group = source(COORDINATOR, "org.apache.kafka.coordinator.group.modern.consumer.ConsumerGroup")
    assert 'throw new UnsupportedVersionException("userData from a custom assignor would be lost")' in group
    assert "consumerGroup.setGroupEpoch(classicGroup.generationId());" in group
