package org.rebalance.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;
import org.apache.kafka.coordinator.group.assignor.SimpleAssignor;
import org.apache.kafka.coordinator.group.modern.Assignment;
import org.apache.kafka.coordinator.group.modern.GroupSpecImpl;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * {@code share}: KIP-932's server-side share-group assignor, {@link SimpleAssignor} of the kafka-group-coordinator jar
 * on the classpath (the book pins 4.3.1), replayed step by step against one evolving share group. The schema is
 * kafka-vectors/README.md, "Input schema — share" and "Output schema — share"; the Python package's
 * {@code rebalance.share.vectors} models the same harness.
 *
 * <p>A step is built as {@code TargetAssignmentBuilder.build} builds it for a share group, with the {@code group}
 * kind's harness ({@link GroupKind}: topics, members, {@code "carry"}, the collection switches {@code members_map},
 * {@code subscription_set}, {@code assignment_map}, {@code subscription_type}), plus the share group's
 * {@code topicPartitionAllowedMap} ({@code assignable}: {@code {topic: [partitions]}}, the initialized partitions
 * {@code GroupMetadataManager} passes through {@code withTopicAssignablePartitionsMap}); without {@code assignable}
 * the spec is {@code GroupSpecImpl}'s three-argument constructor, where every partition is assignable, as in
 * {@code SimpleAssignorTest}.
 *
 * <p>{@code builder} names the code that computed the step (Kafka does not report it; it follows from the dispatch of
 * {@code SimpleAssignor.assign}, lines 67-79 in 4.3.1): none for a group without members,
 * {@code SimpleHomogeneousAssignmentBuilder} or {@code SimpleHeterogeneousAssignmentBuilder} by the spec's
 * subscription type ({@code SimpleAssignor.assignHomogenous} / {@code assignHeterogeneous} on a release without
 * the builders: 3.9.x, whose early-access assignor gave every member every partition it subscribes to, and lacks
 * {@code GroupSpecImpl}'s fourth argument, so a line with {@code assignable} cannot run there). An exception thrown by {@code assign} is the step's {@code error}; the group keeps its previous
 * result. The output's members and topics are sorted (a share group's partition may go to several members, so there
 * is no owner map as in {@code group}).
 */
public final class ShareKind implements Kind {
    private static final SimpleAssignor ASSIGNOR = new SimpleAssignor();
    /**
     * Whether the release on the classpath has the two builders (4.1 on; 4.3.1 certainly). Kafka 3.9's
     * {@code SimpleAssignor} (KIP-932 early access) computed everything in its own methods {@code assignHomogenous}
     * and {@code assignHeterogeneous}, giving every member every partition of the topics it subscribes to.
     */
    private static final boolean HAS_BUILDERS = classExists(
        "org.apache.kafka.coordinator.group.assignor.SimpleHomogeneousAssignmentBuilder");
    /** What a step's {@code expect} may hold. */
    private static final List<String> EXPECT_KEYS = List.of("assignment", "error", "partitions_assigned");

    @Override
    public JsonNode run(JsonNode scenario) {
        String assignorName = Json.optString(scenario, "assignor", ASSIGNOR.name());
        if (!assignorName.equals(ASSIGNOR.name())) {
            throw new InputException("assignor", "assignor must be " + ASSIGNOR.name() + ", got " + assignorName);
        }
        GroupTopics topics = GroupTopics.parse(Json.opt(scenario, "topics"), "topics");
        JsonNode members = Json.opt(scenario, "members");
        String membersDot = "";  // where the member list in force was given: an error names its field there
        Map<String, Map<Uuid, Set<Integer>>> previous = null;
        boolean ok = true;
        ArrayNode steps = Json.array();
        JsonNode stepsNode = Json.opt(scenario, "steps");
        List<JsonNode> stepList = new ArrayList<>();
        if (stepsNode == null) {
            stepList.add(scenario);
        } else if (!stepsNode.isArray() || stepsNode.isEmpty()) {
            throw new InputException("steps", "steps must be a non-empty list of steps");
        } else {
            stepsNode.forEach(stepList::add);
        }
        for (int index = 0; index < stepList.size(); index++) {
            JsonNode step = stepList.get(index);
            String field = stepsNode == null ? "" : "steps[" + index + "]";
            String dot = field.isEmpty() ? "" : field + ".";
            if (!step.isObject()) {
                throw new InputException(field.isEmpty() ? "input" : field, "a step must be an object");
            }
            GroupTopics stepTopics = GroupKind.stepTopics(step, field, topics);
            topics = stepTopics;
            if (!field.isEmpty() && step.has("members")) {
                members = Json.opt(step, "members");
                membersDot = dot;
            }
            GroupKind.Switches switches = GroupKind.Switches.of(step, scenario, dot, stepTopics);
            JsonNode assignableNode = GroupKind.Switches.value(step, scenario, "assignable");
            Map<Uuid, Set<Integer>> allowed = parseAssignable(assignableNode, stepTopics,
                GroupKind.Switches.field(step, dot, "assignable"));
            JsonNode expect = expect(Json.opt(step, "expect"), dot + "expect");
            List<GroupKind.Member> stepMembers = GroupKind.parseMembers(members, membersDot + "members");
            Map<String, Assignment> inputs = new LinkedHashMap<>();
            GroupSpecImpl spec = GroupKind.groupSpec(stepMembers, stepTopics, previous, switches, membersDot, inputs,
                allowed);

            ObjectNode out = Json.object();
            out.put("step", index);
            out.put("subscription_type", spec.subscriptionType().name());
            GroupAssignment result = null;
            try {
                result = ASSIGNOR.assign(spec, stepTopics.describer());
            } catch (RuntimeException e) {
                out.put("error", StepExpect.error(e));
            }
            Map<String, Map<String, List<Integer>>> resultByName = null;
            if (result != null) {
                previous = new HashMap<>();
                resultByName = new TreeMap<>();
                for (Map.Entry<String, MemberAssignment> e : result.members().entrySet()) {
                    previous.put(e.getKey(), e.getValue().partitions());
                    resultByName.put(e.getKey(), new TreeMap<>(GroupKind.byName(e.getValue().partitions(), stepTopics, true)));
                }
                if (!spec.memberIds().isEmpty()) {
                    boolean homogeneous = spec.subscriptionType() == SubscriptionType.HOMOGENEOUS;
                    out.put("builder", HAS_BUILDERS
                        ? (homogeneous ? "SimpleHomogeneousAssignmentBuilder" : "SimpleHeterogeneousAssignmentBuilder")
                        : (homogeneous ? "SimpleAssignor.assignHomogenous" : "SimpleAssignor.assignHeterogeneous"));
                }
                ObjectNode assignment = Json.object();
                resultByName.forEach((member, byTopic) -> assignment.set(member, GroupKind.topicsJson(byTopic)));
                out.set("assignment", assignment);
                Map<String, Map<String, List<Integer>>> inputByName = new LinkedHashMap<>();
                inputs.forEach((id, a) -> inputByName.put(id, GroupKind.byName(a.partitions(), stepTopics, false)));
                out.set("stats", stats(inputByName, resultByName));
            }
            if (expect != null && !StepExpect.report(out, checkExpect(expect, out))) {
                ok = false;
            }
            steps.add(out);
        }
        ObjectNode out = Json.object();
        out.set("id", scenario.get("id"));
        out.put("kind", "share");
        out.put("assignor", ASSIGNOR.name());
        out.set("steps", steps);
        out.put("ok", ok);
        return out;
    }

    private static boolean classExists(String name) {
        try {
            Class.forName(name, false, ShareKind.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /** {@code {topic: [partitions]}} as {@code topicPartitionAllowedMap}'s map, or null when absent (or JSON null). */
    private static Map<Uuid, Set<Integer>> parseAssignable(JsonNode value, GroupTopics catalog, String field) {
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isObject()) {
            throw new InputException(field, "assignable must be an object {topic: [partitions]} or null");
        }
        Map<Uuid, Set<Integer>> allowed = new HashMap<>();
        value.properties().forEach(e -> {
            String tf = field + "." + e.getKey();
            Uuid topicId = catalog.resolve(e.getKey(), tf);
            if (!e.getValue().isArray()) {
                throw new InputException(tf, "must be a list of partition numbers");
            }
            Set<Integer> partitions = new HashSet<>();
            for (JsonNode p : e.getValue()) {
                if (!p.isIntegralNumber() || !p.canConvertToInt()) {
                    throw new InputException(tf, "must be a list of partition numbers");
                }
                partitions.add(p.intValue());
            }
            allowed.put(topicId, partitions);
        });
        return allowed;
    }

    /**
     * {@code assigned_total}: the members' partitions summed; {@code partitions_assigned}: the distinct partitions
     * assigned (what {@code SimpleAssignorTest.assertEveryPartitionGetsAssignment} counts); {@code max_sharing}: the
     * most members one partition went to; {@code kept}/{@code revoked}: the partitions of the members' input
     * assignments that the same member has / no longer has; {@code min}/{@code max}: member sizes.
     */
    private static ObjectNode stats(Map<String, Map<String, List<Integer>>> inputs,
                                    Map<String, Map<String, List<Integer>>> result) {
        Map<String, Integer> sharing = new HashMap<>();
        result.values().forEach(byTopic -> byTopic.forEach((topic, partitions) ->
            partitions.forEach(p -> sharing.merge(topic + "\u0000" + p, 1, Integer::sum))));
        StepExpect.Sizes sizes = StepExpect.Sizes.of(result);
        StepExpect.Moves moves = StepExpect.Moves.of(inputs, (member, topic, p) ->
            result.getOrDefault(member, Map.of()).getOrDefault(topic, List.of()).contains(p) ? member : null);
        ObjectNode stats = Json.object();
        stats.put("assigned_total", sizes.total());
        stats.put("partitions_assigned", sharing.size());
        stats.put("max_sharing", sharing.values().stream().mapToInt(Integer::intValue).max().orElse(0));
        stats.put("kept", moves.kept());
        stats.put("revoked", moves.revoked());
        sizes.putMinMax(stats);
        return stats;
    }

    /**
     * A step's {@code expect}, checked: {@code {"assignment": {member: {topic: [partitions]}}, "error": "start of the
     * message", "partitions_assigned": n}}, each optional; null when absent.
     */
    private static JsonNode expect(JsonNode value, String field) {
        return StepExpect.parse(value, field, EXPECT_KEYS, (expect, where) -> {
            JsonNode count = Json.opt(expect, "partitions_assigned");
            if (count != null && !(count.isIntegralNumber() && count.canConvertToInt() && count.intValue() >= 0)) {
                throw new InputException(where + ".partitions_assigned", "must be a whole number >= 0, got " + count);
            }
        });
    }

    /**
     * The step's {@code expect}: an error prefix, an exact assignment ({@link StepExpect#check}), the count of
     * distinct partitions assigned.
     */
    private static List<String> checkExpect(JsonNode expect, ObjectNode stepOut) {
        List<String> failures = StepExpect.check(expect, stepOut);
        JsonNode count = Json.opt(expect, "partitions_assigned");
        if (count != null) {
            JsonNode stats = stepOut.get("stats");
            int got = stats == null ? -1 : stats.get("partitions_assigned").intValue();
            if (got != count.intValue()) {
                failures.add("expected " + count.intValue() + " partitions assigned, got "
                    + (got < 0 ? "no result" : String.valueOf(got)));
            }
        }
        return failures;
    }
}
