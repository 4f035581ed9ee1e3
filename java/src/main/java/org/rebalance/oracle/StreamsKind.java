package org.rebalance.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.AssignmentConfigs;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.internals.assignment.ClientState;
import org.apache.kafka.streams.processor.internals.assignment.HighAvailabilityTaskAssignor;
import org.apache.kafka.streams.processor.internals.assignment.RackAwareTaskAssignor;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * {@code streams}: Kafka Streams' client-side task assignor of KIP-441, {@link HighAvailabilityTaskAssignor} of the
 * kafka-streams jar on the classpath (the book pins 4.3.1; 3.9.2 has the same classes, line for line), as the
 * group leader's {@code StreamsPartitionAssignor} calls it: {@code assign(clients, allTaskIds, statefulTaskIds,
 * rackAwareTaskAssignor, configs)}. The schema is kafka-vectors/README.md, "Input schema — streams" and "Output
 * schema — streams"; the Python package's {@code rebalance.streams.client.vectors} models the same harness.
 *
 * <p>Each client is a {@link ClientState} built with Kafka's own constructor for given previous tasks and task lags
 * ({@code ClientState(previousActiveTasks, previousStandbyTasks, taskLagTotals, clientTags, capacity, processId)},
 * the one Kafka's {@code HighAvailabilityTaskAssignorTest} uses), or, for a client given by {@code offset_sums}, as
 * {@code StreamsPartitionAssignor} builds it from a subscription ({@code ClientState(processId, clientTags)},
 * {@code incrementCapacity()} per thread, {@code addPreviousTasksAndOffsetSums}, {@code initializePrevTasks} without
 * owned partitions, {@code computeTaskLags} against the scenario's {@code end_offset_sums}; the output then also
 * lists the previous tasks and lags Kafka derived); keyed by a {@link ProcessId} over a {@link UUID}; the configs are Kafka's public {@link AssignmentConfigs} (whose constructor validates them against
 * {@code StreamsConfig}'s validators: an invalid value is Kafka's {@code ConfigException}, the line's
 * {@code error}). KIP-925 rack-aware task assignment is out: the {@link RackAwareTaskAssignor} passed is Kafka's own,
 * with strategy {@code none} and no rack information, so {@code canEnableRackAwareAssignor()} is false (as in the
 * unit test's {@code none} parameter). KIP-708 standby tags are in: {@code rack_aware_assignment_tags} non-empty makes
 * {@code StandbyTaskAssignorFactory} pick {@code ClientTagAwareStandbyTaskAssignor}.
 *
 * <p>The output lists each client (in {@code UUID.compareTo} order, the order of the assignor's {@code TreeMap})
 * with its assigned active and standby tasks ({@code ClientState.activeTasks()}, {@code standbyTasks()}: sorted
 * sets), and the assignor's return value, whether a follow-up probing rebalance is needed. Kafka does not report
 * which standbys are warm-up replicas: they are standbys in {@code ClientState}.
 */
public final class StreamsKind implements Kind {
    private static final Pattern TASK_ID = Pattern.compile("(0|[1-9][0-9]{0,9})_(0|[1-9][0-9]{0,9})");
    private static final Pattern UUID_TEXT = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
    private static final Set<String> TOP_KEYS = Set.of("id", "kind", "assignor", "configs", "tasks", "stateful_tasks",
        "end_offset_sums", "clients");
    private static final Set<String> CONFIG_KEYS = Set.of("acceptable_recovery_lag", "max_warmup_replicas",
        "num_standby_replicas", "probing_rebalance_interval_ms", "rack_aware_assignment_tags");
    private static final Set<String> CLIENT_KEYS = Set.of("process_id", "capacity", "prev_active", "prev_standby", "lags",
        "offset_sums", "tags");

    @Override
    public JsonNode run(JsonNode input) {
        unknownKeys(input, TOP_KEYS, "");
        String assignor = Json.optString(input, "assignor", "high_availability");
        if (!assignor.equals("high_availability")) {
            throw new InputException("assignor", "assignor must be high_availability, got " + assignor);
        }
        Set<TaskId> allTaskIds = taskSet(Json.optArray(input, "tasks"), "tasks");
        Set<TaskId> statefulTaskIds = taskSet(Json.optArray(input, "stateful_tasks"), "stateful_tasks");
        Map<TaskId, Long> endOffsetSums = taskLongs(Json.opt(input, "end_offset_sums"), "end_offset_sums");
        Map<ProcessId, ClientState> clients = new HashMap<>();
        Set<ProcessId> fromOffsetSums = new HashSet<>();
        ArrayNode clientNodes = Json.optArray(input, "clients");
        for (int i = 0; i < clientNodes.size(); i++) {
            String where = "clients[" + i + "]";
            JsonNode c = clientNodes.get(i);
            if (!c.isObject()) {
                throw new InputException(where, where + " must be an object, got " + c);
            }
            unknownKeys(c, CLIENT_KEYS, where + ".");
            String pid = under(where + ".", () -> Json.reqString(c, "process_id"));
            if (!UUID_TEXT.matcher(pid).matches()) {
                throw new InputException(where + ".process_id", "process_id must be a UUID in canonical lower-case form, got " + pid);
            }
            ProcessId processId = new ProcessId(UUID.fromString(pid));
            int capacity = under(where + ".", () -> Json.reqInt(c, "capacity"));
            if (capacity < 1) {
                throw new InputException(where + ".capacity", "capacity (the client's stream threads) must be at least 1, got " + capacity);
            }
            Set<TaskId> prevActive = taskSet(Json.optArray(c, "prev_active"), where + ".prev_active");
            Set<TaskId> prevStandby = taskSet(Json.optArray(c, "prev_standby"), where + ".prev_standby");
            Map<TaskId, Long> lags = taskLongs(Json.opt(c, "lags"), where + ".lags");
            Map<TaskId, Long> offsetSums = taskLongs(Json.opt(c, "offset_sums"), where + ".offset_sums");
            Map<String, String> tags = new TreeMap<>();
            JsonNode tagNode = Json.opt(c, "tags");
            if (tagNode != null) {
                if (!tagNode.isObject()) {
                    throw new InputException(where + ".tags", "tags must be an object key -> value, got " + tagNode);
                }
                for (Iterator<Map.Entry<String, JsonNode>> it = tagNode.fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> e = it.next();
                    if (!e.getValue().isTextual()) {
                        throw new InputException(where + ".tags." + e.getKey(), "a tag value must be a string, got " + e.getValue());
                    }
                    tags.put(e.getKey(), e.getValue().textValue());
                }
            }
            if (offsetSums != null) {
                for (String derived : List.of("lags", "prev_active", "prev_standby")) {
                    if (Json.opt(c, derived) != null) {
                        throw new InputException(where + "." + derived, "a client with offset_sums gets its " + derived
                            + " from them (ClientState.computeTaskLags / initializePrevTasks): give one or the other");
                    }
                }
                if (endOffsetSums == null) {
                    throw new InputException("end_offset_sums", "missing field end_offset_sums: clients with offset_sums need the tasks' end offset sums");
                }
            }
            if (clients.containsKey(processId)) {
                throw new InputException(where + ".process_id", "duplicate process_id " + pid);
            }
            if (offsetSums == null) {
                clients.put(processId, new ClientState(prevActive, prevStandby, lags == null ? new TreeMap<>() : lags, tags, capacity, processId));
            } else {
                // what StreamsPartitionAssignor does with a member's subscription: a client of `capacity` threads
                // (one consumer), its task offset sums, previous tasks from them, lags against the end offset sums
                ClientState state = new ClientState(processId, tags);
                for (int t = 0; t < capacity; t++) {
                    state.incrementCapacity();
                }
                state.addPreviousTasksAndOffsetSums("consumer-1", offsetSums);
                state.initializePrevTasks(new HashMap<>(), false);
                state.computeTaskLags(processId, endOffsetSums);
                clients.put(processId, state);
                fromOffsetSums.add(processId);
            }
        }
        AssignmentConfigs configs = configs(Json.opt(input, "configs"));
        RackAwareTaskAssignor rackAwareTaskAssignor = new RackAwareTaskAssignor(
            null, new HashMap<>(), new HashMap<>(), new HashMap<>(), null, null, configs, Time.SYSTEM);

        boolean probing = new HighAvailabilityTaskAssignor().assign(clients, allTaskIds, statefulTaskIds,
            rackAwareTaskAssignor, configs);

        ArrayNode outClients = Json.array();
        for (Map.Entry<ProcessId, ClientState> e : new TreeMap<>(clients).entrySet()) {
            ObjectNode c = Json.object();
            c.put("process_id", e.getKey().id().toString());
            c.set("active", tasks(e.getValue().activeTasks()));
            c.set("standby", tasks(e.getValue().standbyTasks()));
            if (fromOffsetSums.contains(e.getKey())) {  // what Kafka derived from the offset sums
                c.set("prev_active", tasks(e.getValue().previousActiveTasks()));
                c.set("prev_standby", tasks(e.getValue().previousStandbyTasks()));
                ObjectNode lagsOut = Json.object();
                e.getValue().taskLagTotals().forEach((task, lag) -> lagsOut.put(task.subtopology() + "_" + task.partition(), lag));
                c.set("lags", lagsOut);
            }
            outClients.add(c);
        }
        ObjectNode out = Json.object();
        out.set("clients", outClients);
        out.put("probing_rebalance_needed", probing);
        return out;
    }

    /** {@code {"<task>": long}} in a {@code TreeMap} (TaskId order), or null when absent. */
    private static Map<TaskId, Long> taskLongs(JsonNode node, String where) {
        if (node == null) {
            return null;
        }
        if (!node.isObject()) {
            throw new InputException(where, where + " must be an object task -> 64-bit integer, got " + node);
        }
        Map<TaskId, Long> out = new TreeMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String field = where + "." + e.getKey();
            TaskId task = taskId(e.getKey(), field);
            JsonNode v = e.getValue();
            if (!v.isIntegralNumber() || !v.canConvertToLong()) {
                throw new InputException(field, field + " must be a 64-bit integer, got " + v);
            }
            out.put(task, v.longValue());
        }
        return out;
    }

    /** Kafka's defaults ({@code StreamsConfig}) for a missing field; Kafka's validators for a present one. */
    private static AssignmentConfigs configs(JsonNode node) {
        if (node != null && !node.isObject()) {
            throw new InputException("configs", "configs must be an object, got " + node);
        }
        if (node != null) {
            unknownKeys(node, CONFIG_KEYS, "configs.");
        }
        long lag = node == null ? 10_000L : optLongField(node, "acceptable_recovery_lag", 10_000L);
        int warmups = node == null ? 2 : optIntField(node, "max_warmup_replicas", 2);
        int standbys = node == null ? 0 : optIntField(node, "num_standby_replicas", 0);
        long probing = node == null ? 600_000L : optLongField(node, "probing_rebalance_interval_ms", 600_000L);
        List<String> tags = new ArrayList<>();
        if (node != null) {
            try {
                tags = Json.stringList(node, "rack_aware_assignment_tags");
            } catch (InputException e) {
                throw new InputException("configs." + e.field(), e.getMessage());
            }
        }
        return new AssignmentConfigs(lag, warmups, standbys, probing, tags, OptionalInt.empty(), OptionalInt.empty(), "none");
    }

    private static long optLongField(JsonNode node, String field, long dflt) {
        try {
            return Json.optLong(node, field, dflt);
        } catch (InputException e) {
            throw new InputException("configs." + field, e.getMessage());
        }
    }

    private static int optIntField(JsonNode node, String field, int dflt) {
        try {
            return Json.optInt(node, field, dflt);
        } catch (InputException e) {
            throw new InputException("configs." + field, e.getMessage());
        }
    }

    /** A read whose {@link InputException} names its field below {@code prefix} ({@code clients[2].}). */
    private static <T> T under(String prefix, java.util.function.Supplier<T> read) {
        try {
            return read.get();
        } catch (InputException e) {
            throw new InputException(prefix + e.field(), e.getMessage());
        }
    }

    private static void unknownKeys(JsonNode node, Set<String> known, String prefix) {
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (!known.contains(key)) {
                throw new InputException(prefix + key, "unknown field " + prefix + key + "; known: " + new java.util.TreeSet<>(known));
            }
        }
    }

    /** A task id as Kafka writes it, {@code "<subtopology>_<partition>"} (no named topology). */
    static TaskId taskId(String text, String field) {
        if (!TASK_ID.matcher(text).matches()) {
            throw new InputException(field, "a task id must be \"<subtopology>_<partition>\" (two non-negative ints), got " + text);
        }
        String[] parts = text.split("_");
        long subtopology = Long.parseLong(parts[0]);
        long partition = Long.parseLong(parts[1]);
        if (subtopology > Integer.MAX_VALUE || partition > Integer.MAX_VALUE) {
            throw new InputException(field, "a task id's subtopology and partition must be 32-bit ints, got " + text);
        }
        return new TaskId((int) subtopology, (int) partition);
    }

    private static Set<TaskId> taskSet(ArrayNode node, String field) {
        Set<TaskId> out = new LinkedHashSet<>();
        for (int i = 0; i < node.size(); i++) {
            JsonNode item = node.get(i);
            String where = field + "[" + i + "]";
            if (!item.isTextual()) {
                throw new InputException(where, where + " must be a task id string, got " + item);
            }
            if (!out.add(taskId(item.textValue(), where))) {
                throw new InputException(where, "duplicate task " + item.textValue() + " in " + field);
            }
        }
        return new HashSet<>(out);
    }

    private static ArrayNode tasks(Set<TaskId> tasks) {
        ArrayNode out = Json.array();
        for (TaskId t : tasks) {
            out.add(t.subtopology() + "_" + t.partition());
        }
        return out;
    }
}
