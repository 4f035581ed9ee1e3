package org.rebalance.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.coordinator.group.streams.assignor.AssignmentMemberSpec;
import org.apache.kafka.coordinator.group.streams.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.streams.assignor.GroupSpecImpl;
import org.apache.kafka.coordinator.group.streams.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.streams.assignor.StickyTaskAssignor;
import org.apache.kafka.coordinator.group.streams.assignor.TaskAssignor;
import org.apache.kafka.coordinator.group.streams.assignor.TopologyDescriber;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * {@code streams_group}: the streams group's (KIP-1071) broker-side task assignor,
 * {@link StickyTaskAssignor} of the kafka-group-coordinator jar on the classpath (the book pins 4.3.1), called once
 * on one group. The schema is kafka-vectors/README.md, "Input schema — streams_group" and "Output schema —
 * streams_group"; the Python package's {@code rebalance.streams.coordinator.vectors} models the same harness.
 *
 * <p>The call is built as {@code TargetAssignmentBuilder.build} (4.3.1, lines 250-293) builds it: a
 * {@link GroupSpecImpl} over an unmodifiable member map, a {@link HashMap} filled in input order (or the
 * {@code LinkedHashMap} of Kafka's unit tests' {@code Utils.mkMap}, {@code members_map: "linked"}), of
 * {@link AssignmentMemberSpec}s whose task maps are {@code HashMap}s of {@code HashSet}s; the assignment configs as
 * given (a {@code Map<String, String>}); and a {@link TopologyDescriber} over the input's subtopology list, in its
 * order. An exception thrown by {@code assign} is the line's answer. {@code expect} (the facts of Kafka's unit
 * tests) is not evaluated here: the Python tests check it against the recorded output.
 *
 * <p>The class does not exist before the streams group assignors (3.9.2 lacks it): such a release cannot run these
 * lines ({@code releases}: "only new").
 */
public final class StreamsGroupKind implements Kind {
    private static final Map<String, TaskAssignor> ASSIGNORS = new LinkedHashMap<>();

    static {
        TaskAssignor sticky = new StickyTaskAssignor();
        ASSIGNORS.put(sticky.name(), sticky);
    }

    private static final String NUM_STANDBY_REPLICAS = "num.standby.replicas";
    private static final List<String> TOP_KEYS = List.of("id", "kind", "source", "assignor", "subtopologies",
        "assignment_configs", "members", "members_map", "expect");
    private static final List<String> MEMBER_KEYS = List.of("id", "process", "active", "standby", "warmup",
        "instance_id", "rack");
    private static final List<String> SUBTOPOLOGY_KEYS = List.of("id", "partitions", "stateful");
    private static final Pattern JAVA_INT = Pattern.compile("[+-]?[0-9]+");

    private record Subtopology(String id, int partitions, boolean stateful) {
    }

    @Override
    public JsonNode run(JsonNode in) {
        in.fieldNames().forEachRemaining(key -> {
            if (!TOP_KEYS.contains(key)) {
                throw new InputException(key, "unknown field; expected " + String.join(", ", TOP_KEYS));
            }
        });
        String assignorName = Json.optString(in, "assignor", "sticky");
        TaskAssignor assignor = ASSIGNORS.get(assignorName);
        if (assignor == null) {
            throw new InputException("assignor", "must be one of " + String.join(", ", ASSIGNORS.keySet())
                + ", got " + assignorName);
        }
        List<Subtopology> subtopologies = subtopologies(in);
        Map<String, String> configs = configs(in);
        int standbyReplicas = configs.isEmpty() ? 0 : Integer.parseInt(configs.get(NUM_STANDBY_REPLICAS));
        String membersMap = Json.optString(in, "members_map", "hash");
        if (!membersMap.equals("hash") && !membersMap.equals("linked")) {
            throw new InputException("members_map", "must be one of hash, linked, got " + membersMap);
        }
        JsonNode expect = Json.opt(in, "expect");
        if (expect != null && !expect.isArray()) {
            throw new InputException("expect", "must be a list of checks, got " + expect);
        }
        Map<String, AssignmentMemberSpec> members = membersMap.equals("hash") ? new HashMap<>() : new LinkedHashMap<>();
        Map<String, Map<String, Set<Integer>>> previousActive = new HashMap<>();
        JsonNode list = Json.req(in, "members");
        if (!list.isArray()) {
            throw new InputException("members", "must be a list of {id, process, active?, standby?, warmup?}");
        }
        for (int i = 0; i < list.size(); i++) {
            String field = "members[" + i + "]";
            JsonNode m = list.get(i);
            if (!m.isObject()) {
                throw new InputException(field, "must be an object {id, process, active?, standby?, warmup?}");
            }
            m.fieldNames().forEachRemaining(key -> {
                if (!MEMBER_KEYS.contains(key)) {
                    throw new InputException(field + "." + key, "unknown field; expected " + String.join(", ", MEMBER_KEYS));
                }
            });
            String id = string(m, "id", field);
            if (members.containsKey(id)) {
                throw new InputException(field + ".id", "member id " + id + " is listed twice");
            }
            String process = string(m, "process", field);
            Map<String, Set<Integer>> active = tasks(m, "active", field);
            Map<String, Set<Integer>> standby = tasks(m, "standby", field);
            Map<String, Set<Integer>> warmup = tasks(m, "warmup", field);
            Optional<String> instanceId = Optional.ofNullable(optionalString(m, "instance_id", field));
            Optional<String> rack = Optional.ofNullable(optionalString(m, "rack", field));
            previousActive.put(id, active);
            members.put(id, new AssignmentMemberSpec(instanceId, rack, active, standby, warmup, process,
                Map.of(), Map.of(), Map.of()));
        }

        GroupAssignment result = assignor.assign(new GroupSpecImpl(Collections.unmodifiableMap(members), configs),
            describer(subtopologies));

        ObjectNode out = Json.object();
        out.put("assignor", assignor.name());
        out.put("num_standby_replicas", standbyReplicas);
        ObjectNode assignment = Json.object();
        ObjectNode activeCounts = Json.object();
        ObjectNode standbyCounts = Json.object();
        int kept = 0;
        int standbyAssigned = 0;
        for (Map.Entry<String, MemberAssignment> e : new TreeMap<>(result.members()).entrySet()) {
            MemberAssignment a = e.getValue();
            ObjectNode member = Json.object();
            member.set("active", tasksJson(a.activeTasks()));
            member.set("standby", tasksJson(a.standbyTasks()));
            member.set("warmup", tasksJson(a.warmupTasks()));
            assignment.set(e.getKey(), member);
            activeCounts.put(e.getKey(), count(a.activeTasks()));
            standbyCounts.put(e.getKey(), count(a.standbyTasks()));
            standbyAssigned += count(a.standbyTasks());
            Map<String, Set<Integer>> before = previousActive.getOrDefault(e.getKey(), Map.of());
            for (Map.Entry<String, Set<Integer>> t : a.activeTasks().entrySet()) {
                for (int p : t.getValue()) {
                    if (before.getOrDefault(t.getKey(), Set.of()).contains(p)) {
                        kept++;
                    }
                }
            }
        }
        long standbyWanted = 0;
        for (Subtopology s : subtopologies) {
            if (s.stateful()) {
                standbyWanted += (long) s.partitions() * standbyReplicas;
            }
        }
        out.set("assignment", assignment);
        ObjectNode stats = Json.object();
        stats.set("active", activeCounts);
        stats.set("standby", standbyCounts);
        stats.put("active_kept", kept);
        stats.put("standby_wanted", standbyWanted);
        stats.put("standby_assigned", standbyAssigned);
        out.set("stats", stats);
        return out;
    }

    private static int count(Map<String, Set<Integer>> tasks) {
        return tasks.values().stream().mapToInt(Set::size).sum();
    }

    private static ObjectNode tasksJson(Map<String, Set<Integer>> tasks) {
        ObjectNode out = Json.object();
        new TreeMap<>(tasks).forEach((subtopology, partitions) -> {
            List<Integer> sorted = new ArrayList<>(partitions);
            Collections.sort(sorted);
            out.set(subtopology, Json.ints(sorted));
        });
        return out;
    }

    private static String string(JsonNode node, String key, String where) {
        JsonNode value = node.get(key);
        if (value == null || !value.isTextual()) {
            throw new InputException(where + "." + key, "must be a string, got " + value);
        }
        return value.textValue();
    }

    private static String optionalString(JsonNode node, String key, String where) {
        JsonNode value = node.get(key);
        if (value == null || value.isNull()) {
            return null;
        }
        return string(node, key, where);
    }

    /** {@code {subtopology: [partitions]}} as a {@code HashMap} of {@code HashSet}s (absent or null: empty). */
    private static Map<String, Set<Integer>> tasks(JsonNode node, String key, String where) {
        Map<String, Set<Integer>> out = new HashMap<>();
        JsonNode value = node.get(key);
        if (value == null || value.isNull()) {
            return out;
        }
        String field = where + "." + key;
        if (!value.isObject()) {
            throw new InputException(field, "must be an object {subtopology: [partitions]}, got " + value);
        }
        value.properties().forEach(e -> {
            JsonNode partitions = e.getValue();
            if (!partitions.isArray() || !partitions.valueStream().allMatch(p -> p.isIntegralNumber() && p.canConvertToInt())) {
                throw new InputException(field + "." + e.getKey(), "must be a list of partition numbers (Java ints), got " + partitions);
            }
            Set<Integer> set = new HashSet<>();
            partitions.forEach(p -> set.add(p.intValue()));
            out.put(e.getKey(), set);
        });
        return out;
    }

    private static List<Subtopology> subtopologies(JsonNode in) {
        JsonNode list = Json.req(in, "subtopologies");
        if (!list.isArray()) {
            throw new InputException("subtopologies", "must be a list of {id, partitions, stateful?}");
        }
        List<Subtopology> out = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < list.size(); i++) {
            String field = "subtopologies[" + i + "]";
            JsonNode s = list.get(i);
            if (!s.isObject()) {
                throw new InputException(field, "must be an object {id, partitions, stateful?}");
            }
            s.fieldNames().forEachRemaining(key -> {
                if (!SUBTOPOLOGY_KEYS.contains(key)) {
                    throw new InputException(field + "." + key, "unknown field; expected " + String.join(", ", SUBTOPOLOGY_KEYS));
                }
            });
            String id = string(s, "id", field);
            if (!seen.add(id)) {
                throw new InputException(field + ".id", "subtopology id " + id + " is listed twice");
            }
            JsonNode partitions = s.get("partitions");
            if (partitions == null || !partitions.isIntegralNumber() || !partitions.canConvertToInt() || partitions.intValue() < 0) {
                throw new InputException(field + ".partitions", "must be a whole number >= 0 (a Java int), got " + partitions);
            }
            JsonNode stateful = s.get("stateful");
            if (stateful != null && !stateful.isNull() && !stateful.isBoolean()) {
                throw new InputException(field + ".stateful", "must be true or false, got " + stateful);
            }
            out.add(new Subtopology(id, partitions.intValue(), stateful != null && stateful.booleanValue()));
        }
        return out;
    }

    /** The assignment configs; when not empty, {@code num.standby.replicas} must be a whole number >= 0. */
    private static Map<String, String> configs(JsonNode in) {
        Map<String, String> out = new HashMap<>();
        JsonNode value = Json.opt(in, "assignment_configs");
        if (value == null) {
            return out;
        }
        if (!value.isObject()) {
            throw new InputException("assignment_configs", "must be an object {name: string value}, got " + value);
        }
        value.properties().forEach(e -> {
            if (!e.getValue().isTextual()) {
                throw new InputException("assignment_configs." + e.getKey(), "must be a string, got " + e.getValue());
            }
            out.put(e.getKey(), e.getValue().textValue());
        });
        if (!out.isEmpty()) {
            String n = out.get(NUM_STANDBY_REPLICAS);
            String field = "assignment_configs." + NUM_STANDBY_REPLICAS;
            if (n == null) {
                throw new InputException(field, "must be set when assignment_configs is not empty "
                    + "(StickyTaskAssignor parses it with Integer.parseInt)");
            }
            int parsed;
            try {
                parsed = JAVA_INT.matcher(n).matches() ? Integer.parseInt(n) : -1;
            } catch (NumberFormatException x) {
                parsed = -1;
            }
            if (parsed < 0) {
                throw new InputException(field, "must be a whole number >= 0 (a Java int, as a string), got " + n);
            }
        }
        return out;
    }

    private static TopologyDescriber describer(List<Subtopology> subtopologies) {
        Map<String, Subtopology> byId = new HashMap<>();
        List<String> ids = new ArrayList<>();
        for (Subtopology s : subtopologies) {
            byId.put(s.id(), s);
            ids.add(s.id());
        }
        return new TopologyDescriber() {
            @Override
            public List<String> subtopologies() {
                return ids;
            }

            @Override
            public int maxNumInputPartitions(String subtopologyId) {
                Subtopology s = byId.get(subtopologyId);
                if (s == null) {
                    throw new NoSuchElementException("Topology does not contain subtopology " + subtopologyId);
                }
                return s.partitions();
            }

            @Override
            public boolean isStateful(String subtopologyId) {
                Subtopology s = byId.get(subtopologyId);
                if (s == null) {
                    throw new NoSuchElementException("Topology does not contain subtopology " + subtopologyId);
                }
                return s.stateful();
            }
        };
    }
}
