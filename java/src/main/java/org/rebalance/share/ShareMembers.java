package org.rebalance.share;

import static org.rebalance.clients.JsonLines.BY_TOPIC_PARTITION;
import static org.rebalance.clients.JsonLines.clientError;
import static org.rebalance.clients.JsonLines.clientProps;
import static org.rebalance.clients.JsonLines.emit;
import static org.rebalance.clients.JsonLines.memberProps;
import static org.rebalance.clients.JsonLines.offsetSet;
import static org.rebalance.clients.JsonLines.partitions;
import static org.rebalance.clients.JsonLines.record;
import static org.rebalance.clients.JsonLines.sleep;
import static org.rebalance.clients.JsonLines.text;
import static org.rebalance.clients.JsonLines.texts;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.clients.admin.ShareGroupDescription;
import org.apache.kafka.clients.admin.ShareMemberDescription;
import org.apache.kafka.clients.admin.SharePartitionOffsetInfo;
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
import org.rebalance.clients.JsonLines;

/**
 * Share-group members (KIP-932) as real {@link KafkaShareConsumer}s, one client per {@code member}, driven through
 * {@link org.rebalance.clients.JsonLines} (the protocol and its table of commands and records are there):
 * {@code create_topics}, {@code produce}, {@code start}, {@code stop}, {@code describe}, {@code offsets}.
 *
 * <ul>
 *   <li>{@code start} -- a consumer thread: {@code new KafkaShareConsumer(props)} (client.id = the member, explicit
 *   acknowledgement), {@code subscribe(topics)}, then {@code poll(100 ms)} in a loop.  Each record of a poll is
 *   acknowledged by the rule of its offset (the same at every delivery): {@code RELEASE} for the offsets in
 *   {@code release}, {@code REJECT} for those in {@code reject}, {@code ACCEPT} for the others, then {@code
 *   commitSync()}; a record whose offset is in {@code slow} is acknowledged ({@code ACCEPT}) only {@code slow_ms}
 *   later (after the others of its poll are committed), so its acquisition lock expires first when {@code slow_ms}
 *   exceeds the group's lock duration; {@code processing_ms} (optional) is slept before each record's
 *   acknowledgement (the application's time per record);</li>
 *   <li>{@code leave} -- that member finishes its poll's records and calls {@code close()} ({@code closing},
 *   {@code closed});</li>
 *   <li>{@code stop} -- every consumer of this JVM calls {@code close()}; {@code stopped} when all have;</li>
 *   <li>{@code create_topics} -- creates the topics and sets the share group's dynamic configs ({@code
 *   group_config}: {@code incrementalAlterConfigs} on the GROUP resource, e.g. {@code
 *   share.auto.offset.reset=earliest}); answers {@code topics_created} with the topics' ids;</li>
 *   <li>{@code produce} -- {@code count} records (values "0".."N-1") to one partition, each sent and acknowledged
 *   before the next (one batch each); answers {@code produced} with their offsets;</li>
 *   <li>{@code warm} -- a share consumer made and closed, the describing Admin made; answers {@code warmed};</li>
 *   <li>{@code describe} -- {@code describeShareGroups} (one Admin per bootstrap, kept open): state, epochs and each member's (member id, client id,
 *   epoch, assignment); answers {@code group};</li>
 *   <li>{@code offsets} -- {@code listShareGroupOffsets}: each partition's share-partition start offset and lag;
 *   answers {@code offsets}.</li>
 * </ul>
 *
 * <p>Member records: {@code started}, {@code delivered} (topic, partition, offset, delivery_count, ack = the
 * acknowledgement it will get), {@code acked} (topic, partition, offsets, ok, error: from the
 * {@code AcknowledgementCommitCallback}), {@code committed} (topic, partition, offsets, ok, error?: what each
 * poll's {@code commitSync()} returned, at once), {@code closing}, {@code closed}.
 */
public final class ShareMembers {
    private static final List<Member> MEMBERS = new java.util.concurrent.CopyOnWriteArrayList<>();

    private ShareMembers() {}

    /** One share consumer and its thread. */
    static final class Member implements Runnable {
        final String name;
        final List<String> topics;
        final Properties props;
        final Set<Long> release, reject, slow;
        final long slowMs;
        /** the application's time per record: slept before each record is acknowledged (0: none) */
        final long processingMs;
        volatile boolean leave;
        final Thread thread;

        Member(String name, List<String> topics, Properties props, Set<Long> release, Set<Long> reject, Set<Long> slow, long slowMs,
               long processingMs) {
            this.name = name;
            this.topics = topics;
            this.props = props;
            this.release = release;
            this.reject = reject;
            this.slow = slow;
            this.slowMs = slowMs;
            this.processingMs = processingMs;
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

        /**
         * {@code committed} records (topic, partition, offsets, ok, error?): what {@code commitSync()} returned for
         * the poll's acknowledgements, at once (the commit callback runs only at a later poll, which a killed
         * member never reaches).
         */
        void committed(Map<TopicIdPartition, List<Long>> batch,
                       Map<TopicIdPartition, java.util.Optional<org.apache.kafka.common.KafkaException>> result) {
            for (Map.Entry<TopicIdPartition, List<Long>> e : batch.entrySet()) {
                java.util.Optional<org.apache.kafka.common.KafkaException> error = java.util.Optional.empty();
                for (Map.Entry<TopicIdPartition, java.util.Optional<org.apache.kafka.common.KafkaException>> r : result.entrySet()) {
                    if (r.getKey().topic().equals(e.getKey().topic()) && r.getKey().partition() == e.getKey().partition()) error = r.getValue();
                }
                ObjectNode rec = record(name, "committed");
                rec.put("topic", e.getKey().topic());
                rec.put("partition", e.getKey().partition());
                ArrayNode a = rec.putArray("offsets");
                e.getValue().forEach(a::add);
                rec.put("ok", error.isEmpty());
                error.ifPresent(x -> rec.put("error", x.getClass().getSimpleName()));
                emit(rec);
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
                    for (ConsumerRecord<byte[], byte[]> rec : records) {  // the whole poll first: what this member holds
                        boolean isSlow = slow.contains(rec.offset());
                        ObjectNode r = record(name, "delivered");
                        r.put("topic", rec.topic());
                        r.put("partition", rec.partition());
                        r.put("offset", rec.offset());
                        r.put("delivery_count", rec.deliveryCount().map(Short::intValue).orElse(-1));
                        r.put("ack", isSlow ? "SLOW" : rule(rec.offset()).name());
                        emit(r);
                    }
                    for (ConsumerRecord<byte[], byte[]> rec : records) {
                        boolean isSlow = slow.contains(rec.offset());
                        if (processingMs > 0) sleep(processingMs);
                        if (isSlow) late.add(rec);
                        else consumer.acknowledge(rec, rule(rec.offset()));
                    }
                    if (!records.isEmpty()) {
                        Map<TopicIdPartition, List<Long>> batch = new java.util.TreeMap<>(
                            Comparator.comparing((TopicIdPartition t) -> t.topic()).thenComparingInt(TopicIdPartition::partition));
                        for (ConsumerRecord<byte[], byte[]> rec : records) {
                            if (slow.contains(rec.offset())) continue;
                            batch.computeIfAbsent(new TopicIdPartition(org.apache.kafka.common.Uuid.ZERO_UUID, rec.partition(), rec.topic()),
                                k -> new ArrayList<>()).add(rec.offset());
                        }
                        Map<TopicIdPartition, java.util.Optional<org.apache.kafka.common.KafkaException>> result = consumer.commitSync();
                        committed(batch, result);
                    }
                    if (!late.isEmpty()) {
                        sleep(slowMs);  // past the acquisition lock: the broker has released these records already
                        for (ConsumerRecord<byte[], byte[]> rec : late) consumer.acknowledge(rec, AcknowledgeType.ACCEPT);
                        consumer.commitSync();
                    }
                }
                emit(record(name, "closing"));
            } catch (Throwable e) {
                clientError(name, "member", e);
            }
            emit(record(name, "closed"));
        }
    }

    static Admin admin(JsonNode cmd) {
        return Admin.create(clientProps(text(cmd, "bootstrap"), "rebalance-share-admin"));
    }

    static void createTopics(JsonNode cmd) throws Exception {
        try (Admin admin = admin(cmd)) {
            ObjectNode created = JsonLines.createTopics(admin, cmd);
            List<AlterConfigOp> ops = new ArrayList<>();
            if (cmd.has("group_config")) {
                JsonLines.settings(cmd, "group_config").forEach((k, v) ->
                    ops.add(new AlterConfigOp(new ConfigEntry(k.toString(), v.toString()), AlterConfigOp.OpType.SET)));
            }
            if (!ops.isEmpty()) {
                ConfigResource group = new ConfigResource(ConfigResource.Type.GROUP, text(cmd, "group"));
                admin.incrementalAlterConfigs(Map.of(group, ops)).all().get();
            }
            emit(created);
        }
    }

    static void produce(JsonNode cmd) throws Exception {
        Properties p = clientProps(text(cmd, "bootstrap"), "rebalance-share-producer");
        p.put("linger.ms", "0");
        String topic = text(cmd, "topic");
        int partition = (int) JsonLines.optionalLong(cmd, "partition", 0);
        int count = JsonLines.integer(cmd, "count", 1);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            ObjectNode r = record(null, "produced");
            r.put("count", count);
            ArrayNode a = r.putArray("offsets");
            for (int i = 0; i < count; i++) {
                byte[] v = Integer.toString(i).getBytes(StandardCharsets.UTF_8);
                a.add(producer.send(new ProducerRecord<>(topic, partition, null, v)).get().offset());
            }
            producer.flush();
            emit(r);
        }
    }

    /** One Admin per bootstrap for {@code describe}, kept open: a scenario's observer describes the group over and over. */
    private static final Map<String, Admin> DESCRIBERS = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * {@code warm}: a share consumer made and closed (no group joined) and the describing Admin made, so that
     * the classes are loaded before a scenario's clock starts; {@code warmed}.
     */
    static void warm(JsonNode cmd) {
        Properties p = clientProps(text(cmd, "bootstrap"), "rebalance-share-warm-up");
        p.put("group.id", "rebalance-share-warm-up");
        try (KafkaShareConsumer<byte[], byte[]> c = new KafkaShareConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            c.subscription();
        } catch (RuntimeException e) {
            // only a warm-up
        }
        DESCRIBERS.computeIfAbsent(text(cmd, "bootstrap"), b -> admin(cmd));
        emit(record(null, "warmed"));
    }

    static void describe(JsonNode cmd) throws Exception {
        String group = text(cmd, "group");
        Admin admin = DESCRIBERS.computeIfAbsent(text(cmd, "bootstrap"), b -> admin(cmd));
        {
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
        }
    }

    static void offsets(JsonNode cmd) throws Exception {
        String group = text(cmd, "group");
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
        }
    }

    public static void main(String[] args) {
        Map<String, JsonLines.Command> commands = JsonLines.commands();
        commands.put("create_topics", ShareMembers::createTopics);
        commands.put("produce", ShareMembers::produce);
        commands.put("start", ShareMembers::start);
        commands.put("stop", ShareMembers::stop);
        commands.put("leave", ShareMembers::leave);
        commands.put("warm", ShareMembers::warm);
        commands.put("describe", ShareMembers::describe);
        commands.put("offsets", ShareMembers::offsets);
        JsonLines.serve("ShareMembers", commands);
    }

    static void start(JsonNode cmd) {
        String name = JsonLines.member(cmd);
        Properties props = memberProps(cmd, name);
        props.put("share.acknowledgement.mode", "explicit");
        List<String> topics = texts(cmd, "topics");
        Member m = new Member(name, topics, props, offsetSet(cmd, "release"), offsetSet(cmd, "reject"),
            offsetSet(cmd, "slow"), JsonLines.optionalLong(cmd, "slow_ms", 0), JsonLines.optionalLong(cmd, "processing_ms", 0));
        MEMBERS.add(m);
        m.thread.start();
    }

    /** {@code leave}: one member finishes the records of its poll, acknowledges them and calls {@code close()}. */
    static void leave(JsonNode cmd) {
        String name = JsonLines.member(cmd);
        for (Member m : MEMBERS) if (m.name.equals(name)) m.leave = true;
    }

    static void stop(JsonNode cmd) throws InterruptedException {
        for (Member m : MEMBERS) m.leave = true;
        for (Member m : MEMBERS) m.thread.join(30_000);
        emit(record(null, "stopped"));
    }
}
