package org.rebalance.oracle;

import org.apache.kafka.common.message.JoinGroupResponseData.JoinGroupResponseMember;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.utils.LogContext;
import org.apache.kafka.common.utils.MockTime;
import org.apache.kafka.connect.runtime.TargetState;
import org.apache.kafka.connect.runtime.distributed.ConnectAssignor;
import org.apache.kafka.connect.runtime.distributed.ConnectProtocol;
import org.apache.kafka.connect.runtime.distributed.ConnectProtocolCompatibility;
import org.apache.kafka.connect.runtime.distributed.EagerAssignor;
import org.apache.kafka.connect.runtime.distributed.ExtendedAssignment;
import org.apache.kafka.connect.runtime.distributed.ExtendedWorkerState;
import org.apache.kafka.connect.runtime.distributed.IncrementalCooperativeAssignor;
import org.apache.kafka.connect.runtime.distributed.IncrementalCooperativeConnectProtocol;
import org.apache.kafka.connect.runtime.distributed.RebalanceOracleAccess;
import org.apache.kafka.connect.runtime.distributed.WorkerCoordinator.ConnectorsAndTasks;
import org.apache.kafka.connect.storage.ClusterConfigState;
import org.apache.kafka.connect.util.ConnectorTaskId;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A Kafka Connect cluster driven round by round for the {@code connect} vectors: the workers, what each is
 * running, the configured connectors, the clock, and the leader's assignor from Kafka's jars (4.3.1 pinned;
 * 3.9.x also runs): {@link IncrementalCooperativeAssignor} ({@code connect.protocol} compatible or sessioned)
 * or {@link EagerAssignor} ({@code eager}, wire name {@code "default"}).
 *
 * <p>A round hands the members' running work to the assignor in one of two ways:
 * <ul>
 *   <li>{@code direct} (incremental only): the package-private
 *       {@code performTaskAssignment(ClusterConfigState, lastCompletedGenerationId, currentGenerationId,
 *       memberAssignments)} that {@code IncrementalCooperativeAssignorTest} drives, with the member map a
 *       {@code HashMap} (as the test and the leader build it) or a {@code LinkedHashMap} filled in input order;</li>
 *   <li>{@code protocol}: the leader entry point {@code ConnectAssignor.performAssignment} on the members'
 *       serialized JoinGroup metadata ({@code ConnectProtocol.serializeMetadata} for the eager protocol,
 *       {@code IncrementalCooperativeConnectProtocol.serializeMetadata} with the running work as an
 *       {@code ExtendedAssignment} otherwise); each worker reads its assignment back with
 *       {@code IncrementalCooperativeConnectProtocol.deserializeAssignment}, as
 *       {@code WorkerCoordinator.onJoinComplete} does.</li>
 * </ul>
 *
 * <p>The harness then applies the answer to the running state (the workers stop what is revoked and start
 * what is assigned; under the eager protocol {@code WorkerCoordinator.onJoinPrepare} has already stopped
 * everything), and follows the herder ({@code DistributedHerder}): a round with revocations is followed at
 * once by another, and a positive delay schedules one at {@code now + delay}.
 */
final class ConnectCluster {
    /** The config topic offset every worker has read (all workers stay in sync). */
    private static final long CONFIG_OFFSET = 0;

    /** What one worker runs: connectors and tasks, in the order they were started. */
    record Running(List<String> connectors, List<ConnectorTaskId> tasks) {
    }

    /** One worker's share of a round: what it starts, what it stops and its complete assignment after. */
    record WorkerRound(List<String> assignedConnectors, List<ConnectorTaskId> assignedTasks,
                       List<String> revokedConnectors, List<ConnectorTaskId> revokedTasks,
                       List<String> allConnectors, List<ConnectorTaskId> allTasks) {
        boolean revokesAnything() {
            return !revokedConnectors.isEmpty() || !revokedTasks.isEmpty();
        }
    }

    /** One rebalance: its input, each worker's share and the delay sent; protocol fields only on the protocol path. */
    record RoundResult(int generationId, int lastCompletedGenerationId, long timeMs, Map<String, Integer> connectors,
                       Map<String, Running> membersIn, Map<String, WorkerRound> workers, int delay, boolean failed,
                       String leader, Map<String, Short> protocolVersions, boolean leaderStateSet, String followUp) {
        boolean revokedAnything() {
            return workers.values().stream().anyMatch(WorkerRound::revokesAnything);
        }

        RoundResult asFollowUp(String reason) {
            return new RoundResult(generationId, lastCompletedGenerationId, timeMs, connectors, membersIn, workers,
                    delay, failed, leader, protocolVersions, leaderStateSet, reason);
        }
    }

    final boolean incremental;
    final String mode;
    final ConnectProtocolCompatibility protocol;
    final int maxDelayMs;
    final MockTime time;
    private final boolean hashMembers;
    int generationId;
    final Map<String, Integer> connectors;
    Map<String, Running> running = new LinkedHashMap<>();
    /** {@code DistributedHerder.scheduledRebalance} of the workers, null for none ({@code Long.MAX_VALUE}). */
    private Long scheduledRebalance;
    private ConnectAssignor assignor;

    /**
     * @param incremental {@link IncrementalCooperativeAssignor} (true) or {@link EagerAssignor}, which always
     *                    runs on the protocol path with the eager protocol
     * @param hashMembers direct mode's member map is a {@code HashMap} (else a {@code LinkedHashMap})
     */
    ConnectCluster(boolean incremental, String mode, ConnectProtocolCompatibility protocol, int maxDelayMs,
                   long initialTimeMs, int initialGenerationId, int initialPreviousGenerationId,
                   boolean hashMembers, Map<String, Integer> connectors) {
        this.incremental = incremental;
        this.mode = incremental ? mode : "protocol";
        this.protocol = incremental ? protocol : ConnectProtocolCompatibility.EAGER;
        this.maxDelayMs = maxDelayMs;
        this.time = new MockTime(0, initialTimeMs, TimeUnit.MILLISECONDS.toNanos(initialTimeMs));
        this.hashMembers = hashMembers;
        this.generationId = initialGenerationId;
        this.connectors = new LinkedHashMap<>(connectors);
        reset(initialPreviousGenerationId);
    }

    /** A new leader: a fresh assignor (its memory of earlier rounds is lost). */
    void reset(int previousGenerationId) {
        assignor = incremental
                ? RebalanceOracleAccess.newAssignor(time, maxDelayMs, previousGenerationId)
                : new EagerAssignor(new LogContext());
    }

    /** The incremental assignor, or an input error naming {@code field} under the eager one. */
    IncrementalCooperativeAssignor incrementalAssignor(String field) {
        if (!incremental) {
            throw new InputException(field, "only the incremental assignor has this state");
        }
        return (IncrementalCooperativeAssignor) assignor;
    }

    /** The delay the assignor sent in the last round ({@code ExtendedAssignment.delay}; always 0 when eager). */
    int delay() {
        return incremental ? RebalanceOracleAccess.state((IncrementalCooperativeAssignor) assignor).delay() : 0;
    }

    /** The members of a new round given as ids: a worker of the previous round keeps what it runs, others start empty. */
    Map<String, Running> carried(Collection<String> workers) {
        Map<String, Running> out = new LinkedHashMap<>();
        for (String w : workers) {
            Running r = running.get(w);
            out.put(w, r == null ? new Running(new ArrayList<>(), new ArrayList<>())
                    : new Running(new ArrayList<>(r.connectors()), new ArrayList<>(r.tasks())));
        }
        return out;
    }

    /** One rebalance with these members (in join order), each running what the map says. */
    RoundResult rebalance(Map<String, Running> members, int generation, int lastCompleted, boolean failed,
                          String leader) {
        if (members.isEmpty()) {
            throw new InputException("members", "a rebalance needs at least one member");
        }
        generationId = generation;
        ClusterConfigState snapshot = configState();
        RoundResult result = mode.equals("direct")
                ? directRound(snapshot, members, generation, lastCompleted, failed)
                : protocolRound(snapshot, members, generation, lastCompleted, failed, leader);
        if (failed) {
            // the assignment never reached the workers (the unit test's performFailedRebalance)
            running = new LinkedHashMap<>(members);
        } else {
            apply(result);
            // DistributedHerder.onAssigned: scheduledRebalance = now + delay, or none
            scheduledRebalance = result.delay() > 0 ? result.timeMs() + result.delay() : null;
        }
        return result;
    }

    /**
     * The configuration the leader reads, as the unit test's {@code clusterConfigState} builds it: every
     * connector with an (empty) config, started, and its tasks {@code connector-0 .. connector-(n-1)}.
     */
    private ClusterConfigState configState() {
        Map<String, Integer> taskCounts = new LinkedHashMap<>(connectors);
        Map<String, Map<String, String>> connectorConfigs = new LinkedHashMap<>();
        Map<String, TargetState> targetStates = new LinkedHashMap<>();
        Map<ConnectorTaskId, Map<String, String>> taskConfigs = new LinkedHashMap<>();
        taskCounts.forEach((connector, count) -> {
            connectorConfigs.put(connector, Map.of());
            targetStates.put(connector, TargetState.STARTED);
            for (int i = 0; i < count; i++) {
                taskConfigs.put(new ConnectorTaskId(connector, i), Map.of());
            }
        });
        return new ClusterConfigState(CONFIG_OFFSET, null, taskCounts, connectorConfigs, targetStates, taskConfigs,
                Map.of(), Map.of(), Map.of(), Set.of(), Set.of());
    }

    private RoundResult directRound(ClusterConfigState snapshot, Map<String, Running> members, int generation,
                                    int lastCompleted, boolean failed) {
        Map<String, ConnectorsAndTasks> memberAssignments = hashMembers ? new HashMap<>() : new LinkedHashMap<>();
        members.forEach((w, r) -> memberAssignments.put(w,
                new ConnectorsAndTasks.Builder().with(r.connectors(), r.tasks()).build()));
        IncrementalCooperativeAssignor incremental = (IncrementalCooperativeAssignor) assignor;
        RebalanceOracleAccess.Round round = RebalanceOracleAccess.performTaskAssignment(incremental, snapshot,
                lastCompleted, generation, memberAssignments);
        Map<String, WorkerRound> workers = new LinkedHashMap<>();
        for (String w : members.keySet()) {
            workers.put(w, new WorkerRound(
                    list(round.newlyAssignedConnectors(), w), list(round.newlyAssignedTasks(), w),
                    list(round.newlyRevokedConnectors(), w), list(round.newlyRevokedTasks(), w),
                    list(round.allAssignedConnectors(), w), list(round.allAssignedTasks(), w)));
        }
        return new RoundResult(generation, lastCompleted, time.milliseconds(), new LinkedHashMap<>(connectors),
                members, workers, delay(), failed, null, null, false, null);
    }

    private RoundResult protocolRound(ClusterConfigState snapshot, Map<String, Running> members, int generation,
                                      int lastCompleted, boolean failed, String leader) {
        String leaderId = leader != null ? leader : members.keySet().stream().sorted().findFirst().orElseThrow();
        if (!members.containsKey(leaderId)) {
            throw new InputException("leader", leaderId + " is not a member of this round");
        }
        List<JoinGroupResponseMember> allMemberMetadata = new ArrayList<>();
        members.forEach((w, r) -> allMemberMetadata.add(new JoinGroupResponseMember()
                .setMemberId(w)
                .setMetadata(metadata(workerUrl(w), r).array())));
        Map<String, ByteBuffer> assignments;
        boolean leaderStateSet;
        try (Metrics metrics = new Metrics(time)) {
            ConnectLeader coordinator = new ConnectLeader(metrics, time, maxDelayMs, protocol, leaderId,
                    workerUrl(leaderId), snapshot, generation, lastCompleted);
            assignments = coordinator.performAssignment(assignor, allMemberMetadata);
            leaderStateSet = coordinator.leaderStateSet();
        }
        RebalanceOracleAccess.Round round = incremental
                ? RebalanceOracleAccess.lastRound((IncrementalCooperativeAssignor) assignor) : null;
        Map<String, WorkerRound> workers = new LinkedHashMap<>();
        Map<String, Short> versions = new LinkedHashMap<>();
        members.forEach((w, r) -> {
            // what WorkerCoordinator.onJoinComplete reads, whatever the protocol
            ExtendedAssignment got = IncrementalCooperativeConnectProtocol.deserializeAssignment(assignments.get(w));
            versions.put(w, got.version());
            List<String> assignedConnectors = new ArrayList<>(got.connectors());
            List<ConnectorTaskId> assignedTasks = new ArrayList<>(got.tasks());
            workers.put(w, round == null
                    // eager: WorkerCoordinator.onJoinPrepare already stopped everything the worker ran
                    ? new WorkerRound(assignedConnectors, assignedTasks, new ArrayList<>(r.connectors()),
                            new ArrayList<>(r.tasks()), new ArrayList<>(assignedConnectors), new ArrayList<>(assignedTasks))
                    : new WorkerRound(assignedConnectors, assignedTasks, new ArrayList<>(got.revokedConnectors()),
                            new ArrayList<>(got.revokedTasks()), list(round.allAssignedConnectors(), w),
                            list(round.allAssignedTasks(), w)));
        });
        return new RoundResult(generation, lastCompleted, time.milliseconds(), new LinkedHashMap<>(connectors),
                members, workers, delay(), failed, leaderId, versions, leaderStateSet, null);
    }

    /**
     * A worker's JoinGroup metadata ({@code WorkerCoordinator.metadata()}) for the cluster's protocol: its REST
     * url and config offset, and from V1 on the work it runs (none: a null assignment).
     */
    private ByteBuffer metadata(String url, Running r) {
        if (protocol == ConnectProtocolCompatibility.EAGER) {
            return ConnectProtocol.serializeMetadata(new ConnectProtocol.WorkerState(url, CONFIG_OFFSET));
        }
        ExtendedAssignment runningWork = r.connectors().isEmpty() && r.tasks().isEmpty() ? null
                : new ExtendedAssignment(protocol.protocolVersion(), ExtendedAssignment.NO_ERROR, "", "", CONFIG_OFFSET,
                        r.connectors(), r.tasks(), List.of(), List.of(), 0);
        return IncrementalCooperativeConnectProtocol.serializeMetadata(
                new ExtendedWorkerState(url, CONFIG_OFFSET, runningWork),
                protocol == ConnectProtocolCompatibility.SESSIONED);
    }

    private static String workerUrl(String worker) {
        return "http://" + worker + ":8083";
    }

    private static <T> List<T> list(Map<String, Collection<T>> byWorker, String worker) {
        Collection<T> values = byWorker.get(worker);
        return values == null ? new ArrayList<>() : new ArrayList<>(values);
    }

    /**
     * The workers stop what is revoked and start what is assigned.  In protocol mode, as a worker does it
     * ({@code WorkerCoordinator.onJoinComplete}, lines 213-214 at 4.3.1: the kept work is appended to the newly
     * assigned, {@code newAssignment.tasks().addAll(snapshot.tasks())}), the new work comes first; in direct
     * mode (performTaskAssignment, no worker in the loop) the kept work comes first, the harness's own order.
     */
    private void apply(RoundResult result) {
        boolean startFirst = mode.equals("protocol");
        Map<String, Running> next = new LinkedHashMap<>();
        result.membersIn().forEach((w, r) -> {
            WorkerRound wr = result.workers().get(w);
            next.put(w, new Running(
                    keepAndStart(r.connectors(), wr.revokedConnectors(), wr.assignedConnectors(), startFirst),
                    keepAndStart(r.tasks(), wr.revokedTasks(), wr.assignedTasks(), startFirst)));
        });
        running = next;
    }

    private static <T> List<T> keepAndStart(List<T> ran, List<T> revoked, List<T> assigned, boolean startFirst) {
        List<T> both = keepThenStart(ran, revoked, assigned);
        if (!startFirst) {
            return both;
        }
        Set<T> stop = new HashSet<>(revoked);
        List<T> kept = new ArrayList<>();
        for (T x : ran) {
            if (!stop.contains(x)) {
                kept.add(x);
            }
        }
        List<T> out = new ArrayList<>(both.subList(kept.size(), both.size()));
        out.addAll(kept);
        return out;
    }

    private static <T> List<T> keepThenStart(List<T> ran, List<T> revoked, List<T> assigned) {
        Set<T> stop = new HashSet<>(revoked);
        List<T> out = new ArrayList<>();
        for (T x : ran) {
            if (!stop.contains(x)) {
                out.add(x);
            }
        }
        Set<T> kept = new HashSet<>(out);
        for (T x : assigned) {
            if (!kept.contains(x)) {
                out.add(x);
            }
        }
        return out;
    }

    /**
     * Why the herders rebalance again after {@code result} (incremental only), or null: at once after a
     * revocation ({@code DistributedHerder.handleRebalanceCompleted} -> {@code requestRejoin}), or when the
     * scheduled rebalance falls due ({@code "scheduled_delay"}).
     */
    private String followUpReason(RoundResult result, boolean settleDelay) {
        if (!incremental) {
            return null;
        }
        if (result.revokedAnything()) {
            return "revocation";
        }
        return settleDelay && scheduledRebalance != null ? "scheduled_delay" : null;
    }

    /**
     * The herders' follow-up rounds after {@code result}, same members carried: after a revocation at once, for
     * a scheduled rebalance after sleeping until it is due; until neither holds or {@code maxFollowUps} ran.
     */
    List<RoundResult> settle(RoundResult result, boolean settleDelay, int maxFollowUps) {
        List<RoundResult> rounds = new ArrayList<>();
        RoundResult last = result;
        for (int i = 0; i < maxFollowUps; i++) {
            String reason = followUpReason(last, settleDelay);
            if (reason == null) {
                break;
            }
            if (reason.equals("scheduled_delay")) {
                time.sleep(Math.max(0, scheduledRebalance - time.milliseconds()));
            }
            int generation = generationId + 1;
            last = rebalance(carried(last.membersIn().keySet()), generation, generation - 1, false, null)
                    .asFollowUp(reason);
            rounds.add(last);
        }
        return rounds;
    }
}
