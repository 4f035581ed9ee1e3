package org.rebalance.consumers;

import static org.rebalance.clients.JsonLines.clientError;
import static org.rebalance.clients.JsonLines.clientProps;
import static org.rebalance.clients.JsonLines.emit;
import static org.rebalance.clients.JsonLines.memberProps;
import static org.rebalance.clients.JsonLines.partitions;
import static org.rebalance.clients.JsonLines.record;
import static org.rebalance.clients.JsonLines.sleep;
import static org.rebalance.clients.JsonLines.text;
import static org.rebalance.clients.JsonLines.texts;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.rebalance.clients.JsonLines;

/**
 * A scenario's consumers as real {@link KafkaConsumer}s, one client per {@code member}, driven through
 * {@link JsonLines} (the protocol and its table of commands and records are there): {@code warm},
 * {@code create_topics}, {@code prepare}, {@code start}, {@code subscribe}, {@code leave}, {@code observe},
 * {@code metrics}.
 *
 * <ul>
 *   <li>{@code prepare} -- {@code new KafkaConsumer(props)} (client.id = the member) before the scenario's clock
 *   starts, so that members starting at the same time start together; answers {@code prepared};</li>
 *   <li>{@code start} -- a consumer thread: the prepared consumer (or a new one), {@code
 *   subscribe(topics, listener)}, then {@code poll()} and, while it owns partitions, {@code batch_ms} of
 *   simulated work per loop (a full batch of records, as the simulators assume; the topics stay empty); a
 *   {@code poll()} lasts {@code poll_ms} (default 100) while the member owns partitions and processes batches,
 *   {@value #IDLE_POLL_MS} ms otherwise (on empty topics it loops until then, acting on each response); the
 *   listener sleeps {@code revoke_ms} in {@code onPartitionsRevoked} when it gives up partitions (the
 *   application's commit);</li>
 *   <li>{@code subscribe} -- {@code subscribe(topics, listener)} again, with new {@code topics}, on that consumer's
 *   thread before its next {@code poll}: the subscription changes while the member runs (a classic member rejoins
 *   with the client reason "subscription has changed"); answers {@code subscribed} (topics) once done;</li>
 *   <li>{@code leave} -- {@code close()} on that consumer's thread;</li>
 *   <li>{@code metrics} -- the values of the consumer's rebalance and poll metrics ({@link #METRICS}) as its
 *   {@code KafkaConsumer.metrics()} holds them now: a {@code metrics} record ({@code values} {name: value},
 *   {@code groups} {name: metric group}); read from the command thread through the live
 *   {@code KafkaMetric}s the member's thread took once, after the consumer was made (a {@code KafkaMetric}'s
 *   value is read under the metrics' own lock, so the consumer's thread is not disturbed);</li>
 *   <li>{@code warm} -- with {@code bootstrap}, a consumer with no group fetches metadata once and closes (the
 *   classes loaded before the scenario's clock starts); answers {@code warmed};</li>
 *   <li>{@code observe} -- an {@link Admin} that records the topics' ids once and then every change of
 *   {@code describeConsumerGroups} (group epoch, target assignment epoch, each member's epoch, assignment and
 *   target assignment).</li>
 * </ul>
 * A crash is not a command: the Python side runs a member that crashes in a JVM of its own and kills it (SIGKILL),
 * so its heartbeats stop with no LeaveGroup, as when a process dies; the members that neither crash nor restart
 * share one JVM, each on its own thread.
 *
 * <p>Member records: {@code started}, {@code member_id} (member_id, generation: after a {@code poll} that found
 * {@code groupMetadata().memberId()} set or changed), {@code assigned}/{@code revoked}/{@code lost} (partitions,
 * generation = {@code groupMetadata().generationId()}, member_id), {@code assignor} (see {@link RecordingAssignor}), {@code closing},
 * {@code closed}; the observer's {@code topic_ids} and {@code group}.
 */
public final class ScenarioMembers {
    /** a {@code poll()}'s timeout while a member owns nothing or processes nothing (and the default
     *  {@code poll_ms}) */
    static final long IDLE_POLL_MS = 100;
    private static final Map<String, Member> MEMBERS = new java.util.concurrent.ConcurrentHashMap<>();
    /** the metrics the {@code metrics} command reports: {@code consumer-coordinator-metrics} (the classic
     *  {@code ConsumerCoordinator}'s and the consumer protocol's {@code ConsumerRebalanceMetricsManager}) and
     *  {@code consumer-metrics} ({@code KafkaConsumerMetrics}, {@code AsyncConsumerMetrics}) */
    static final List<String> METRICS = List.of("rebalance-rate-per-hour", "rebalance-total", "rebalance-latency-avg",
        "rebalance-latency-max", "failed-rebalance-total", "failed-rebalance-rate-per-hour",
        "last-rebalance-seconds-ago", "last-poll-seconds-ago", "time-between-poll-avg", "time-between-poll-max",
        "poll-idle-ratio-avg");

    private ScenarioMembers() {}

    /** One consumer and its thread. */
    static final class Member implements Runnable, ConsumerRebalanceListener {
        final String name;
        final List<String> topics;
        final Properties props;
        final long revokeMs, batchMs;
        /** how long a {@code poll()} lasts while the member owns partitions and processes batches (the scenario's
         *  {@code poll_timeout_ms}): 0 is a consumer whose {@code poll()} returns at once, as with records waiting */
        final long pollMs;
        volatile boolean leave;
        /** set once a {@code start} has given the member its thread (a member is started once per JVM) */
        boolean started;
        /** the topics of a {@code subscribe} command not yet carried out by the member's thread, or {@code null} */
        volatile List<String> resubscribe;
        /** the last member id a {@code member_id} record named (only the member's thread reads it) */
        String lastMemberId = "";
        KafkaConsumer<byte[], byte[]> consumer;
        /** the live metrics of {@link #METRICS}, taken by the member's thread once the consumer is made */
        volatile Map<org.apache.kafka.common.MetricName, ? extends org.apache.kafka.common.Metric> metrics = Map.of();

        Member(String name, List<String> topics, Properties props, long revokeMs, long batchMs, long pollMs) {
            this.name = name;
            this.topics = topics;
            this.props = props;
            this.revokeMs = revokeMs;
            this.batchMs = batchMs;
            this.pollMs = pollMs;
        }

        /** The next {@code poll()}'s timeout: {@link #pollMs} while the member owns partitions and processes
         *  batches; else {@value #IDLE_POLL_MS} ms, in which the consumer acts on each response as it arrives (it
         *  loops until the timeout on empty topics), as the simulators' member that processes nothing acts at once
         *  (and without a busy loop when {@code pollMs} is 0). */
        long pollTimeoutMs() {
            return batchMs > 0 && !consumer.assignment().isEmpty() ? pollMs : IDLE_POLL_MS;
        }

        private void callback(String event, Collection<TopicPartition> tps) {
            ObjectNode r = record(name, event);
            r.set("partitions", partitions(tps));
            try {
                ConsumerGroupMetadata m = consumer.groupMetadata();
                r.put("generation", m.generationId());
                r.put("member_id", m.memberId());
            } catch (RuntimeException e) {
                r.put("generation_error", e.toString());
            }
            emit(r);
        }

        /** A {@code member_id} record the first time {@code groupMetadata().memberId()} is set and at every change:
         *  the member is named by its Kafka member id before any callback (one that joins and then loses its
         *  session or its process before its first callback).  Classic: the id of the JoinGroup response (a new one
         *  after the member is fenced and rejoins); consumer protocol: the id the client generated, set once the
         *  first heartbeat response gives it an epoch ({@code AbstractMembershipManager.updateMemberEpoch}) and
         *  kept for the client's life. */
        private void memberId() {
            String id = consumer.groupMetadata().memberId();
            if (id.isEmpty() || id.equals(lastMemberId)) return;
            lastMemberId = id;
            ObjectNode r = record(name, "member_id");
            r.put("member_id", id);
            r.put("generation", consumer.groupMetadata().generationId());
            emit(r);
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            callback("revoked", partitions);
            if (!partitions.isEmpty() && revokeMs > 0) sleep(revokeMs);
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            callback("assigned", partitions);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            callback("lost", partitions);
        }

        /** The member's {@code KafkaConsumer} (no request is sent until it subscribes and polls) and its live
         *  metrics (an unmodifiable view of the client's registry). */
        void make() {
            consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
            metrics = consumer.metrics();
        }

        @Override
        public void run() {
            try {
                if (consumer == null) make();
                consumer.subscribe(topics, this);
                emit(record(name, "started"));
                while (!leave) {
                    List<String> next = resubscribe;
                    if (next != null) {
                        resubscribe = null;
                        consumer.subscribe(next, this);
                        ObjectNode r = record(name, "subscribed");
                        r.set("topics", topicsNode(next));
                        emit(r);
                    }
                    consumer.poll(Duration.ofMillis(pollTimeoutMs()));
                    memberId();
                    // a batch to process only while it owns partitions: the simulators' application gets full
                    // batches from what it owns and, owning nothing (an eager member that has revoked, a member
                    // not assigned yet), gets nothing from poll() and polls again at once
                    if (batchMs > 0 && !leave && !consumer.assignment().isEmpty()) sleep(batchMs);
                }
                ObjectNode closing = record(name, "closing");
                emit(closing);
                consumer.close();
                emit(record(name, "closed"));
            } catch (Throwable e) {
                clientError(name, "consumer", e);
            }
        }
    }

    static ArrayNode topicsNode(List<String> topics) {
        ArrayNode a = JsonLines.JSON.createArrayNode();
        for (String topic : topics) a.add(topic);
        return a;
    }

    static void observe(JsonNode cmd) {
        Properties p = clientProps(text(cmd, "bootstrap"), "rebalance-observer");
        String group = text(cmd, "group");
        long interval = JsonLines.optionalLong(cmd, "interval_ms", 50);
        List<String> topics = texts(cmd, "topics");
        Thread thread = new Thread(() -> {
            try (Admin admin = Admin.create(p)) {
                Map<String, TopicDescription> td = admin.describeTopics(topics).allTopicNames().get();
                ObjectNode ids = record(null, "topic_ids");
                ObjectNode m = ids.putObject("ids");
                for (TopicDescription d : td.values()) m.put(d.name(), d.topicId().toString());
                emit(ids);
                String last = null;
                while (true) {
                    long began = System.currentTimeMillis();
                    try {
                        ConsumerGroupDescription g = admin.describeConsumerGroups(List.of(group)).all().get().get(group);
                        ObjectNode r = record(null, "group");
                        r.put("state", String.valueOf(g.groupState()));
                        r.put("type", String.valueOf(g.type()));
                        r.put("group_epoch", g.groupEpoch().orElse(-1));
                        r.put("target_epoch", g.targetAssignmentEpoch().orElse(-1));
                        ArrayNode members = r.putArray("members");
                        List<MemberDescription> ms = new ArrayList<>(g.members());
                        ms.sort(Comparator.comparing(MemberDescription::consumerId));
                        for (MemberDescription d : ms) {
                            ObjectNode o = members.addObject();
                            o.put("member_id", d.consumerId());
                            o.put("client_id", d.clientId());
                            o.put("instance_id", d.groupInstanceId().orElse(null));
                            o.put("member_epoch", d.memberEpoch().orElse(-1));
                            o.set("assignment", partitions(d.assignment().topicPartitions()));
                            if (d.targetAssignment().isPresent()) o.set("target", partitions(d.targetAssignment().get().topicPartitions()));
                        }
                        ObjectNode key = r.deepCopy();
                        key.remove("t");
                        String text = key.toString();
                        if (!Objects.equals(text, last)) {
                            emit(r);
                            last = text;
                        }
                    } catch (Exception e) {
                        // a group not yet created, or a coordinator moving: the next poll tells
                    }
                    sleep(Math.max(0, interval - (System.currentTimeMillis() - began)));
                }
            } catch (Exception e) {
                clientError(null, "observer", e);
            }
        }, "observer");
        thread.setDaemon(true);
        thread.start();
    }

    /** Load the consumer's classes before the scenario's clock starts: a consumer with no group, one metadata
     *  request, closed (so a member's join is not delayed by the JVM's class loading). */
    static void warm(JsonNode cmd) {
        if (cmd.has("bootstrap")) {
            Properties p = clientProps(text(cmd, "bootstrap"), "rebalance-warm-up");
            try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
                c.listTopics(Duration.ofSeconds(10));
            } catch (RuntimeException e) {
                // only a warm-up
            }
        }
        emit(record(null, "warmed"));
    }

    static void createTopics(JsonNode cmd) throws Exception {
        try (Admin admin = Admin.create(clientProps(text(cmd, "bootstrap"), "rebalance-admin"))) {
            ObjectNode created = JsonLines.createTopics(admin, cmd);
            if (cmd.has("group")) {
                // the group's coordinator ready before the clock starts: the first FindCoordinator creates
                // __consumer_offsets, which a member would otherwise wait for
                String group = text(cmd, "group");
                long deadline = System.currentTimeMillis() + 60_000;
                while (true) {
                    try {
                        admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
                        break;
                    } catch (Exception e) {
                        if (System.currentTimeMillis() > deadline) throw e;
                        sleep(100);
                    }
                }
            }
            emit(created);
        }
    }

    public static void main(String[] args) {
        Map<String, JsonLines.Command> commands = JsonLines.commands();
        commands.put("warm", ScenarioMembers::warm);
        commands.put("create_topics", ScenarioMembers::createTopics);
        commands.put("prepare", ScenarioMembers::prepare);
        commands.put("start", ScenarioMembers::start);
        commands.put("subscribe", ScenarioMembers::subscribe);
        commands.put("leave", ScenarioMembers::leave);
        commands.put("observe", ScenarioMembers::observe);
        commands.put("metrics", ScenarioMembers::metrics);
        JsonLines.serve("ScenarioMembers", commands);
    }

    static Member member(JsonNode cmd, String name) {
        return new Member(name, texts(cmd, "topics"), memberProps(cmd, name), JsonLines.optionalLong(cmd, "revoke_ms", 0),
            JsonLines.optionalLong(cmd, "batch_ms", 0), JsonLines.optionalLong(cmd, "poll_ms", IDLE_POLL_MS));
    }

    /** {@code prepare}: the member's consumer made now, before the scenario's clock, so that its {@code start}
     *  only subscribes and polls; answers {@code prepared}. */
    static void prepare(JsonNode cmd) {
        String name = JsonLines.member(cmd);
        if (MEMBERS.containsKey(name)) throw new JsonLines.BadField("member", name + " was prepared or started in this JVM already");
        Member m = member(cmd, name);
        m.make();
        MEMBERS.put(name, m);
        emit(record(name, "prepared"));
    }

    /** {@code start}: the member's thread, with the consumer a {@code prepare} made (its settings are the
     *  prepared ones), or with a new one made on that thread. */
    static void start(JsonNode cmd) {
        String name = JsonLines.member(cmd);
        Member m = MEMBERS.computeIfAbsent(name, n -> member(cmd, n));
        synchronized (m) {
            if (m.started) throw new JsonLines.BadField("member", name + " was started in this JVM already");
            m.started = true;
        }
        new Thread(m, "member-" + name).start();
    }

    static void subscribe(JsonNode cmd) {
        String name = JsonLines.member(cmd);
        List<String> topics = texts(cmd, "topics");
        Member m = MEMBERS.get(name);
        if (m == null) throw new JsonLines.BadField("member", "no member " + name + " was started in this JVM");
        m.resubscribe = topics;
    }

    static void leave(JsonNode cmd) {
        String name = JsonLines.member(cmd);
        Member m = MEMBERS.get(name);
        if (m == null) throw new JsonLines.BadField("member", "no member " + name + " was started in this JVM");
        m.leave = true;
    }

    static void metrics(JsonNode cmd) {
        String name = JsonLines.member(cmd);
        Member m = MEMBERS.get(name);
        if (m == null) throw new JsonLines.BadField("member", "no member " + name + " was started in this JVM");
        ObjectNode r = record(name, "metrics");
        ObjectNode values = r.putObject("values");
        ObjectNode groups = r.putObject("groups");
        for (Map.Entry<org.apache.kafka.common.MetricName, ? extends org.apache.kafka.common.Metric> e : m.metrics.entrySet()) {
            org.apache.kafka.common.MetricName n = e.getKey();
            if (!METRICS.contains(n.name()) || values.has(n.name())) continue;
            Object v = e.getValue().metricValue();
            if (v instanceof Number) {
                double d = ((Number) v).doubleValue();
                if (Double.isNaN(d) || Double.isInfinite(d)) values.putNull(n.name());
                else values.put(n.name(), d);
            } else {
                values.put(n.name(), String.valueOf(v));
            }
            groups.put(n.name(), n.group());
        }
        emit(r);
    }
}
