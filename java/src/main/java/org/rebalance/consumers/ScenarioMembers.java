package org.rebalance.consumers;

import static org.rebalance.clients.JsonLines.clientProps;
import static org.rebalance.clients.JsonLines.emit;
import static org.rebalance.clients.JsonLines.error;
import static org.rebalance.clients.JsonLines.memberProps;
import static org.rebalance.clients.JsonLines.partitions;
import static org.rebalance.clients.JsonLines.record;
import static org.rebalance.clients.JsonLines.serve;
import static org.rebalance.clients.JsonLines.sleep;
import static org.rebalance.clients.JsonLines.texts;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
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

/**
 * A scenario's consumers as real {@link KafkaConsumer}s, driven by JSON lines on stdin, recording JSON lines on
 * stdout (one writer: every record is one whole line, written under one lock), through
 * {@link org.rebalance.clients.JsonLines}.
 *
 * <p>Commands:
 * <ul>
 *   <li>{@code {"op":"start","member":"c1","t0":EPOCH_MS,"topics":[...],"props":{...},"revoke_ms":N,"batch_ms":N}}
 *   -- a consumer thread: {@code new KafkaConsumer(props)} (client.id = the member), {@code subscribe(topics,
 *   listener)}, then {@code poll(100 ms)} and {@code batch_ms} of simulated work per loop; the listener sleeps
 *   {@code revoke_ms} in {@code onPartitionsRevoked} when it gives up partitions (the application's commit);</li>
 *   <li>{@code {"op":"leave","member":"c1"}} -- {@code close()} on that consumer's thread;</li>
 *   <li>{@code {"op":"ping","bootstrap":...}} -- answers {@code pong} after a warm-up consumer (no group) has
 *   fetched metadata once and closed;</li>
 *   <li>{@code {"op":"observe","bootstrap":...,"group":...,"t0":...,"interval_ms":N,"topics":[...]}} -- an
 *   {@link Admin} that records the topics' ids once and then every change of {@code describeConsumerGroups}
 *   (group epoch, target assignment epoch, each member's epoch, assignment and target assignment).</li>
 * </ul>
 * A crash is not a command: the Python side runs one member per JVM and kills it (SIGKILL), so its heartbeats
 * stop with no LeaveGroup, as when a process dies.  End of stdin halts the JVM at once (no close()).
 *
 * <p>Records: {@code {"member","event","t",...}} with {@code t} in ms since {@code t0}; events
 * {@code started}, {@code assigned}/{@code revoked}/{@code lost} (partitions, generation = {@code
 * groupMetadata().generationId()}, member_id), {@code assignor} (see {@link RecordingAssignor}), {@code closed},
 * {@code error}, and the observer's {@code topic_ids} and {@code group}.
 */
public final class ScenarioMembers {
    private static final Map<String, Member> MEMBERS = new HashMap<>();

    private ScenarioMembers() {}

    /** One consumer and its thread. */
    static final class Member implements Runnable, ConsumerRebalanceListener {
        final String name;
        final List<String> topics;
        final Properties props;
        final long revokeMs, batchMs;
        volatile boolean leave;
        KafkaConsumer<byte[], byte[]> consumer;

        Member(String name, List<String> topics, Properties props, long revokeMs, long batchMs) {
            this.name = name;
            this.topics = topics;
            this.props = props;
            this.revokeMs = revokeMs;
            this.batchMs = batchMs;
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

        @Override
        public void run() {
            try {
                consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
                consumer.subscribe(topics, this);
                emit(record(name, "started"));
                while (!leave) {
                    consumer.poll(Duration.ofMillis(100));
                    if (batchMs > 0 && !leave) sleep(batchMs);
                }
                ObjectNode closing = record(name, "closing");
                emit(closing);
                consumer.close();
                emit(record(name, "closed"));
            } catch (Throwable e) {
                error(name, e.toString());
            }
        }
    }

    static void observe(JsonNode cmd) {
        Properties p = clientProps(cmd.get("bootstrap").asText(), "rebalance-observer");
        String group = cmd.get("group").asText();
        long interval = cmd.path("interval_ms").asLong(50);
        List<String> topics = texts(cmd.get("topics"));
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
                error(null, "observer", e);
            }
        }, "observer");
        thread.setDaemon(true);
        thread.start();
    }

    /** Load the consumer's classes before the scenario's clock starts: a consumer with no group, one metadata
     *  request, closed (so a member's join is not delayed by the JVM's class loading). */
    static void warm(String bootstrap) {
        Properties p = clientProps(bootstrap, "rebalance-warm-up");
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            c.listTopics(Duration.ofSeconds(10));
        } catch (RuntimeException e) {
            // only a warm-up
        }
    }

    static void createTopics(JsonNode cmd) {
        Properties p = clientProps(cmd.get("bootstrap").asText(), "rebalance-admin");
        try (Admin admin = Admin.create(p)) {
            List<org.apache.kafka.clients.admin.NewTopic> topics = new ArrayList<>();
            cmd.get("topics").fields().forEachRemaining(e ->
                topics.add(new org.apache.kafka.clients.admin.NewTopic(e.getKey(), e.getValue().asInt(), (short) 1)));
            admin.createTopics(topics).all().get();
            if (cmd.has("group")) {
                // the group's coordinator ready before the clock starts: the first FindCoordinator creates
                // __consumer_offsets, which a member would otherwise wait for
                String group = cmd.get("group").asText();
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
            emit(record(null, "topics_created"));
        } catch (Exception e) {
            error(null, "create_topics", e);
        }
    }

    public static void main(String[] args) throws Exception {
        serve(ScenarioMembers::command, e -> "not JSON: " + e.getMessage());
    }

    /** One command (see the class comment); false when {@code op} is none of them. */
    private static boolean command(String op, String name, JsonNode cmd) {
        switch (op) {
            case "start" -> {
                Properties props = memberProps(cmd, name);
                List<String> topics = texts(cmd.get("topics"));
                Member m = new Member(name, topics, props, cmd.path("revoke_ms").asLong(0), cmd.path("batch_ms").asLong(0));
                MEMBERS.put(name, m);
                Thread t = new Thread(m, "member-" + name);
                t.start();
            }
            case "leave" -> {
                Member m = MEMBERS.get(name);
                if (m != null) m.leave = true;
            }
            case "observe" -> observe(cmd);
            case "create_topics" -> createTopics(cmd);
            case "ping" -> {
                if (cmd.has("bootstrap")) warm(cmd.get("bootstrap").asText());
                emit(record(name, "pong"));
            }
            default -> {
                return false;
            }
        }
        return true;
    }
}
