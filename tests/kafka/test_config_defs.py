"""The package's file of the group settings (``rebalance.kafka.config_defs``) is what the pinned jars define."""
from __future__ import annotations

import json

import pytest

from rebalance import KAFKA_VERSION
from rebalance.errors import InputError
from rebalance.kafka import GROUP_SETTINGS, config_key, default_of, read_config_defs, setting_defs
from rebalance.kafka.config_defs import cache_path, group_settings

from .built import needs_class


@needs_class("configs/ConfigDefs")
def test_the_packaged_file_is_what_the_jars_define():
    release, configs = read_config_defs()
    assert release == KAFKA_VERSION
    assert json.loads(cache_path().read_text()) == {"release": release, "configs": group_settings(configs)}


def test_the_file_holds_every_kept_setting_once():
    defs = setting_defs()
    assert sorted(defs) == sorted(n for names in GROUP_SETTINGS.values() for n in names)
    assert {defs[n]["class"] for n in GROUP_SETTINGS["GroupConfig"]} == {"GroupConfig"}


def test_defaults_and_bad_names():
    assert default_of("session.timeout.ms") == 45_000
    assert default_of("group.consumer.heartbeat.interval.ms") == 5_000
    with pytest.raises(InputError) as e:
        config_key("session.timeout")
    assert e.value.field == "name"
    with pytest.raises(InputError):
        default_of("group.protocol")  # a STRING setting


def test_a_missing_setting_is_named():
    with pytest.raises(InputError, match="defines no 'session.timeout.ms'"):
        group_settings([c for c in setting_defs().values() if c["name"] != "session.timeout.ms"])
