package org.rebalance.oracle;

import org.apache.kafka.clients.GroupRebalanceConfig;
import org.apache.kafka.common.message.JoinGroupResponseData.JoinGroupResponseMember;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.utils.LogContext;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.connect.runtime.distributed.ConnectAssignor;
import org.apache.kafka.connect.runtime.distributed.ConnectProtocolCompatibility;
import org.apache.kafka.connect.runtime.distributed.DistributedConfig;
import org.apache.kafka.connect.runtime.distributed.WorkerCoordinator;
import org.apache.kafka.connect.storage.ClusterConfigState;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The group leader's {@link WorkerCoordinator} during one Connect rebalance, for the vectors' protocol mode: what
 * {@code ConnectAssignor.performAssignment(leaderId, protocol, allMemberMetadata, coordinator)} reads from its
 * coordinator argument (Kafka 4.3.1; also 3.9.x).
 *
 * <p>It is a real {@code WorkerCoordinator}, built as {@code WorkerGroupMember} builds one (its
 * {@link GroupRebalanceConfig} read from a {@link DistributedConfig}), that is never connected to a broker:
 * as {@code IncrementalCooperativeAssignorTest}'s mocked coordinator does, it answers {@code generationId()},
 * {@code lastCompletedGenerationId()} and {@code memberId()} with the round's values instead of a joined
 * generation, its config snapshot is the round's {@link ClusterConfigState} (and nothing newer is in the config
 * topic, so {@code configFreshSnapshot()} returns the same), and it notes whether the assignor stored the
 * leader state ({@code leaderState(LeaderState)}).
 *
 * <p>{@link #performAssignment} calls the assignor the way {@code WorkerCoordinator.onLeaderElected} does.
 * The protocol argument is a {@link ConnectProtocolCompatibility} since Kafka 4.1 (KAFKA-19140) and the
 * protocol's wire name ({@code "default"}, {@code "compatible"}, {@code "sessioned"}) before, so the method
 * is looked up at run time and given the argument its release declares.
 */
final class ConnectLeader extends WorkerCoordinator {
    /** How a worker's group membership is configured; only the group id matters to the assignors. */
    private static final GroupRebalanceConfig REBALANCE_CONFIG = new GroupRebalanceConfig(
            new DistributedConfig(Map.of(
                    "bootstrap.servers", "localhost:9092",
                    "group.id", "connect-cluster",
                    "config.storage.topic", "connect-configs",
                    "offset.storage.topic", "connect-offsets",
                    "status.storage.topic", "connect-status",
                    "key.converter", "org.apache.kafka.connect.json.JsonConverter",
                    "value.converter", "org.apache.kafka.connect.json.JsonConverter")),
            GroupRebalanceConfig.ProtocolType.CONNECT);

    private static final Method PERFORM_ASSIGNMENT = Arrays.stream(ConnectAssignor.class.getMethods())
            .filter(m -> m.getName().equals("performAssignment"))
            .findFirst()
            .orElseThrow();

    private final ConnectProtocolCompatibility protocol;
    private final String leaderId;
    private final ClusterConfigState snapshot;
    private final int generationId;
    private final int lastCompletedGenerationId;
    private boolean leaderStateSet;

    ConnectLeader(Metrics metrics, Time time, int maxDelay, ConnectProtocolCompatibility protocol, String leaderId,
                  String leaderUrl, ClusterConfigState snapshot, int generationId, int lastCompletedGenerationId) {
        super(REBALANCE_CONFIG, new LogContext(), null, metrics, "connect", time, leaderUrl, null, null, protocol,
                maxDelay);
        this.protocol = protocol;
        this.leaderId = leaderId;
        this.snapshot = snapshot;
        this.generationId = generationId;
        this.lastCompletedGenerationId = lastCompletedGenerationId;
        configSnapshot(snapshot);
    }

    /** {@code assignor.performAssignment(leaderId, protocol, allMemberMetadata, this)}: member id -> serialized assignment. */
    @SuppressWarnings("unchecked")
    Map<String, ByteBuffer> performAssignment(ConnectAssignor assignor, List<JoinGroupResponseMember> allMemberMetadata) {
        Object protocolArgument = PERFORM_ASSIGNMENT.getParameterTypes()[1] == String.class ? protocol.protocol() : protocol;
        try {
            return (Map<String, ByteBuffer>) PERFORM_ASSIGNMENT.invoke(assignor, leaderId, protocolArgument,
                    allMemberMetadata, this);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(e.getCause());
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Whether the assignor stored its leader state in this coordinator. */
    boolean leaderStateSet() {
        return leaderStateSet;
    }

    @Override
    public int generationId() {
        return generationId;
    }

    @Override
    public int lastCompletedGenerationId() {
        return lastCompletedGenerationId;
    }

    @Override
    public String memberId() {
        return leaderId;
    }

    @Override
    public ClusterConfigState configFreshSnapshot() {
        return snapshot;
    }

    @Override
    public void leaderState(LeaderState update) {
        super.leaderState(update);
        leaderStateSet |= update != null;
    }
}
