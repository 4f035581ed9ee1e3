package org.rebalance.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.ConsumerGroupPartitionAssignor;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;
import org.apache.kafka.coordinator.group.assignor.RangeAssignor;
import org.apache.kafka.coordinator.group.assignor.UniformAssignor;
import org.apache.kafka.coordinator.group.modern.Assignment;
import org.apache.kafka.coordinator.group.modern.GroupSpecImpl;
import org.apache.kafka.coordinator.group.modern.MemberSubscriptionAndAssignmentImpl;
import org.apache.kafka.coordinator.group.modern.ModernGroup;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * {@code group}: KIP-848's server-side assignors, {@link UniformAssignor} and {@link RangeAssignor} of the
 * kafka-group-coordinator jar on the classpath (the book pins 4.3.1), replayed step by step against one evolving
 * group. The schema is kafka-vectors/README.md, "Input schema — group", "Output schema — group" and "Reproducing
 * Kafka's orders exactly"; the Python package's {@code rebalance.kip848.vectors} models the same harness.
 *
 * <p>Each step is built as {@code TargetAssignmentBuilder.build} builds it: a {@link GroupSpecImpl} over a member
 * map (a {@link HashMap} filled in input order, or the {@code TreeMap}/{@code LinkedHashMap} some unit tests use,
 * {@code members_map}) of {@link MemberSubscriptionAndAssignmentImpl}s, whose subscribed topic ids are a
 * {@code HashSet} or {@code LinkedHashSet} ({@code subscription_set}) and whose current assignment is Kafka's
 * {@link Assignment} (which wraps it unmodifiable) over a {@code HashMap} of {@code HashSet}s or their linked
 * counterparts ({@code assignment_map}); the inverted assignment partition -> member of the members' assignments
 * (or {@code inverted_assignment}); the subscription type given, else Kafka's own
 * {@link ModernGroup#subscriptionType} over the members' topic counts; and a {@code SubscribedTopicDescriberImpl}
 * over a Kafka metadata image of the step's topics ({@link GroupTopics}). A member whose {@code assignment} is
 * omitted or {@code "carry"} starts from its result in the previous successful step, rebuilt as a fresh map of
 * fresh sets filled in the iteration order of that result, as the recorded harness did.
 *
 * <p>The same compiled class runs on the kafka-group-coordinator of 3.9.2, 4.0.0, 4.1.0 and 4.3.1
 * ({@code check --release}): it is compiled against 4.3.1, and the two calls whose API differs between those
 * releases, the {@code SubscribedTopicDescriberImpl} constructor and {@code ModernGroup.subscriptionType}'s map, go
 * through {@link GroupCompat}, which picks the release's form by reflection.
 *
 * <p>{@code builder} names the code that computed the step. Kafka does not report it; it follows from the dispatch
 * of {@code UniformAssignor.assign} and {@code RangeAssignor.assign} (the same in 3.9.2, 4.0.0, 4.1.0 and 4.3.1:
 * between them only the name constant and {@code Collections.emptyMap()}/{@code Map.of()} changed): a group without
 * members gets the empty assignment from {@code assign} itself (no builder); otherwise the
 * {@link GroupSpec#subscriptionType()} picks {@code UniformHomogeneousAssignmentBuilder} /
 * {@code UniformHeterogeneousAssignmentBuilder}, or {@code RangeAssignor.assignHomogeneousGroup} /
 * {@code assignHeterogeneousGroup}. An exception thrown by {@code assign} is the step's {@code error}
 * ({@code "SimpleClassName: message"}); the group keeps its previous result.
 *
 * <p>The committed vectors were recorded at Kafka commit 1eb7644 (October 2024). Against 4.3.1 only the homogeneous
 * uniform builder answers differently: KAFKA-18688 (apache/kafka#19677) lets any member keep the "+1" partition of
 * an uneven split, where {@code UniformHomogeneousAssignmentBuilder} of 1eb7644 gave it to the first members in
 * {@code memberIds()} order. By release, against the committed (4.3.1) outputs of the 86 lines recorded at 1eb7644
 * (kafka-vectors/group_unit.jsonl, group_uniform.jsonl and group_range.jsonl; group_rules.jsonl came later):
 * 4.1.0 answers all 86 alike (KAFKA-18688 is in 4.1.0; the builders of 4.1.0 and 4.3.1 differ only in form);
 * 4.0.0 differs on the 20 lines KAFKA-18688 changed, only in {@code UniformHomogeneousAssignmentBuilder} steps, and
 * reproduces the 1eb7644 recording on all 86; 3.9.2 differs on those 20 and on 17 more, only in
 * {@code UniformHeterogeneousAssignmentBuilder} steps: 3.9's heterogeneous builder (sticky partitions, then sorted
 * partitions to the least-loaded member, then iterative reassignment with partition-movement tracking) predates its
 * rework KAFKA-17710 (apache/kafka#17385, in 4.0.0). {@code RangeAssignor} is the same algorithm in all four releases.
 * On 3.9.2 and 4.0.0 a topic whose id is {@code Uuid.ZERO_UUID} makes the line fail: their {@code TopicMetadata}
 * rejects it ({@code IllegalArgumentException: Topic id cannot be ZERO_UUID.}).
 */
public final class GroupKind implements Kind {
    /** {@code group.consumer.assignors} default ({@code GroupCoordinatorConfig}): the assignors by {@code name()}. */
    private static final Map<String, ConsumerGroupPartitionAssignor> ASSIGNORS = new LinkedHashMap<>();

    static {
        for (ConsumerGroupPartitionAssignor a : List.of(new UniformAssignor(), new RangeAssignor())) {
            ASSIGNORS.put(a.name(), a);
        }
    }

    /** The fields of a member; {@code memberId} and {@code topics} are accepted spellings of the first two. */
    private static final List<String> MEMBER_KEYS = List.of("id", "subscriptions", "assignment", "instance_id", "rack");
    private static final Map<String, String> MEMBER_ALIASES = Map.of("memberId", "id", "topics", "subscriptions");
    /** What a step's {@code expect} may hold. */
    private static final List<String> EXPECT_KEYS = List.of("assignment", "error", "valid_and_balanced");

    /** A member of one step's input; {@code assignment} null means: carry the previous result. */
    record Member(String id, List<String> subscriptions, JsonNode assignment, String instanceId, String rack) {
    }

    /** A partition by topic name. */
    private record Partition(String topic, int partition) {
    }

    @Override
    public JsonNode run(JsonNode scenario) {
        String assignorName = Json.optString(scenario, "assignor", UniformAssignor.NAME);
        ConsumerGroupPartitionAssignor assignor = ASSIGNORS.get(assignorName);
        if (assignor == null) {
            throw new InputException("assignor", "assignor must be one of " + String.join(", ", ASSIGNORS.keySet())
                + ", got " + assignorName);
        }
        Replay replay = new Replay(assignor, scenario);
        ArrayNode steps = Json.array();
        JsonNode stepsNode = Json.opt(scenario, "steps");
        if (stepsNode == null) {
            steps.add(replay.step(0, scenario, ""));
        } else if (!stepsNode.isArray() || stepsNode.isEmpty()) {
            throw new InputException("steps", "steps must be a non-empty list of steps");
        } else {
            for (int index = 0; index < stepsNode.size(); index++) {
                steps.add(replay.step(index, stepsNode.get(index), "steps[" + index + "]"));
            }
        }
        ObjectNode out = Json.object();
        out.set("id", scenario.get("id"));
        out.put("kind", "group");
        out.put("assignor", assignorName);
        out.set("steps", steps);
        out.put("ok", replay.ok);
        return out;
    }

    /** One scenario's evolving group: what each step inherits from the steps before it. */
    private static final class Replay {
        private final ConsumerGroupPartitionAssignor assignor;
        private final JsonNode scenario;
        /** The topics of the last step (initially the scenario's). */
        private GroupTopics topics;
        /** The member list of the last step that gave one. */
        private JsonNode members;
        /** Each member's partitions in the last result Kafka returned (null before the first). */
        private Map<String, Map<Uuid, Set<Integer>>> previous;
        /** False once an {@code expect} failed. */
        private boolean ok = true;

        Replay(ConsumerGroupPartitionAssignor assignor, JsonNode scenario) {
            this.assignor = assignor;
            this.scenario = scenario;
            this.topics = GroupTopics.parse(Json.opt(scenario, "topics"), "topics");
            this.members = Json.opt(scenario, "members");
        }

        /**
         * Runs one step ({@code field} names it in errors: {@code "steps[2]"}, or {@code ""} when the scenario
         * itself is the only step) and returns its output.
         */
        ObjectNode step(int index, JsonNode step, String field) {
            String dot = field.isEmpty() ? "" : field + ".";
            if (!step.isObject()) {
                throw new InputException(field.isEmpty() ? "input" : field, "a step must be an object");
            }
            GroupTopics stepTopics = stepTopics(step, field, topics);
            topics = stepTopics;
            if (step.has("members")) {
                members = Json.opt(step, "members");
            }

            Switches switches = Switches.of(step, scenario, dot, stepTopics);
            JsonNode expect = expect(Json.opt(step, "expect"), dot + "expect");
            List<Member> stepMembers = parseMembers(members, dot + "members");
            Map<String, Assignment> inputs = new LinkedHashMap<>();
            GroupSpecImpl spec = groupSpec(stepMembers, stepTopics, previous, switches, dot, inputs);
            Map<String, Map<String, List<Integer>>> inputByName = new LinkedHashMap<>();
            inputs.forEach((id, a) -> inputByName.put(id, byName(a.partitions(), stepTopics, false)));

            ObjectNode out = Json.object();
            out.put("step", index);
            out.set("input", materializedInput(stepMembers, inputByName, stepTopics));
            out.put("subscription_type", spec.subscriptionType().name());
            SubscribedTopicDescriber describer = stepTopics.describer();
            GroupAssignment result = null;
            try {
                result = assignor.assign(spec, describer);
            } catch (RuntimeException e) {
                out.put("error", StepExpect.error(e));
            }
            Map<String, Map<String, List<Integer>>> resultByName = null;
            if (result != null) {
                previous = new HashMap<>();
                resultByName = new LinkedHashMap<>();
                for (Map.Entry<String, MemberAssignment> e : result.members().entrySet()) {
                    previous.put(e.getKey(), e.getValue().partitions());
                    resultByName.put(e.getKey(), byName(e.getValue().partitions(), stepTopics, true));
                }
                String builder = builderName(assignor, spec);
                if (builder != null) {
                    out.put("builder", builder);
                }
                out.set("assignment", membersJson(resultByName));
                out.set("stats", stats(inputByName, resultByName));
            }
            if (switches.invertedAssignment() != null) {
                out.put("inverted_assignment_override", true);
            }
            if (expect != null
                && !StepExpect.report(out, checkExpect(expect, out, resultByName, stepTopics, stepMembers))) {
                ok = false;
            }
            return out;
        }
    }

    /**
     * The topics of one step ({@code field} names it: {@code "steps[2]"}, or {@code ""} when the scenario itself is
     * the only step): a listed step's own {@code topics}, else a copy of {@code topics} (the previous step's), then
     * its {@code add_topics} put and its {@code remove_topics} removed.
     */
    static GroupTopics stepTopics(JsonNode step, String field, GroupTopics topics) {
        String dot = field.isEmpty() ? "" : field + ".";
        GroupTopics stepTopics = !field.isEmpty() && Json.opt(step, "topics") != null
            ? GroupTopics.parse(step.get("topics"), dot + "topics") : topics.copy();
        GroupTopics.parseList(Json.opt(step, "add_topics"), dot + "add_topics").forEach(stepTopics::put);
        JsonNode removals = Json.opt(step, "remove_topics");
        if (removals != null && (!removals.isArray() || !removals.valueStream().allMatch(JsonNode::isTextual))) {
            throw new InputException(dot + "remove_topics", "remove_topics must be a list of topic names");
        }
        if (removals != null) {
            removals.forEach(name -> stepTopics.remove(name.textValue()));
        }
        return stepTopics;
    }

    /**
     * The builder {@code assign} dispatched to (see the class comment), or null when the group has no member and
     * {@code assign} answered the empty assignment itself.
     */
    private static String builderName(ConsumerGroupPartitionAssignor assignor, GroupSpec spec) {
        if (spec.memberIds().isEmpty()) {
            return null;
        }
        boolean homogeneous = spec.subscriptionType() == SubscriptionType.HOMOGENEOUS;
        if (assignor instanceof UniformAssignor) {
            return homogeneous ? "UniformHomogeneousAssignmentBuilder" : "UniformHeterogeneousAssignmentBuilder";
        }
        return homogeneous ? "RangeAssignor.assignHomogeneousGroup" : "RangeAssignor.assignHeterogeneousGroup";
    }

    /**
     * The harness switches of one step, each the step's value if it sets one, else the scenario's, else the
     * coordinator's choice: {@code members_map}, {@code assignment_map}, {@code subscription_set} (Java collection
     * kinds), {@code subscription_type} (null: computed) and {@code inverted_assignment} (null: derived).
     */
    record Switches(String membersMap, String assignmentMap, String subscriptionSet,
                            SubscriptionType subscriptionType, Map<Uuid, Map<Integer, String>> invertedAssignment) {
        static Switches of(JsonNode step, JsonNode scenario, String dot, GroupTopics catalog) {
            String membersMap = choice(step, scenario, dot, "members_map", "hash", List.of("hash", "tree", "linked"));
            String assignmentMap = choice(step, scenario, dot, "assignment_map", "hash", List.of("hash", "linked"));
            String subscriptionSet = choice(step, scenario, dot, "subscription_set", "hash", List.of("hash", "linked"));
            String type = choice(step, scenario, dot, "subscription_type", null,
                List.of(SubscriptionType.HOMOGENEOUS.name(), SubscriptionType.HETEROGENEOUS.name()));
            JsonNode inverted = value(step, scenario, "inverted_assignment");
            return new Switches(membersMap, assignmentMap, subscriptionSet,
                type == null ? null : SubscriptionType.valueOf(type),
                inverted == null ? null : parseInverted(inverted, catalog, field(step, dot, "inverted_assignment")));
        }

        /** A switch's value: the step's if it sets one, else the scenario's (null when neither does). */
        static JsonNode value(JsonNode step, JsonNode scenario, String name) {
            JsonNode value = Json.opt(step, name);
            return value != null ? value : Json.opt(scenario, name);
        }

        /** Where a switch comes from: the step's field when the step sets it, else the scenario's. */
        static String field(JsonNode step, String dot, String name) {
            return Json.opt(step, name) != null ? dot + name : name;
        }

        private static String choice(JsonNode step, JsonNode scenario, String dot, String name, String dflt,
                                     List<String> allowed) {
            JsonNode value = value(step, scenario, name);
            if (value == null) {
                return dflt;
            }
            if (!value.isTextual() || !allowed.contains(value.textValue())) {
                throw new InputException(field(step, dot, name), name + " must be one of " + String.join(", ", allowed)
                    + ", got " + value);
            }
            return value.textValue();
        }
    }

    /** {@code [{id, subscriptions, assignment?, instance_id?, rack?}]}, validated (unknown fields refused). */
    static List<Member> parseMembers(JsonNode value, String field) {
        if (value == null || !value.isArray()) {
            throw new InputException(field, field + " must be a list of members");
        }
        List<Member> members = new ArrayList<>();
        int i = 0;
        for (JsonNode m : value) {
            members.add(parseMember(m, field + "[" + i++ + "]"));
        }
        return members;
    }

    private static Member parseMember(JsonNode value, String field) {
        if (!value.isObject()) {
            throw new InputException(field,
                "a member must be an object {id, subscriptions, assignment?, instance_id?, rack?}");
        }
        value.fieldNames().forEachRemaining(key -> {
            if (!MEMBER_KEYS.contains(key) && !MEMBER_ALIASES.containsKey(key)) {
                throw new InputException(field + "." + key,
                    "unknown field; a member has " + String.join(", ", MEMBER_KEYS));
            }
        });
        MEMBER_ALIASES.forEach((alias, name) -> {
            if (value.has(alias) && value.has(name)) {
                throw new InputException(field + "." + alias,
                    alias + " is another spelling of " + name + "; give only one");
            }
        });
        JsonNode id = value.has("id") ? value.get("id") : value.get("memberId");
        if (id == null || !id.isTextual() || id.textValue().isEmpty()) {
            throw new InputException(field + ".id", "a member id must be a non-empty string");
        }
        JsonNode subs = value.has("subscriptions") ? value.get("subscriptions") : value.get("topics");
        List<String> subscriptions = new ArrayList<>();
        if (subs != null && !subs.isNull()) {
            if (!subs.isArray() || !subs.valueStream().allMatch(JsonNode::isTextual)) {
                throw new InputException(field + ".subscriptions",
                    "subscriptions must be a list of topic names (or ids)");
            }
            subs.forEach(s -> subscriptions.add(s.textValue()));
        }
        String instanceId = optText(value, "instance_id", field);
        String rack = optText(value, "rack", field);
        JsonNode assignment = Json.opt(value, "assignment");
        if (assignment != null && assignment.isTextual() && assignment.textValue().equals("carry")) {
            assignment = null;
        }
        return new Member(id.textValue(), subscriptions, assignment, instanceId, rack);
    }

    private static String optText(JsonNode member, String key, String field) {
        JsonNode value = Json.opt(member, key);
        if (value != null && !value.isTextual()) {
            throw new InputException(field + "." + key, key + " must be a string or null, got " + value);
        }
        return value == null ? null : value.textValue();
    }

    /**
     * The step's {@link GroupSpecImpl}; {@code inputs} receives each member's current {@link Assignment} in member
     * order.
     */
    static GroupSpecImpl groupSpec(List<Member> members, GroupTopics catalog,
                                   Map<String, Map<Uuid, Set<Integer>>> previous, Switches switches,
                                   String dot, Map<String, Assignment> inputs) {
        return groupSpec(members, catalog, previous, switches, dot, inputs, null);
    }

    /**
     * As above, with the share group's {@code topicPartitionAllowedMap} ({@code GroupSpecImpl}'s fourth argument,
     * which {@code isPartitionAssignable} reads); null: the three-argument constructor (every partition assignable).
     */
    static GroupSpecImpl groupSpec(List<Member> members, GroupTopics catalog,
                                   Map<String, Map<Uuid, Set<Integer>>> previous, Switches switches,
                                   String dot, Map<String, Assignment> inputs,
                                   Map<Uuid, Set<Integer>> allowed) {
        Map<String, MemberSubscriptionAndAssignmentImpl> specs = switch (switches.membersMap()) {
            case "tree" -> new TreeMap<>();
            case "linked" -> new LinkedHashMap<>();
            default -> new HashMap<>();
        };
        Map<String, Integer> subscribedTopicNames = new HashMap<>();
        for (int i = 0; i < members.size(); i++) {
            Member m = members.get(i);
            String f = dot + "members[" + i + "]";
            if (inputs.containsKey(m.id())) {
                throw new InputException(f + ".id", "duplicate member id " + m.id());
            }
            List<Uuid> subscribed = new ArrayList<>();
            for (int j = 0; j < m.subscriptions().size(); j++) {
                subscribed.add(catalog.resolve(m.subscriptions().get(j), f + ".subscriptions[" + j + "]"));
            }
            // each topic counted once per member, as the group's subscribedTopicNames counts a member's set
            for (String topic : new HashSet<>(m.subscriptions())) {
                subscribedTopicNames.merge(topic, 1, Integer::sum);
            }
            Assignment assignment;
            if (m.assignment() != null) {
                assignment = assignment(parseAssignment(m.assignment(), catalog, f + ".assignment"),
                    switches.assignmentMap());
            } else {
                Map<Uuid, Set<Integer>> carried = previous == null ? null : previous.get(m.id());
                Map<Uuid, List<Integer>> items = new LinkedHashMap<>();
                if (carried != null) {
                    carried.forEach((topicId, partitions) -> items.put(topicId, new ArrayList<>(partitions)));
                }
                assignment = assignment(items, switches.assignmentMap());
            }
            inputs.put(m.id(), assignment);
            specs.put(m.id(), new MemberSubscriptionAndAssignmentImpl(
                Optional.ofNullable(m.rack()),
                Optional.ofNullable(m.instanceId()),
                switches.subscriptionSet().equals("hash") ? new HashSet<>(subscribed) : new LinkedHashSet<>(subscribed),
                assignment));
        }
        SubscriptionType type = switches.subscriptionType() != null ? switches.subscriptionType()
            : GroupCompat.subscriptionType(subscribedTopicNames, members.size());
        Map<Uuid, Map<Integer, String>> inverted = switches.invertedAssignment() != null
            ? switches.invertedAssignment() : invertedAssignment(inputs);
        return allowed == null ? new GroupSpecImpl(Collections.unmodifiableMap(specs), type, inverted)
            : new GroupSpecImpl(Collections.unmodifiableMap(specs), type, inverted, Optional.of(allowed));
    }

    /** {@code {topic: [partitions]}} with topics resolved, in input order. */
    static Map<Uuid, List<Integer>> parseAssignment(JsonNode value, GroupTopics catalog, String field) {
        if (!value.isObject()) {
            throw new InputException(field, "assignment must be an object {topic: [partitions]} or \"carry\"");
        }
        Map<Uuid, List<Integer>> items = new LinkedHashMap<>();
        value.properties().forEach(e -> {
            String tf = field + "." + e.getKey();
            Uuid topicId = catalog.resolve(e.getKey(), tf);
            List<Integer> partitions = new ArrayList<>();
            if (!e.getValue().isArray()) {
                throw new InputException(tf, "must be a list of partition numbers");
            }
            for (JsonNode p : e.getValue()) {
                if (!p.isIntegralNumber() || !p.canConvertToInt()) {
                    throw new InputException(tf, "must be a list of partition numbers");
                }
                partitions.add(p.intValue());
            }
            items.put(topicId, partitions);
        });
        return items;
    }

    /**
     * A member's current assignment as the coordinator holds it: a {@code HashMap} of {@code new HashSet<>(list)}
     * ({@code "hash"}) or a {@code LinkedHashMap} of {@code LinkedHashSet}s ({@code "linked"}), filled in the order
     * given, in Kafka's {@link Assignment}.
     */
    private static Assignment assignment(Map<Uuid, List<Integer>> items, String kind) {
        boolean hash = kind.equals("hash");
        Map<Uuid, Set<Integer>> map = hash ? new HashMap<>() : new LinkedHashMap<>();
        items.forEach((topicId, partitions) ->
            map.put(topicId, hash ? new HashSet<>(partitions) : new LinkedHashSet<>(partitions)));
        return new Assignment(map);
    }

    /** The partition -> member map {@code TargetAssignmentBuilder} keeps next to the target assignment. */
    private static Map<Uuid, Map<Integer, String>> invertedAssignment(Map<String, Assignment> inputs) {
        Map<Uuid, Map<Integer, String>> inverted = new HashMap<>();
        inputs.forEach((memberId, assignment) -> assignment.partitions().forEach((topicId, partitions) -> {
            Map<Integer, String> owners = inverted.computeIfAbsent(topicId, __ -> new HashMap<>());
            partitions.forEach(p -> owners.put(p, memberId));
        }));
        return inverted;
    }

    /** A hand-written inverted assignment {@code {topic: {partition: member}}}. */
    private static Map<Uuid, Map<Integer, String>> parseInverted(JsonNode value, GroupTopics catalog, String field) {
        if (!value.isObject()) {
            throw new InputException(field, "inverted_assignment must be an object {topic: {partition: member}}");
        }
        Map<Uuid, Map<Integer, String>> inverted = new HashMap<>();
        value.properties().forEach(e -> {
            String tf = field + "." + e.getKey();
            Uuid topicId = catalog.resolve(e.getKey(), tf);
            if (!e.getValue().isObject()) {
                throw new InputException(tf, "must be an object {partition: member}");
            }
            Map<Integer, String> owners = new HashMap<>();
            e.getValue().properties().forEach(o -> {
                String where = tf + "." + o.getKey();
                int partition;
                try {
                    partition = Integer.parseInt(o.getKey());
                } catch (NumberFormatException x) {
                    throw new InputException(where,
                        "partition keys must be whole numbers (Java ints), got " + o.getKey());
                }
                if (!o.getValue().isTextual()) {
                    throw new InputException(where, "must be a member id string, got " + o.getValue());
                }
                owners.put(partition, o.getValue().textValue());
            });
            inverted.put(topicId, owners);
        });
        return inverted;
    }

    /**
     * {@code {topics: [{name, id, partitions}], members: [{id, instance_id?, rack?, subscriptions, assignment}]}}:
     * the step as Kafka saw it, each member's assignment in the iteration order of its Java collections.
     */
    private static ObjectNode materializedInput(List<Member> members, Map<String, Map<String, List<Integer>>> inputs,
                                                GroupTopics catalog) {
        ArrayNode topics = Json.array();
        catalog.topics().forEach(t -> topics.add(t.toJson()));
        ArrayNode entries = Json.array();
        for (Member m : members) {
            ObjectNode entry = Json.object();
            entry.put("id", m.id());
            if (m.instanceId() != null) {
                entry.put("instance_id", m.instanceId());
            }
            if (m.rack() != null) {
                entry.put("rack", m.rack());
            }
            entry.set("subscriptions", Json.strings(m.subscriptions()));
            entry.set("assignment", topicsJson(inputs.get(m.id())));
            entries.add(entry);
        }
        ObjectNode input = Json.object();
        input.set("topics", topics);
        input.set("members", entries);
        return input;
    }

    /** A {@code Map<Uuid, Set<Integer>>} by topic name, partitions in iteration order or sorted. */
    static Map<String, List<Integer>> byName(Map<Uuid, Set<Integer>> assignment, GroupTopics catalog,
                                                     boolean sorted) {
        Map<String, List<Integer>> out = new LinkedHashMap<>();
        assignment.forEach((topicId, partitions) -> {
            List<Integer> list = new ArrayList<>(partitions);
            if (sorted) {
                Collections.sort(list);
            }
            out.put(catalog.nameOf(topicId), list);
        });
        return out;
    }

    static ObjectNode topicsJson(Map<String, List<Integer>> assignment) {
        ObjectNode out = Json.object();
        assignment.forEach((topic, partitions) -> out.set(topic, Json.ints(partitions)));
        return out;
    }

    private static ObjectNode membersJson(Map<String, Map<String, List<Integer>>> assignment) {
        ObjectNode out = Json.object();
        assignment.forEach((member, topics) -> out.set(member, topicsJson(topics)));
        return out;
    }

    /**
     * {@code partition_counts} per returned member; {@code kept}/{@code revoked}/{@code moved} count the partitions
     * of the members' input assignments: kept, those the same member still has in the result; revoked, those it
     * no longer has; moved, those of the revoked that another member has. A member by itself, as the coordinator's
     * {@code CurrentAssignmentBuilder.computeNextAssignment} reconciles it (assigned = current ∩ target, pending
     * revocation = current − assigned): a partition the result gives to two members (reachable from overlapping
     * input assignments) is kept by either one that had it, whatever the result map's order.
     */
    private static ObjectNode stats(Map<String, Map<String, List<Integer>>> inputs,
                                    Map<String, Map<String, List<Integer>>> result) {
        ObjectNode counts = Json.object();
        Map<Partition, List<String>> holders = new HashMap<>();
        result.forEach((member, byTopic) -> {
            counts.put(member, StepExpect.size(byTopic));
            byTopic.forEach((topic, partitions) -> partitions.forEach(p ->
                holders.computeIfAbsent(new Partition(topic, p), __ -> new ArrayList<>()).add(member)));
        });
        StepExpect.Sizes sizes = StepExpect.Sizes.of(result);
        StepExpect.Moves moves = StepExpect.Moves.of(inputs, (member, topic, p) -> {
            List<String> now = holders.getOrDefault(new Partition(topic, p), List.of());
            return now.contains(member) ? member : now.isEmpty() ? null : now.get(0);
        });
        ObjectNode stats = Json.object();
        stats.set("partition_counts", counts);
        stats.put("kept", moves.kept());
        stats.put("revoked", moves.revoked());
        stats.put("moved", moves.moved());
        stats.put("assigned_total", sizes.total());
        sizes.putMinMax(stats);
        return stats;
    }

    /**
     * A step's {@code expect}, checked: {@code {"assignment": {member: {topic: [partitions]}}, "error": "start of
     * the message", "valid_and_balanced": true}}, each optional; null when absent.
     */
    private static JsonNode expect(JsonNode value, String field) {
        return StepExpect.parse(value, field, EXPECT_KEYS, (expect, where) -> {
            JsonNode validAndBalanced = Json.opt(expect, "valid_and_balanced");
            if (validAndBalanced != null && !validAndBalanced.isBoolean()) {
                throw new InputException(where + ".valid_and_balanced",
                    "must be true or false, got " + validAndBalanced);
            }
        });
    }

    /**
     * The step's {@code expect}: an error prefix, an exact assignment ({@link StepExpect#check}), validity and
     * balance.
     */
    private static List<String> checkExpect(JsonNode expect, ObjectNode stepOut,
                                            Map<String, Map<String, List<Integer>>> result, GroupTopics catalog,
                                            List<Member> members) {
        List<String> failures = StepExpect.check(expect, stepOut);
        JsonNode validAndBalanced = Json.opt(expect, "valid_and_balanced");
        if (validAndBalanced != null && validAndBalanced.booleanValue() && result != null) {
            Map<String, Integer> topics = new HashMap<>();
            catalog.topics().forEach(t -> topics.put(t.name(), t.partitions()));
            Map<String, List<String>> subscriptions = new LinkedHashMap<>();
            members.forEach(m -> subscriptions.put(m.id(), m.subscriptions()));
            failures.addAll(validAndBalanced(topics, subscriptions, result));
        }
        return failures;
    }

    /**
     * The checks of Kafka's {@code AssignmentTestUtil}-style {@code checkValidityAndBalance}: every partition of a
     * subscribed topic assigned exactly once, only to subscribers, and no member holding two or more partitions
     * more than another member that subscribes to one of its topics.
     */
    private static List<String> validAndBalanced(Map<String, Integer> topics, Map<String, List<String>> subscriptions,
                                                 Map<String, Map<String, List<Integer>>> assignment) {
        List<String> problems = new ArrayList<>();
        Map<Partition, String> owners = new HashMap<>();
        assignment.forEach((member, byTopic) -> byTopic.forEach((topic, partitions) -> {
            if (!subscriptions.getOrDefault(member, List.of()).contains(topic)) {
                problems.add(member + " holds " + topic + " without subscribing to it");
            }
            for (int p : partitions) {
                String previousOwner = owners.put(new Partition(topic, p), member);
                if (previousOwner != null) {
                    problems.add(topic + "-" + p + " assigned to " + previousOwner + " and " + member);
                }
            }
        }));
        Set<String> wanted = new TreeSet<>();
        subscriptions.values().forEach(subs -> subs.stream().filter(topics::containsKey).forEach(wanted::add));
        for (String topic : wanted) {
            for (int p = 0; p < topics.get(topic); p++) {
                if (!owners.containsKey(new Partition(topic, p))) {
                    problems.add(topic + "-" + p + " unassigned");
                }
            }
        }
        Map<String, Integer> size = new HashMap<>();
        subscriptions.keySet().forEach(m ->
            size.put(m, assignment.containsKey(m) ? StepExpect.size(assignment.get(m)) : 0));
        for (String a : subscriptions.keySet()) {
            for (String b : subscriptions.keySet()) {
                if (size.get(a) - size.get(b) > 1 && assignment.getOrDefault(a, Map.of()).keySet().stream()
                    .anyMatch(t -> subscriptions.get(b).contains(t))) {
                    problems.add(a + " has " + size.get(a) + " partitions, " + b + " only " + size.get(b)
                        + " and could take one");
                }
            }
        }
        return problems;
    }
}
