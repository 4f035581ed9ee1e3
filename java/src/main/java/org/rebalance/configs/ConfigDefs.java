package org.rebalance.configs;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.utils.AppInfoParser;
import org.apache.kafka.coordinator.group.GroupConfig;
import org.apache.kafka.coordinator.group.GroupCoordinatorConfig;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Prints, as one JSON object on stdout, every entry of three of Kafka's {@link ConfigDef}s as the jars on the
 * classpath define them: the consumer's ({@code ConsumerConfig.configDef()}), the broker's group coordinator's
 * ({@code GroupCoordinatorConfig.CONFIG_DEF}) and the per-group overrides' ({@code GroupConfig.CONFIG_DEF}).
 * Each entry: the class, the name, the type, the default (a number or a boolean as such, anything else as
 * {@code ConfigDef.convertToString} writes it, {@code null} when there is none), the validator as its
 * {@code toString} (e.g. {@code [1,...]}), the importance and the documentation.  Read by
 * {@code rebalance.timeouts.config_def} (chapter 17, <i>Setting the timeouts</i>); it only reads Kafka's
 * definitions and re-implements nothing.
 */
public final class ConfigDefs {
    private ConfigDefs() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, ConfigDef> defs = new LinkedHashMap<>();
        defs.put("ConsumerConfig", ConsumerConfig.configDef());
        defs.put("GroupCoordinatorConfig", GroupCoordinatorConfig.CONFIG_DEF);
        defs.put("GroupConfig", GroupConfig.CONFIG_DEF);
        JsonNodeFactory f = JsonNodeFactory.instance;
        ObjectNode out = f.objectNode();
        out.put("release", AppInfoParser.getVersion());
        ArrayNode configs = out.putArray("configs");
        for (Map.Entry<String, ConfigDef> def : defs.entrySet()) {
            for (ConfigDef.ConfigKey key : new TreeMap<>(def.getValue().configKeys()).values()) {
                ObjectNode row = configs.addObject();
                row.put("class", def.getKey());
                row.put("name", key.name);
                row.put("type", key.type.name());
                Object value = key.defaultValue;
                if (value == ConfigDef.NO_DEFAULT_VALUE || value == null) {
                    row.putNull("default");
                } else if (value instanceof Integer || value instanceof Short) {
                    row.put("default", ((Number) value).intValue());
                } else if (value instanceof Long) {
                    row.put("default", (Long) value);
                } else if (value instanceof Double) {
                    row.put("default", (Double) value);
                } else if (value instanceof Boolean) {
                    row.put("default", (Boolean) value);
                } else {
                    row.put("default", ConfigDef.convertToString(value, key.type));
                }
                row.put("required", value == ConfigDef.NO_DEFAULT_VALUE);
                if (key.validator == null) {
                    row.putNull("valid");
                } else {
                    row.put("valid", key.validator.toString());
                }
                row.put("importance", key.importance == null ? null : key.importance.name());
                row.put("documentation", key.documentation);
            }
        }
        System.out.println(new ObjectMapper().writeValueAsString(out));
    }
}
