package org.rebalance.share;

import static org.rebalance.clients.JsonLines.BY_TOPIC_PARTITION;
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
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ShareGroupDescription;
import org.apache.kafka.clients.admin.ShareMemberDescription;
import org.apache.kafka.clients.admin.SharePartitionOffsetInfo;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Share-group members (KIP-932) as real {@link KafkaShareConsumer}s, driven by JSON lines on stdin, recording JSON
 * lines on stdout (one writer: each record one whole line).  Modelled on
 * {@link org.rebalance.consumers.ScenarioMembers}, with which it shares {@link org.rebalance.clients.JsonLines}.
 *
 * <p>Commands:
 * <ul>
 *   <li>{@code {"op":"start","member":"m1","t0":EPOCH_MS,"topics":[...],"props":{...},"release":[offsets],
 *   "reject":[offsets],"slow":[offsets],"slow_ms":N}} -- a consumer thread: {@code new KafkaShareConsumer(props)}
 *   (client.id = the member, explicit acknowledgement), {@code subscribe(topics)}, then {@code poll(100 ms)} in a
 *   loop.  Each record of a poll is acknowledged by the rule of its offset (the same at every delivery): {@code
 *   RELEASE} for the offsets in {@code release}, {@code REJECT} for those in {@code reject}, {@code ACCEPT} for the
 *   others, then {@code commitSync()}; a record whose offset is in {@code slow} is acknowledged ({@code ACCEPT})
 *   only {@code slow_ms} later (after the others of its poll are committed), so its acquisition lock expires
 *   first when {@code slow_ms} exceeds the group's lock duration;</li>
 *   <li>{@code {"op":"stop"}} -- every consumer of this JVM calls {@code close()}; {@code stopped} when all have;</li>
 *   <li>{@code {"op":"setup","bootstrap":...,"topics":{name:partitions},"group":...,"group_config":{...}}} -- creates
 *   the topics and sets the share group's dynamic configs ({@code incrementalAlterConfigs} on the GROUP
 *   resource, e.g. {@code share.auto.offset.reset=earliest}); answers {@code ready} with the topics' ids;</li>
 *   <li>{@code {"op":"produce","bootstrap":...,"topic":...,"partition":P,"count":N}} -- N records (values "0".."N-1")
 *   to one partition, flushed; answers {@code produced} with their offsets;</li>
 *   <li>{@code {"op":"describe","bootstrap":...,"group":...}} -- {@code describeShareGroups}: state, epochs and each
 *   member's (member id, client id, epoch, assignment); answers {@code group};</li>
 *   <li>{@code {"op":"offsets","bootstrap":...,"group":...}} -- {@code listShareGroupOffsets}: each partition's
 *   share-partition start offset and lag; answers {@code offsets};</li>
 *   <li>{@code {"op":"ping"}} -- answers {@code pong} (the JVM is up).</li>
 * </ul>
 * End of stdin halts the JVM at once.
 *
 * <p>Member records: {@code started}, {@code delivered} (topic, partition, offset, delivery_count, ack = the
 * acknowledgement it will get), {@code acked} (topic, partition, offsets, ok, error: from the
 * {@code AcknowledgementCommitCallback}), {@code closing}, {@code closed}, {@code error}; each with {@code t}
 * in ms since {@code t0}.
 */
public final class ShareMembers {
    private static final List<Member> MEMBERS = new ArrayList<>();

    private ShareMembers() {}

    static Set<Long> offsetSet(JsonNode a) {
        Set<Long> s = new HashSet<>();
        if (a != null) a.forEach(n -> s.add(n.asLong()));
        return s;
    }

    /** One share consumer and its thread. */
    static final class Member implements Runnable {
        final String name;
        final List<String> topics;
        final Properties props;
        final Set<Long> release, reject, slow;
        final long slowMs;
        volatile boolean leave;
        final Thread thread;

        Member(String name, List<String> topics, Properties props, Set<Long> release, Set<Long> reject, Set<Long> slow, long slowMs) {
            this.name = name;
            this.topics = topics;
            this.props = props;
            this.release = release;
            this.reject = reject;
            this.slow = slow;
            this.slowMs = slowMs;
            this.thread = new Thread(this, "share-member-" + name);
        }

        AcknowledgeType rule(long offset) {
            if (release.contains(offset)) return AcknowledgeType.RELEASE;
            if (reject.contains(offset)) return AcknowledgeType.REJECT;
            return AcknowledgeType.ACCEPT;
        }

        void onAcked(Map<TopicIdPartition, Set<Long>> acked, Exception exception) {
            for (Map.Entry<TopicIdPartition, Set<Long>> e : acked.entrySet()) {
                ObjectNode r = record(name, "acked");
                r.put("topic", e.getKey().topic());
                r.put("partition", e.getKey().partition());
                ArrayNode a = r.putArray("offsets");
                e.getValue().stream().sorted().forEach(a::add);
                r.put("ok", exception == null);
                if (exception != null) r.put("error", exception.getClass().getSimpleName());
                emit(r);
            }
        }

        @Override
        public void run() {
            try (KafkaShareConsumer<byte[], byte[]> consumer = new KafkaShareConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
                consumer.setAcknowledgementCommitCallback(this::onAcked);
                consumer.subscribe(topics);
                emit(record(name, "started"));
                while (!leave) {
                    ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(100));
                    List<ConsumerRecord<byte[], byte[]>> late = new ArrayList<>();
                    for (ConsumerRecord<byte[], byte[]> rec : records) {
                        boolean isSlow = slow.contains(rec.offset());
                        AcknowledgeType type = isSlow ? AcknowledgeType.ACCEPT : rule(rec.offset());
                        ObjectNode r = record(name, "delivered");
                        r.put("topic", rec.topic());
                        r.put("partition", rec.partition());
                        r.put("offset", rec.offset());
                        r.put("delivery_count", rec.deliveryCount().map(Short::intValue).orElse(-1));
                        r.put("ack", isSlow ? "SLOW" : type.name());
                        emit(r);
                        if (isSlow) late.add(rec);
                        else consumer.acknowledge(rec, type);
                    }
                    if (!records.isEmpty()) consumer.commitSync();
                    if (!late.isEmpty()) {
                        sleep(slowMs);  // past the acquisition lock: the broker has released these records already
                        for (ConsumerRecord<byte[], byte[]> rec : late) consumer.acknowledge(rec, AcknowledgeType.ACCEPT);
                        consumer.commitSync();
                    }
                }
                emit(record(name, "closing"));
            } catch (Throwable e) {
                error(name, "member", e);
            }
            emit(record(name, "closed"));
        }
    }

    static Admin admin(JsonNode cmd) {
        return Admin.create(clientProps(cmd.get("bootstrap").asText(), "rebalance-share-admin"));
    }

    static void setup(JsonNode cmd) {
        try (Admin admin = admin(cmd)) {
            List<NewTopic> topics = new ArrayList<>();
            List<String> names = new ArrayList<>();
            cmd.get("topics").fields().forEachRemaining(e -> {
                topics.add(new NewTopic(e.getKey(), e.getValue().asInt(), (short) 1));
                names.add(e.getKey());
            });
            admin.createTopics(topics).all().get();
            ConfigResource group = new ConfigResource(ConfigResource.Type.GROUP, cmd.get("group").asText());
            List<AlterConfigOp> ops = new ArrayList<>();
            cmd.path("group_config").fields().forEachRemaining(e ->
                ops.add(new AlterConfigOp(new ConfigEntry(e.getKey(), e.getValue().asText()), AlterConfigOp.OpType.SET)));
            if (!ops.isEmpty()) admin.incrementalAlterConfigs(Map.of(group, ops)).all().get();
            ObjectNode r = record(null, "ready");
            ObjectNode ids = r.putObject("topic_ids");
            long deadline = System.currentTimeMillis() + 30_000;
            while (true) {  // the topics' leaders known before anyone produces or subscribes
                try {
                    Map<String, TopicDescription> td = admin.describeTopics(names).allTopicNames().get();
                    boolean led = td.values().stream().allMatch(d -> d.partitions().stream().allMatch(p -> p.leader() != null));
                    if (led) {
                        for (TopicDescription d : td.values()) ids.put(d.name(), d.topicId().toString());
                        break;
                    }
                } catch (Exception e) {
                    if (System.currentTimeMillis() > deadline) throw e;
                }
                if (System.currentTimeMillis() > deadline) throw new IllegalStateException("no leaders for " + names);
                sleep(100);
            }
            emit(r);
        } catch (Exception e) {
            error(null, "setup", e);
        }
    }

    static void produce(JsonNode cmd) {
        Properties p = clientProps(cmd.get("bootstrap").asText(), "rebalance-share-producer");
        p.put("linger.ms", "0");
        String topic = cmd.get("topic").asText();
        int partition = cmd.path("partition").asInt(0);
        int count = cmd.get("count").asInt();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            ObjectNode r = record(null, "produced");
            ArrayNode a = r.putArray("offsets");
            for (int i = 0; i < count; i++) {
                byte[] v = Integer.toString(i).getBytes(StandardCharsets.UTF_8);
                a.add(producer.send(new ProducerRecord<>(topic, partition, null, v)).get().offset());
            }
            producer.flush();
            emit(r);
        } catch (Exception e) {
            error(null, "produce", e);
        }
    }

    static void describe(JsonNode cmd) {
        String group = cmd.get("group").asText();
        try (Admin admin = admin(cmd)) {
            ShareGroupDescription g = admin.describeShareGroups(List.of(group)).all().get().get(group);
            ObjectNode r = record(null, "group");
            r.put("state", String.valueOf(g.groupState()));
            r.put("group_epoch", g.groupEpoch());
            r.put("target_epoch", g.targetAssignmentEpoch());
            ArrayNode members = r.putArray("members");
            List<ShareMemberDescription> ms = new ArrayList<>(g.members());
            ms.sort(Comparator.comparing(ShareMemberDescription::consumerId));
            for (ShareMemberDescription d : ms) {
                ObjectNode o = members.addObject();
                o.put("member_id", d.consumerId());
                o.put("client_id", d.clientId());
                o.put("member_epoch", d.memberEpoch());
                o.set("assignment", partitions(d.assignment().topicPartitions()));
            }
            emit(r);
        } catch (Exception e) {
            error(null, "describe", e);
        }
    }

    static void offsets(JsonNode cmd) {
        String group = cmd.get("group").asText();
        try (Admin admin = admin(cmd)) {
            Map<TopicPartition, SharePartitionOffsetInfo> info = admin.listShareGroupOffsets(Map.of(group, new ListShareGroupOffsetsSpec()))
                .partitionsToOffsetInfo(group).get();
            ObjectNode r = record(null, "offsets");
            ObjectNode o = r.putObject("start_offsets");
            ObjectNode lags = r.putObject("lags");
            List<TopicPartition> tps = new ArrayList<>(info.keySet());
            tps.sort(BY_TOPIC_PARTITION);
            for (TopicPartition tp : tps) {
                SharePartitionOffsetInfo i = info.get(tp);
                o.put(tp.toString(), i == null ? -1 : i.startOffset());
                lags.put(tp.toString(), i == null ? -1 : i.lag().orElse(-1L));
            }
            emit(r);
        } catch (Exception e) {
            error(null, "offsets", e);
        }
    }

    public static void main(String[] args) throws Exception {
        serve(ShareMembers::command, e -> "not JSON: " + e);
    }

    /** One command (see the class comment); false when {@code op} is none of them. */
    private static boolean command(String op, String name, JsonNode cmd) throws InterruptedException {
        switch (op) {
            case "start" -> {
                Properties props = memberProps(cmd, name);
                props.put("share.acknowledgement.mode", "explicit");
                List<String> topics = texts(cmd.get("topics"));
                Member m = new Member(name, topics, props, offsetSet(cmd.get("release")), offsetSet(cmd.get("reject")),
                    offsetSet(cmd.get("slow")), cmd.path("slow_ms").asLong(0));
                MEMBERS.add(m);
                m.thread.start();
            }
            case "stop" -> {
                for (Member m : MEMBERS) m.leave = true;
                for (Member m : MEMBERS) m.thread.join(30_000);
                emit(record(null, "stopped"));
            }
            case "setup" -> setup(cmd);
            case "produce" -> produce(cmd);
            case "describe" -> describe(cmd);
            case "offsets" -> offsets(cmd);
            case "ping" -> emit(record(name, "pong"));
            default -> {
                return false;
            }
        }
        return true;
    }
}
