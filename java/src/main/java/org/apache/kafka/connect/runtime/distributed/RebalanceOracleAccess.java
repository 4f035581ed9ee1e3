package org.apache.kafka.connect.runtime.distributed;

import org.apache.kafka.common.utils.LogContext;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.connect.runtime.distributed.IncrementalCooperativeAssignor.ClusterAssignment;
import org.apache.kafka.connect.runtime.distributed.WorkerCoordinator.ConnectorsAndTasks;
import org.apache.kafka.connect.runtime.distributed.WorkerCoordinator.WorkerLoad;
import org.apache.kafka.connect.storage.ClusterConfigState;
import org.apache.kafka.connect.util.ConnectorTaskId;

import java.lang.reflect.Field;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The oracle's door into the package-private and protected members of Kafka Connect's
 * {@link IncrementalCooperativeAssignor} (Kafka 4.3.1; the same members exist in 3.9.x), for
 * {@code org.rebalance.oracle.ConnectKind}. It lives in Kafka's package only to reach what
 * {@code IncrementalCooperativeAssignorTest} reaches from there:
 *
 * <ul>
 *   <li>{@code performTaskAssignment(ClusterConfigState, lastCompletedGenerationId, currentGenerationId,
 *       memberAssignments)} and its package-private result {@code ClusterAssignment}, copied into the public
 *       {@link Round};</li>
 *   <li>the protected {@code handleLostAssignments}, {@code assignConnectors} and {@code assignTasks};</li>
 *   <li>the protected fields the test reads and sets ({@code delay}, {@code scheduledRebalance},
 *       {@code previousGenerationId}, {@code previousMembers}, {@code candidateWorkersForReassignment}) and,
 *       through reflection, the private ones that make up the rest of the leader's memory between rounds
 *       ({@code previousAssignment}, {@code previousRevocation}, {@code revokedInPrevious},
 *       {@code numSuccessiveRevokingRebalances}), read into {@link State}.</li>
 * </ul>
 *
 * Nothing here computes an assignment: every call goes to Kafka's own code.
 */
public final class RebalanceOracleAccess {
    private static final Field PREVIOUS_ASSIGNMENT = field("previousAssignment");
    private static final Field PREVIOUS_REVOCATION = field("previousRevocation");
    private static final Field REVOKED_IN_PREVIOUS = field("revokedInPrevious");
    private static final Field NUM_SUCCESSIVE_REVOKING_REBALANCES = field("numSuccessiveRevokingRebalances");

    private RebalanceOracleAccess() {
    }

    /**
     * One round's {@code ClusterAssignment}: per worker, what it starts, stops and ends up with (maps and
     * collections exactly as Kafka built them, so their iteration orders are Kafka's).
     */
    public record Round(Map<String, Collection<String>> newlyAssignedConnectors,
                        Map<String, Collection<ConnectorTaskId>> newlyAssignedTasks,
                        Map<String, Collection<String>> newlyRevokedConnectors,
                        Map<String, Collection<ConnectorTaskId>> newlyRevokedTasks,
                        Map<String, Collection<String>> allAssignedConnectors,
                        Map<String, Collection<ConnectorTaskId>> allAssignedTasks) {
        static Round of(ClusterAssignment a) {
            return new Round(a.newlyAssignedConnectors(), a.newlyAssignedTasks(), a.newlyRevokedConnectors(),
                    a.newlyRevokedTasks(), a.allAssignedConnectors(), a.allAssignedTasks());
        }
    }

    /** The leader's memory between rounds: every field of {@link IncrementalCooperativeAssignor} that changes. */
    public record State(int delay, long scheduledRebalance, int previousGenerationId, Set<String> previousMembers,
                        Set<String> candidateWorkersForReassignment, boolean revokedInPrevious,
                        int numSuccessiveRevokingRebalances, ConnectorsAndTasks previousAssignment,
                        ConnectorsAndTasks previousRevocation) {
    }

    /**
     * {@link IncrementalCooperativeAssignor} remembers the {@code ClusterAssignment} of its last round, so
     * that a round run through the leader entry point {@code performAssignment} (which only returns the
     * serialized per-worker assignments) can still report each worker's complete assignment in Kafka's order.
     * The override only records what Kafka's method returns.
     */
    private static final class Recording extends IncrementalCooperativeAssignor {
        private ClusterAssignment last;

        Recording(LogContext logContext, Time time, int maxDelay) {
            super(logContext, time, maxDelay);
        }

        @Override
        ClusterAssignment performTaskAssignment(ClusterConfigState configSnapshot, int lastCompletedGenerationId,
                                                int currentGenerationId,
                                                Map<String, ConnectorsAndTasks> memberAssignments) {
            last = super.performTaskAssignment(configSnapshot, lastCompletedGenerationId, currentGenerationId,
                    memberAssignments);
            return last;
        }
    }

    /**
     * A new leader's assignor, as {@code WorkerCoordinator} builds it, whose {@code previousGenerationId} is
     * then set as {@code IncrementalCooperativeAssignorTest.initAssignor()} does.
     */
    public static IncrementalCooperativeAssignor newAssignor(Time time, int maxDelay, int previousGenerationId) {
        IncrementalCooperativeAssignor assignor = new Recording(new LogContext(), time, maxDelay);
        assignor.previousGenerationId = previousGenerationId;
        return assignor;
    }

    /** The direct call of the unit test: {@code performTaskAssignment(configSnapshot, ...)}. */
    public static Round performTaskAssignment(IncrementalCooperativeAssignor assignor, ClusterConfigState configSnapshot,
                                              int lastCompletedGenerationId, int currentGenerationId,
                                              Map<String, ConnectorsAndTasks> memberAssignments) {
        return Round.of(assignor.performTaskAssignment(configSnapshot, lastCompletedGenerationId,
                currentGenerationId, memberAssignments));
    }

    /** The {@code ClusterAssignment} of the assignor's last round (one made by {@link #newAssignor}). */
    public static Round lastRound(IncrementalCooperativeAssignor assignor) {
        return Round.of(((Recording) assignor).last);
    }

    /** {@code handleLostAssignments(lost, toReassign, workerLoads)}; returns {@code toReassign}, built. */
    public static ConnectorsAndTasks handleLostAssignments(IncrementalCooperativeAssignor assignor,
                                                           ConnectorsAndTasks lostAssignments,
                                                           List<WorkerLoad> completeWorkerAssignment) {
        ConnectorsAndTasks.Builder toReassign = new ConnectorsAndTasks.Builder();
        assignor.handleLostAssignments(lostAssignments, toReassign, completeWorkerAssignment);
        return toReassign.build();
    }

    /** {@code assignConnectors(workerLoads, connectors)} then {@code assignTasks(workerLoads, tasks)}. */
    public static void assignConnectorsAndTasks(IncrementalCooperativeAssignor assignor, List<WorkerLoad> workerLoads,
                                                Collection<String> connectors, Collection<ConnectorTaskId> tasks) {
        assignor.assignConnectors(workerLoads, connectors);
        assignor.assignTasks(workerLoads, tasks);
    }

    /** {@code assignor.previousMembers = members}, as the unit test sets it. */
    public static void setPreviousMembers(IncrementalCooperativeAssignor assignor, Set<String> members) {
        assignor.previousMembers = members;
    }

    public static State state(IncrementalCooperativeAssignor assignor) {
        try {
            return new State(assignor.delay, assignor.scheduledRebalance, assignor.previousGenerationId,
                    assignor.previousMembers, assignor.candidateWorkersForReassignment,
                    REVOKED_IN_PREVIOUS.getBoolean(assignor), NUM_SUCCESSIVE_REVOKING_REBALANCES.getInt(assignor),
                    (ConnectorsAndTasks) PREVIOUS_ASSIGNMENT.get(assignor),
                    (ConnectorsAndTasks) PREVIOUS_REVOCATION.get(assignor));
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Field field(String name) {
        try {
            Field f = IncrementalCooperativeAssignor.class.getDeclaredField(name);
            f.setAccessible(true);
            return f;
        } catch (NoSuchFieldException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
