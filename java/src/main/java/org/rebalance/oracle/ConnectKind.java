package org.rebalance.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.connect.runtime.distributed.ConnectProtocolCompatibility;
import org.apache.kafka.connect.runtime.distributed.IncrementalCooperativeAssignor;
import org.apache.kafka.connect.runtime.distributed.RebalanceOracleAccess;
import org.apache.kafka.connect.runtime.distributed.WorkerCoordinator.ConnectorsAndTasks;
import org.apache.kafka.connect.runtime.distributed.WorkerCoordinator.WorkerLoad;
import org.apache.kafka.connect.util.ConnectorTaskId;
import org.rebalance.oracle.ConnectCluster.RoundResult;
import org.rebalance.oracle.ConnectCluster.Running;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * {@code connect}: a scenario of Kafka Connect rebalances answered by Kafka Connect's own assignors from the
 * Kafka 4.3.1 jars (3.9.x runs too): {@code org.apache.kafka.connect.runtime.distributed.IncrementalCooperativeAssignor}
 * (KIP-415; {@code connect.protocol} compatible or sessioned) and {@code EagerAssignor} ({@code eager}), on
 * Kafka's {@code MockTime}. The vectors README ("Input schema — Connect", "Output schema — Connect") is the
 * schema; the steps run against one assignor instance:
 *
 * <ul>
 *   <li>{@code rebalance}: config changes, then one round with the members given (see {@link ConnectCluster}
 *       for the direct and protocol paths), then with {@code settle} the herders' follow-up rounds; optional
 *       {@code expect} checks as {@code IncrementalCooperativeAssignorTest}'s assert helpers make them;</li>
 *   <li>{@code reset} (a new leader: a new assignor), {@code set_previous_members};</li>
 *   <li>{@code handle_lost_assignments} and {@code assign}: direct calls of the assignor's protected
 *       {@code handleLostAssignments} and {@code assignConnectors}/{@code assignTasks}, as the unit test makes them.</li>
 * </ul>
 *
 * The harness only drives Kafka's classes: it builds the {@code ClusterConfigState}, the member assignments and
 * metadata, applies each answer to the simulated running state and records what Kafka returned, in Kafka's orders.
 * Each round records the leader's state after it ({@code delay}, {@code scheduledRebalance},
 * {@code previousGenerationId}, {@code previousMembers}, {@code candidateWorkersForReassignment},
 * {@code revokedInPrevious}, {@code numSuccessiveRevokingRebalances}, {@code previousAssignment},
 * {@code previousRevocation}).
 */
public final class ConnectKind implements Kind {
    private static final long DEFAULT_TIME_MS = 1_700_000_000_000L;

    @Override
    public JsonNode run(JsonNode input) {
        return new Scenario(input).run();
    }

    /** One scenario line: its settings, the cluster, and the records of the steps run so far. */
    private static final class Scenario {
        private final JsonNode input;
        private final String assignorName;
        private final String detail;
        private final boolean settle;
        private final boolean settleDelay;
        private final int maxFollowUps;
        private final ConnectCluster cluster;
        private final ArrayNode outSteps = Json.array();
        private List<String> lastMembers = new ArrayList<>();
        private boolean ok = true;

        Scenario(JsonNode input) {
            this.input = input;
            assignorName = Json.optString(input, "assignor", "incremental");
            if (!assignorName.equals("incremental") && !assignorName.equals("eager")) {
                throw new InputException("assignor", "must be 'incremental' or 'eager', got " + assignorName);
            }
            boolean incremental = assignorName.equals("incremental");
            String d = Json.optString(input, "detail", Json.optBool(input, "verbose", true) ? "full" : "compact");
            if (!List.of("full", "compact", "verbose", "totals").contains(d)) {
                throw new InputException("detail", "must be one of full, compact, verbose, totals, got " + d);
            }
            detail = d.equals("verbose") ? "compact" : d;
            settle = Json.optBool(input, "settle", false);
            settleDelay = Json.optBool(input, "settle_delay", true);
            maxFollowUps = Json.optInt(input, "max_follow_ups", 20);
            String mode = Json.optString(input, "mode", "direct");
            if (!mode.equals("direct") && !mode.equals("protocol")) {
                throw new InputException("mode", "must be 'direct' or 'protocol', got " + mode);
            }
            ConnectProtocolCompatibility protocol = ConnectProtocolCompatibility.EAGER;
            if (incremental) {
                String name = Json.optString(input, "protocol", "sessioned");
                if (!name.equals("compatible") && !name.equals("sessioned")) {
                    throw new InputException("protocol", "the incremental assignor runs under connect.protocol "
                            + "compatible or sessioned, not " + name);
                }
                protocol = ConnectProtocolCompatibility.compatibility(name);
            }
            int maxDelay = Json.optInt(input, "max_delay_ms", 300000);
            if (maxDelay < 0) {
                throw new InputException("max_delay_ms", "must be >= 0, got " + maxDelay);
            }
            int initialGeneration = Json.optInt(input, "initial_generation_id", 1000);
            String membersMap = Json.optString(input, "members_map", "hash");
            if (!membersMap.equals("hash") && !membersMap.equals("linked")) {
                throw new InputException("members_map", "must be 'hash' or 'linked', got " + membersMap);
            }
            cluster = new ConnectCluster(incremental, mode, protocol, maxDelay,
                    Json.optLong(input, "initial_time_ms", DEFAULT_TIME_MS), initialGeneration,
                    Json.optInt(input, "initial_previous_generation_id", initialGeneration),
                    membersMap.equals("hash"), connectorCounts(input, "connectors"));
        }

        ObjectNode run() {
            int i = 0;
            for (JsonNode step : Json.optArray(input, "steps")) {
                String field = "steps[" + i + "]";
                if (!step.isObject()) {
                    throw new InputException(field, "must be an object");
                }
                clock(step, field);
                String op = Json.optString(step, "op", "rebalance");
                switch (op) {
                    case "rebalance" -> rebalance(step, i, field);
                    case "reset" -> {
                        int previous = Json.optInt(step, "previous_generation_id", cluster.generationId);
                        cluster.reset(previous);
                        ObjectNode record = Json.object();
                        record.put("op", "reset");
                        record.put("previous_generation_id", previous);
                        emit(record, i, List.of());
                    }
                    case "set_previous_members" -> {
                        List<String> members = Json.stringList(step, "members");
                        RebalanceOracleAccess.setPreviousMembers(cluster.incrementalAssignor(field + ".op"),
                                new HashSet<>(members));
                        ObjectNode record = Json.object();
                        record.put("op", "set_previous_members");
                        record.set("members", Json.strings(members));
                        emit(record, i, List.of());
                    }
                    case "handle_lost_assignments" -> handleLostAssignments(step, i, field);
                    case "assign" -> assign(step, i, field);
                    default -> throw new InputException(field + ".op", "unknown op " + op);
                }
                i++;
            }
            ObjectNode out = Json.object();
            out.set("id", input.get("id"));
            out.put("kind", "connect");
            out.put("assignor", assignorName);
            out.put("mode", cluster.mode);
            out.set("steps", outSteps);
            out.put("ok", ok);
            return out;
        }

        /** {@code time_ms} sets the clock, then {@code sleep_ms} (a number, or {of, div, plus}) advances it. */
        private void clock(JsonNode step, String field) {
            if (Json.opt(step, "time_ms") != null) {
                cluster.time.setCurrentTimeMs(Json.reqLong(step, "time_ms"));
            }
            JsonNode sleep = Json.opt(step, "sleep_ms");
            if (sleep == null) {
                return;
            }
            if (!sleep.isObject()) {
                cluster.time.sleep(Json.reqLong(step, "sleep_ms"));
                return;
            }
            String of = Json.optString(sleep, "of", "");
            long base = switch (of) {
                case "delay" -> cluster.delay();
                case "max_delay" -> cluster.maxDelayMs;
                default -> throw new InputException(field + ".sleep_ms.of", "must be 'delay' or 'max_delay', got " + of);
            };
            int div = Json.optInt(sleep, "div", 1);
            if (div == 0) {
                throw new InputException(field + ".sleep_ms.div", "must not be 0");
            }
            cluster.time.sleep(base / div + Json.optInt(sleep, "plus", 0));
        }

        // ------------------------------------------------------------------------------------------
        private void rebalance(JsonNode step, int index, String field) {
            if (Json.opt(step, "connectors") != null) {
                cluster.connectors.clear();
                cluster.connectors.putAll(connectorCounts(step, "connectors"));
            }
            if (Json.opt(step, "add_connectors") != null) {
                cluster.connectors.putAll(connectorCounts(step, "add_connectors"));
            }
            for (String name : Json.stringList(step, "remove_connectors")) {
                cluster.connectors.remove(name);
            }
            Map<String, Running> members = members(Json.opt(step, "members"), field + ".members");
            int generation = Json.optInt(step, "generation_id", cluster.generationId + 1);
            int lastCompleted = Json.optInt(step, "last_completed_generation_id",
                    Json.optBool(step, "generation_mismatch", false) ? generation - 2 : generation - 1);
            boolean failed = Json.optBool(step, "failed", false);
            String leader = Json.optString(step, "leader", null);
            RoundResult result = cluster.rebalance(members, generation, lastCompleted, failed, leader);
            lastMembers = new ArrayList<>(members.keySet());
            JsonNode expect = Json.opt(step, "expect");
            roundRecord(result, index, expect == null ? List.of() : checkRound(expect, result, field + ".expect"));
            if (Json.optBool(step, "settle", settle) && !failed) {
                for (RoundResult followUp : cluster.settle(result, settleDelay, maxFollowUps)) {
                    roundRecord(followUp, index, List.of());
                }
            }
        }

        /** The members of a round: ids (carried), an object of worker -> carry|empty|{connectors, tasks}, or omitted. */
        private Map<String, Running> members(JsonNode spec, String field) {
            if (spec == null) {
                return cluster.carried(lastMembers.isEmpty() ? cluster.running.keySet() : lastMembers);
            }
            if (spec.isArray()) {
                List<String> workers = strings(spec, field);
                if (new HashSet<>(workers).size() != workers.size()) {
                    throw new InputException(field, "lists a worker twice");
                }
                return cluster.carried(workers);
            }
            Map<String, Running> out = new LinkedHashMap<>();
            for (Map.Entry<String, JsonNode> e : entries(spec, field)) {
                String w = e.getKey();
                JsonNode value = e.getValue();
                if (value.isTextual() && value.textValue().equals("carry")) {
                    out.putAll(cluster.carried(List.of(w)));
                } else if (value.isTextual() && value.textValue().equals("empty")) {
                    out.put(w, new Running(new ArrayList<>(), new ArrayList<>()));
                } else {
                    out.put(w, running(value, field + "." + w));
                }
            }
            return out;
        }

        private void roundRecord(RoundResult r, int index, List<String> failures) {
            boolean totalsOnly = detail.equals("totals");
            ObjectNode record = Json.object();
            record.put("op", "rebalance");
            record.put("time_ms", r.timeMs());
            record.put("generation_id", r.generationId());
            record.put("last_completed_generation_id", r.lastCompletedGenerationId());
            if (r.followUp() != null) {
                record.put("follow_up", r.followUp());
            }
            ObjectNode in = record.putObject("input");
            ObjectNode connectors = in.putObject("connectors");
            r.connectors().forEach(connectors::put);
            ObjectNode members = in.putObject("members");
            r.membersIn().forEach((w, run) -> {
                if (totalsOnly) {
                    members.put(w, counts(run.connectors().size(), run.tasks().size()));
                } else {
                    members.set(w, runningJson(run.connectors(), run.tasks()));
                }
            });
            if (r.failed()) {
                record.put("failed", true);
            }
            if (r.protocolVersions() != null) {
                ObjectNode versions = record.putObject("protocol_versions");
                r.protocolVersions().forEach(versions::put);
                record.put("leader", r.leader());
                record.put("leader_state_set", r.leaderStateSet());
            }
            record.put("delay", r.delay());
            ObjectNode workers = record.putObject("workers");
            r.workers().forEach((w, wr) -> {
                if (totalsOnly) {
                    workers.put(w, "+" + counts(wr.assignedConnectors().size(), wr.assignedTasks().size())
                            + " -" + counts(wr.revokedConnectors().size(), wr.revokedTasks().size())
                            + " =" + counts(wr.allConnectors().size(), wr.allTasks().size()));
                    return;
                }
                ObjectNode entry = workers.putObject(w);
                entry.set("assigned_connectors", Json.strings(wr.assignedConnectors()));
                entry.set("assigned_tasks", tasks(wr.assignedTasks()));
                entry.set("revoked_connectors", Json.strings(wr.revokedConnectors()));
                entry.set("revoked_tasks", tasks(wr.revokedTasks()));
                if (detail.equals("full")) {
                    entry.set("all_connectors", Json.strings(wr.allConnectors()));
                    entry.set("all_tasks", tasks(wr.allTasks()));
                }
                entry.put("n_connectors", wr.allConnectors().size());
                entry.put("n_tasks", wr.allTasks().size());
            });
            record.set("totals", totals(r));
            if (cluster.incremental && !totalsOnly) {
                record.set("state", stateJson(RebalanceOracleAccess.state(cluster.incrementalAssignor("assignor"))));
            }
            if (detail.equals("full")) {
                ObjectNode after = record.putObject("running_after");
                cluster.running.forEach((w, run) -> after.set(w, runningJson(run.connectors(), run.tasks())));
            }
            emit(record, index, failures);
        }

        private ObjectNode stateJson(RebalanceOracleAccess.State s) {
            ObjectNode state = Json.object();
            state.put("delay", s.delay());
            state.put("scheduled_rebalance", s.scheduledRebalance());
            state.put("previous_generation_id", s.previousGenerationId());
            state.set("previous_members", Json.strings(new TreeSet<>(s.previousMembers())));
            state.set("candidate_workers_for_reassignment", Json.strings(s.candidateWorkersForReassignment()));
            state.put("revoked_in_previous", s.revokedInPrevious());
            state.put("num_successive_revoking_rebalances", s.numSuccessiveRevokingRebalances());
            if (detail.equals("full")) {
                state.set("previous_assignment", sortedJson(s.previousAssignment()));
                state.set("previous_revocation", sortedJson(s.previousRevocation()));
            } else {
                state.put("previous_assignment_size", s.previousAssignment().size());
                state.put("previous_revocation_size", s.previousRevocation().size());
            }
            return state;
        }

        /** The test's assert helpers on one round ({@code assertDelay}, {@code assertConnectorAllocations}, ...). */
        private List<String> checkRound(JsonNode expect, RoundResult r, String field) {
            List<String> fails = new ArrayList<>();
            int delay = cluster.delay();
            for (Map.Entry<String, JsonNode> e : entries(expect, field)) {
                JsonNode want = e.getValue();
                switch (e.getKey()) {
                    case "delay" -> {
                        if (!equalsNumber(want, delay)) {
                            fails.add("delay " + delay + " != " + py(want));
                        }
                    }
                    case "delay_gt" -> {
                        if (!(delay > want.asLong())) {
                            fails.add("delay " + delay + " not > " + py(want));
                        }
                    }
                    case "workers" -> {
                        Set<String> wanted = new TreeSet<>(strings(want, field + ".workers"));
                        if (!new TreeSet<>(r.workers().keySet()).equals(wanted)) {
                            fails.add("workers " + py(new TreeSet<>(r.workers().keySet())) + " != " + py(wanted));
                        }
                    }
                    case "connector_allocations", "task_allocations" -> {
                        boolean ofConnectors = e.getKey().equals("connector_allocations");
                        List<Integer> got = cluster.running.values().stream()
                                .map(run -> ofConnectors ? run.connectors().size() : run.tasks().size())
                                .sorted().collect(Collectors.toList());
                        List<Integer> wanted = new ArrayList<>();
                        want.forEach(n -> wanted.add(n.asInt()));
                        wanted.sort(null);
                        if (!got.equals(wanted)) {
                            fails.add(e.getKey() + " " + got + " != " + wanted);
                        }
                    }
                    case "no_revocations" -> {
                        if (want.asBoolean() && r.revokedAnything()) {
                            fails.add("revocations were issued");
                        }
                    }
                    case "empty_assignment" -> {
                        ObjectNode t = totals(r);
                        boolean empty = true;
                        for (JsonNode n : t) {
                            empty &= n.asInt() == 0;
                        }
                        if (want.asBoolean() && !empty) {
                            fails.add("assignment not empty: " + py(t));
                        }
                    }
                    case "balanced_and_complete" -> {
                        if (want.asBoolean()) {
                            fails.addAll(balancedAndComplete());
                        }
                    }
                    case "leader_state_set" -> {
                        if (want.asBoolean() && !r.leaderStateSet()) {
                            fails.add("leader state is only set on the protocol path");
                        }
                    }
                    case "protocol_version" -> {
                        if (r.protocolVersions() == null
                                || r.protocolVersions().values().stream().anyMatch(v -> !equalsNumber(want, v))) {
                            fails.add("protocol versions " + py(r.protocolVersions()) + " != " + py(want));
                        }
                    }
                    default -> throw new InputException(field + "." + e.getKey(), "unknown expectation");
                }
            }
            return fails;
        }

        /** {@code assertBalancedAndCompleteAllocation}: counts within one of each other, exactly the configured work. */
        private List<String> balancedAndComplete() {
            List<String> fails = new ArrayList<>();
            Collection<Running> running = cluster.running.values();
            if (!running.isEmpty()) {
                List<Integer> nc = running.stream().map(r -> r.connectors().size()).sorted().collect(Collectors.toList());
                List<Integer> nt = running.stream().map(r -> r.tasks().size()).sorted().collect(Collectors.toList());
                if (nc.get(nc.size() - 1) - nc.get(0) > 1 || nt.get(nt.size() - 1) - nt.get(0) > 1) {
                    fails.add("imbalanced: connectors " + nc + ", tasks " + nt);
                }
            }
            Set<String> haveConnectors = new HashSet<>();
            Set<ConnectorTaskId> haveTasks = new HashSet<>();
            running.forEach(r -> {
                haveConnectors.addAll(r.connectors());
                haveTasks.addAll(r.tasks());
            });
            if (!haveConnectors.equals(cluster.connectors.keySet())) {
                fails.add("connectors assigned do not match the configured connectors");
            }
            Set<ConnectorTaskId> configuredTasks = new HashSet<>();
            cluster.connectors.forEach((c, n) -> {
                for (int i = 0; i < n; i++) {
                    configuredTasks.add(new ConnectorTaskId(c, i));
                }
            });
            if (!haveTasks.equals(configuredTasks)) {
                fails.add("tasks assigned do not match the configured tasks");
            }
            return fails;
        }

        // ------------------------------------------------------------------------------------------
        private void handleLostAssignments(JsonNode step, int index, String field) {
            IncrementalCooperativeAssignor assignor = cluster.incrementalAssignor(field + ".op");
            JsonNode lostSpec = Json.opt(step, "lost");
            Running lostRun = lostSpec == null ? new Running(List.of(), List.of()) : running(lostSpec, field + ".lost");
            ConnectorsAndTasks lost = new ConnectorsAndTasks.Builder().with(lostRun.connectors(), lostRun.tasks()).build();
            List<WorkerLoad> loads = workerLoads(step, field + ".worker_loads");
            if (Json.opt(step, "previous_members") != null) {
                RebalanceOracleAccess.setPreviousMembers(assignor, new HashSet<>(Json.stringList(step, "previous_members")));
            }
            ConnectorsAndTasks toReassign = RebalanceOracleAccess.handleLostAssignments(assignor, lost, loads);
            RebalanceOracleAccess.State s = RebalanceOracleAccess.state(assignor);
            long now = cluster.time.milliseconds();
            ObjectNode record = Json.object();
            record.put("op", "handle_lost_assignments");
            record.put("time_ms", now);
            record.set("to_reassign", runningJson(toReassign.connectors(), toReassign.tasks()));
            record.set("worker_loads", loadsJson(loads));
            record.set("candidate_workers_for_reassignment", Json.strings(s.candidateWorkersForReassignment()));
            record.put("scheduled_rebalance", s.scheduledRebalance());
            record.put("delay", s.delay());
            List<String> fails = new ArrayList<>();
            JsonNode expect = Json.opt(step, "expect");
            for (Map.Entry<String, JsonNode> e : entries(expect, field + ".expect")) {
                JsonNode want = e.getValue();
                String where = field + ".expect." + e.getKey();
                switch (e.getKey()) {
                    case "candidate_workers" -> {
                        if (!new HashSet<>(s.candidateWorkersForReassignment()).equals(new HashSet<>(strings(want, where)))) {
                            fails.add("candidate workers " + py(s.candidateWorkersForReassignment()) + " != " + py(want));
                        }
                    }
                    case "delay" -> {
                        if (!equalsNumber(want, s.delay())) {
                            fails.add("delay " + s.delay() + " != " + py(want));
                        }
                    }
                    case "scheduled_rebalance" -> {
                        if (!equalsNumber(want, s.scheduledRebalance())) {
                            fails.add("scheduled rebalance " + s.scheduledRebalance() + " != " + py(want));
                        }
                    }
                    case "scheduled_rebalance_minus_now" -> {
                        if (!equalsNumber(want, s.scheduledRebalance() - now)) {
                            fails.add("scheduled rebalance - now " + (s.scheduledRebalance() - now) + " != " + py(want));
                        }
                    }
                    case "to_reassign_contains_lost" -> {
                        if (want.asBoolean() && !(toReassign.connectors().containsAll(lost.connectors())
                                && toReassign.tasks().containsAll(lost.tasks()))) {
                            fails.add("lost work not all in to_reassign");
                        }
                    }
                    case "to_reassign_equals_lost" -> {
                        if (want.asBoolean() && !(new HashSet<>(toReassign.connectors()).equals(new HashSet<>(lost.connectors()))
                                && new HashSet<>(toReassign.tasks()).equals(new HashSet<>(lost.tasks())))) {
                            fails.add("to_reassign differs from the lost work");
                        }
                    }
                    case "workers_contain_lost" -> {
                        Set<String> chosen = new HashSet<>(strings(want, where));
                        Set<String> haveConnectors = new HashSet<>();
                        Set<ConnectorTaskId> haveTasks = new HashSet<>();
                        loads.stream().filter(l -> chosen.contains(l.worker())).forEach(l -> {
                            haveConnectors.addAll(l.connectors());
                            haveTasks.addAll(l.tasks());
                        });
                        if (!(haveConnectors.containsAll(lost.connectors()) && haveTasks.containsAll(lost.tasks()))) {
                            fails.add("lost work not all on workers " + py(want));
                        }
                    }
                    default -> throw new InputException(where, "unknown expectation");
                }
            }
            emit(record, index, fails);
        }

        private void assign(JsonNode step, int index, String field) {
            List<WorkerLoad> loads = workerLoads(step, field + ".worker_loads");
            if (loads.isEmpty()) {
                throw new InputException(field + ".worker_loads", "needs at least one worker");
            }
            // assignConnectors/assignTasks use no state: any IncrementalCooperativeAssignor answers the same
            IncrementalCooperativeAssignor assignor = cluster.incremental
                    ? cluster.incrementalAssignor(field + ".op")
                    : RebalanceOracleAccess.newAssignor(cluster.time, cluster.maxDelayMs, cluster.generationId);
            RebalanceOracleAccess.assignConnectorsAndTasks(assignor, loads, Json.stringList(step, "connectors"),
                    taskList(Json.optArray(step, "tasks"), field + ".tasks"));
            ObjectNode record = Json.object();
            record.put("op", "assign");
            ArrayNode loadsJson = loadsJson(loads);
            record.set("worker_loads", loadsJson);
            List<String> fails = new ArrayList<>();
            JsonNode expect = Json.opt(step, "expect");
            for (Map.Entry<String, JsonNode> e : entries(expect, field + ".expect")) {
                JsonNode want = e.getValue();
                switch (e.getKey()) {
                    case "worker_loads" -> {
                        if (!loadsJson.equals(want)) {
                            fails.add("worker loads differ");
                        }
                    }
                    case "each_connectors" -> {
                        if (loads.stream().anyMatch(l -> !equalsNumber(want, l.connectorsSize()))) {
                            fails.add("not every worker has " + py(want) + " connectors");
                        }
                    }
                    case "each_tasks" -> {
                        if (loads.stream().anyMatch(l -> !equalsNumber(want, l.tasksSize()))) {
                            fails.add("not every worker has " + py(want) + " tasks");
                        }
                    }
                    default -> throw new InputException(field + ".expect." + e.getKey(), "unknown expectation");
                }
            }
            emit(record, index, fails);
        }

        /** Appends a step's record (numbered) with the expectations it failed, which fail the whole line. */
        private void emit(ObjectNode record, int scenarioStep, List<String> failures) {
            record.put("step", outSteps.size());
            record.put("scenario_step", scenarioStep);
            if (!failures.isEmpty()) {
                record.set("expect_failures", Json.strings(failures));
                ok = false;
            }
            outSteps.add(record);
        }

        private ObjectNode totals(RoundResult r) {
            ObjectNode t = Json.object();
            t.put("assigned_connectors", r.workers().values().stream().mapToInt(w -> w.assignedConnectors().size()).sum());
            t.put("assigned_tasks", r.workers().values().stream().mapToInt(w -> w.assignedTasks().size()).sum());
            t.put("revoked_connectors", r.workers().values().stream().mapToInt(w -> w.revokedConnectors().size()).sum());
            t.put("revoked_tasks", r.workers().values().stream().mapToInt(w -> w.revokedTasks().size()).sum());
            return t;
        }
    }

    // ----------------------------------------------------------------------------------------------
    // input

    private static Map<String, Integer> connectorCounts(JsonNode node, String field) {
        Map<String, Integer> out = new LinkedHashMap<>();
        JsonNode spec = Json.opt(node, field);
        if (spec == null) {
            return out;
        }
        for (Map.Entry<String, JsonNode> e : entries(spec, field)) {
            JsonNode count = e.getValue();
            if (e.getKey().isEmpty() || !count.isIntegralNumber() || !count.canConvertToInt() || count.intValue() < 0) {
                throw new InputException(field + "." + e.getKey(),
                        "needs a non-empty connector name and a task count >= 0, got " + count);
            }
            out.put(e.getKey(), count.intValue());
        }
        return out;
    }

    /** The fields of a JSON object, in order (none when absent). */
    private static Iterable<Map.Entry<String, JsonNode>> entries(JsonNode node, String field) {
        if (node == null) {
            return List.of();
        }
        if (!node.isObject()) {
            throw new InputException(field, "must be an object, got " + node);
        }
        return node.properties();
    }

    private static List<String> strings(JsonNode node, String field) {
        if (!node.isArray()) {
            throw new InputException(field, "must be a list of strings, got " + node);
        }
        List<String> out = new ArrayList<>();
        for (JsonNode item : node) {
            if (!item.isTextual()) {
                throw new InputException(field, "must be a list of strings, got " + node);
            }
            out.add(item.textValue());
        }
        return out;
    }

    /** {@code {"connectors": [..], "tasks": ["conn-0", ..]}} (no other field). */
    private static Running running(JsonNode spec, String field) {
        if (!spec.isObject()) {
            throw new InputException(field, "must be 'carry', 'empty' or {connectors, tasks}, got " + spec);
        }
        spec.fieldNames().forEachRemaining(key -> {
            if (!key.equals("connectors") && !key.equals("tasks")) {
                throw new InputException(field + "." + key, "unknown field (expected connectors, tasks)");
            }
        });
        return new Running(Json.stringList(spec, "connectors"), taskList(Json.optArray(spec, "tasks"), field + ".tasks"));
    }

    /** Tasks written {@code "<connector>-<n>"}, split at the last {@code -} ({@code ConnectorTaskId.toString}). */
    private static List<ConnectorTaskId> taskList(JsonNode node, String field) {
        List<ConnectorTaskId> out = new ArrayList<>();
        int i = 0;
        for (JsonNode item : node) {
            String where = field + "[" + i++ + "]";
            String text = item.isTextual() ? item.textValue() : "";
            int dash = text.lastIndexOf('-');
            if (dash <= 0) {
                throw new InputException(where, item + " is not of the form 'connector-task'");
            }
            int task;
            try {
                task = Integer.parseInt(text.substring(dash + 1));
            } catch (NumberFormatException e) {
                throw new InputException(where, item + ": the task is not a whole number");
            }
            if (task < 0) {
                throw new InputException(where, item + ": the task number must not be negative");
            }
            out.add(new ConnectorTaskId(text.substring(0, dash), task));
        }
        return out;
    }

    /** {@code [{"worker", "connectors", "tasks"}]} as the unit test's {@code WorkerLoad.Builder.withCopies} builds them. */
    private static List<WorkerLoad> workerLoads(JsonNode step, String field) {
        List<WorkerLoad> loads = new ArrayList<>();
        int i = 0;
        for (JsonNode item : Json.optArray(step, "worker_loads")) {
            String where = field + "[" + i++ + "]";
            String worker = Json.opt(item, "worker") != null && item.get("worker").isTextual() ? item.get("worker").textValue() : null;
            if (worker == null) {
                throw new InputException(where, "needs a 'worker' id");
            }
            loads.add(new WorkerLoad.Builder(worker).withCopies(Json.stringList(item, "connectors"),
                    taskList(Json.optArray(item, "tasks"), where + ".tasks")).build());
        }
        return loads;
    }

    // ----------------------------------------------------------------------------------------------
    // output

    private static ArrayNode tasks(Collection<ConnectorTaskId> tasks) {
        ArrayNode out = Json.array();
        tasks.forEach(t -> out.add(t.toString()));
        return out;
    }

    private static ObjectNode runningJson(Collection<String> connectors, Collection<ConnectorTaskId> tasks) {
        ObjectNode out = Json.object();
        out.set("connectors", Json.strings(connectors));
        out.set("tasks", tasks(tasks));
        return out;
    }

    private static ObjectNode sortedJson(ConnectorsAndTasks c) {
        return runningJson(new TreeSet<>(c.connectors()), new TreeSet<>(c.tasks()));
    }

    private static ArrayNode loadsJson(List<WorkerLoad> loads) {
        ArrayNode out = Json.array();
        for (WorkerLoad l : loads) {
            ObjectNode entry = runningJson(l.connectors(), l.tasks());
            entry.put("worker", l.worker());
            out.add(entry);
        }
        return out;
    }

    /** {@code "Nc/Nt"}: a number of connectors and of tasks, as {@code "detail": "totals"} writes them. */
    private static String counts(int connectors, int tasks) {
        return connectors + "c/" + tasks + "t";
    }

    private static boolean equalsNumber(JsonNode want, long value) {
        return want.isIntegralNumber() && want.asLong() == value;
    }

    /** A value as the vectors' expectation messages write it (Python's {@code repr}: {@code ['a', 'b']}, {@code {'w': 2}}). */
    private static String py(Object value) {
        Object v = value instanceof JsonNode node ? Json.MAPPER.convertValue(node, Object.class) : value;
        if (v == null) {
            return "None";
        }
        if (v instanceof Boolean b) {
            return b ? "True" : "False";
        }
        if (v instanceof String text) {
            return "'" + text + "'";
        }
        if (v instanceof Map<?, ?> map) {
            return map.entrySet().stream().map(e -> py(e.getKey()) + ": " + py(e.getValue()))
                    .collect(Collectors.joining(", ", "{", "}"));
        }
        if (v instanceof Collection<?> items) {
            return items.stream().map(ConnectKind::py).collect(Collectors.joining(", ", "[", "]"));
        }
        return String.valueOf(v);
    }
}
