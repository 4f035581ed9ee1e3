package org.rebalance.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/** Small JSON helpers shared by the kinds: typed reads that name the field on bad input, and builders. */
public final class Json {
    public static final ObjectMapper MAPPER = new ObjectMapper();
    public static final JsonNodeFactory F = JsonNodeFactory.instance;

    private Json() {
    }

    public static ObjectNode object() {
        return F.objectNode();
    }

    public static ArrayNode array() {
        return F.arrayNode();
    }

    public static ArrayNode strings(Collection<String> values) {
        ArrayNode out = array();
        values.forEach(out::add);
        return out;
    }

    public static ArrayNode ints(Collection<Integer> values) {
        ArrayNode out = array();
        values.forEach(out::add);
        return out;
    }

    /** {@code node.get(field)}, or null when absent or JSON null. */
    public static JsonNode opt(JsonNode node, String field) {
        JsonNode value = node == null ? null : node.get(field);
        return value == null || value.isNull() ? null : value;
    }

    public static JsonNode req(JsonNode node, String field) {
        JsonNode value = opt(node, field);
        if (value == null) {
            throw new InputException(field, "missing field " + field);
        }
        return value;
    }

    public static int reqInt(JsonNode node, String field) {
        JsonNode value = req(node, field);
        if (!value.canConvertToInt() || !value.isIntegralNumber()) {
            throw new InputException(field, field + " must be a 32-bit integer, got " + value);
        }
        return value.intValue();
    }

    public static int optInt(JsonNode node, String field, int dflt) {
        return opt(node, field) == null ? dflt : reqInt(node, field);
    }

    public static long reqLong(JsonNode node, String field) {
        JsonNode value = req(node, field);
        if (!value.isIntegralNumber() || !value.canConvertToLong()) {
            throw new InputException(field, field + " must be a 64-bit integer, got " + value);
        }
        return value.longValue();
    }

    public static long optLong(JsonNode node, String field, long dflt) {
        return opt(node, field) == null ? dflt : reqLong(node, field);
    }

    public static String reqString(JsonNode node, String field) {
        JsonNode value = req(node, field);
        if (!value.isTextual()) {
            throw new InputException(field, field + " must be a string, got " + value);
        }
        return value.textValue();
    }

    public static String optString(JsonNode node, String field, String dflt) {
        return opt(node, field) == null ? dflt : reqString(node, field);
    }

    public static boolean optBool(JsonNode node, String field, boolean dflt) {
        JsonNode value = opt(node, field);
        if (value == null) {
            return dflt;
        }
        if (!value.isBoolean()) {
            throw new InputException(field, field + " must be true or false, got " + value);
        }
        return value.booleanValue();
    }

    public static ArrayNode reqArray(JsonNode node, String field) {
        JsonNode value = req(node, field);
        if (!value.isArray()) {
            throw new InputException(field, field + " must be a list, got " + value);
        }
        return (ArrayNode) value;
    }

    public static ArrayNode optArray(JsonNode node, String field) {
        return opt(node, field) == null ? array() : reqArray(node, field);
    }

    public static ObjectNode reqObject(JsonNode node, String field) {
        JsonNode value = req(node, field);
        if (!value.isObject()) {
            throw new InputException(field, field + " must be an object, got " + value);
        }
        return (ObjectNode) value;
    }

    public static List<String> stringList(JsonNode node, String field) {
        List<String> out = new ArrayList<>();
        int i = 0;
        for (JsonNode item : optArray(node, field)) {
            if (!item.isTextual()) {
                throw new InputException(field + "[" + i + "]", "must be a string, got " + item);
            }
            out.add(item.textValue());
            i++;
        }
        return out;
    }

    /** An error object as the vectors write it: {@code {"type": Java class name, "message"}}. */
    public static ObjectNode error(Throwable t) {
        ObjectNode e = object();
        e.put("type", t.getClass().getName());
        e.put("message", t.getMessage());
        return e;
    }
}
