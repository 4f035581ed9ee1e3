package org.rebalance.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.stream.Collectors;

/**
 * What the step-by-step assignor kinds ({@link GroupKind}, {@link ShareKind}) share about a step: its
 * {@code expect} ({@code {"assignment": {member: {topic: [partitions]}}, "error": "start of the message", ...}}, each
 * kind adding one key of its own, which it checks itself), and the sizes and movements of the step's result that
 * their {@code stats} report.
 */
final class StepExpect {
    private StepExpect() {}

    /**
     * A step's {@code expect}, checked: an object of the {@code keys} (its {@code error} a string, its
     * {@code assignment} {@code {member: {topic: [partitions]}}}); {@code own} checks the kind's own key(s), between
     * the {@code error} and the {@code assignment}. Null when absent.
     */
    static JsonNode parse(JsonNode value, String field, List<String> keys, BiConsumer<JsonNode, String> own) {
        if (value == null) {
            return null;
        }
        if (!value.isObject()) {
            throw new InputException(field, "expect must be an object "
                + keys.stream().map(key -> key + "?").collect(Collectors.joining(", ", "{", "}")));
        }
        value.fieldNames().forEachRemaining(key -> {
            if (!keys.contains(key)) {
                throw new InputException(field + "." + key,
                    "unknown expectation; expected one of " + String.join(", ", keys));
            }
        });
        JsonNode error = Json.opt(value, "error");
        if (error != null && !error.isTextual()) {
            throw new InputException(field + ".error",
                "must be the start of an error message (a string), got " + error);
        }
        own.accept(value, field);
        JsonNode assignment = Json.opt(value, "assignment");
        if (assignment != null) {
            if (!assignment.isObject()) {
                throw new InputException(field + ".assignment", "must be an object {member: {topic: [partitions]}}");
            }
            assignment.properties().forEach(member -> {
                String where = field + ".assignment." + member.getKey();
                if (!member.getValue().isObject()) {
                    throw new InputException(where, "must be an object {topic: [partitions]}");
                }
                member.getValue().properties().forEach(topic -> {
                    JsonNode partitions = topic.getValue();
                    if (!partitions.isArray() || !partitions.valueStream().allMatch(JsonNode::isIntegralNumber)) {
                        throw new InputException(where + "." + topic.getKey(), "must be a list of partition numbers");
                    }
                });
            });
        }
        return value;
    }

    /** The step's {@code expect} as far as the kinds share it: an error prefix, an exact assignment. */
    static List<String> check(JsonNode expect, ObjectNode stepOut) {
        List<String> failures = new ArrayList<>();
        JsonNode error = Json.opt(expect, "error");
        if (error != null) {
            String want = error.textValue();
            String got = stepOut.has("error") ? stepOut.get("error").textValue() : "";
            if (!got.startsWith(want)) {
                failures.add("expected " + want + ", got " + (got.isEmpty() ? "a result" : got));
            }
        }
        JsonNode assignment = Json.opt(expect, "assignment");
        if (assignment != null && !assignment.equals(stepOut.get("assignment"))) {
            failures.add("assignment differs from the expected one");
        }
        return failures;
    }

    /** A step's {@code error} ({@code "SimpleClassName: message"}), whose start {@code expect.error} gives. */
    static String error(RuntimeException e) {
        return e.getClass().getSimpleName() + ": " + (e.getMessage() == null ? "" : e.getMessage());
    }

    /** The {@code failures} of a step's {@code expect} into its output ({@code expect_failures}); true when none. */
    static boolean report(ObjectNode stepOut, List<String> failures) {
        if (failures.isEmpty()) {
            return true;
        }
        stepOut.set("expect_failures", Json.strings(failures));
        return false;
    }

    /** The members' partition counts in a result {@code {member: {topic: [partitions]}}}: their sum, min and max. */
    record Sizes(int total, int min, int max, boolean any) {
        static Sizes of(Map<String, Map<String, List<Integer>>> result) {
            int total = 0;
            int min = Integer.MAX_VALUE;
            int max = Integer.MIN_VALUE;
            for (Map<String, List<Integer>> byTopic : result.values()) {
                int n = size(byTopic);
                total += n;
                min = Math.min(min, n);
                max = Math.max(max, n);
            }
            return new Sizes(total, min, max, !result.isEmpty());
        }

        /** {@code min} and {@code max} into {@code stats}, when the result has members. */
        void putMinMax(ObjectNode stats) {
            if (any) {
                stats.put("min", min);
                stats.put("max", max);
            }
        }
    }

    /** One member's partition count. */
    static int size(Map<String, List<Integer>> assignment) {
        return assignment.values().stream().mapToInt(List::size).sum();
    }

    /** Who holds a partition of a member's input assignment after the step (null: nobody, as far as it knows). */
    interface Holder {
        String of(String member, String topic, int partition);
    }

    /**
     * {@code kept}/{@code revoked}/{@code moved}: the partitions of the members' input assignments whose
     * {@link Holder} is the same member / is not / is another member.
     */
    record Moves(int kept, int revoked, int moved) {
        static Moves of(Map<String, Map<String, List<Integer>>> inputs, Holder holder) {
            int kept = 0;
            int revoked = 0;
            int moved = 0;
            for (Map.Entry<String, Map<String, List<Integer>>> e : inputs.entrySet()) {
                for (Map.Entry<String, List<Integer>> t : e.getValue().entrySet()) {
                    for (int p : t.getValue()) {
                        String now = holder.of(e.getKey(), t.getKey(), p);
                        if (e.getKey().equals(now)) {
                            kept++;
                        } else {
                            revoked++;
                            if (now != null) {
                                moved++;
                            }
                        }
                    }
                }
            }
            return new Moves(kept, revoked, moved);
        }
    }
}
