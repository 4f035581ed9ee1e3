package org.rebalance.clients;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The training run of a class-data archive (AppCDS): the classes the book's client JVMs load at start, loaded once.
 *
 * <p>{@code rebalance.kafka.class_data.class_data_archive} runs this class once per classpath with
 * {@code -XX:ArchiveClassesAtExit}; the JVMs it starts afterwards on that classpath map the archived classes
 * instead of reading, parsing and verifying them from the jars again, which halves a member JVM's start.  It builds
 * what those JVMs build -- a classic and a consumer-protocol {@code KafkaConsumer} that subscribe and poll, a
 * {@code KafkaShareConsumer}, a {@code KafkaProducer}, an {@code Admin}, a {@code KafkaStreams} (not started), the
 * JSON-lines driver's Jackson -- against a port on which nothing listens, each call bounded to a fraction of a
 * second, and exits.  No broker is needed; a class it did not load is read from its jar as before.
 */
public final class Train {
    private Train() {}

    public static void main(String[] args) throws Exception {
        String bootstrap = "127.0.0.1:" + closedPort();
        ObjectMapper json = new ObjectMapper();
        JsonNode cmd = json.readTree("{\"op\":\"warm\",\"bootstrap\":\"" + bootstrap + "\",\"topics\":[\"t\"]}");
        json.writeValueAsString(cmd);
        for (String protocol : List.of("classic", "consumer")) {
            Properties p = props(bootstrap);
            p.put("group.id", "rebalance-train");
            p.put("group.protocol", protocol);
            try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
                c.subscribe(List.of("t"), new ConsumerRebalanceListener() {
                    @Override public void onPartitionsRevoked(java.util.Collection<TopicPartition> parts) {}
                    @Override public void onPartitionsAssigned(java.util.Collection<TopicPartition> parts) {}
                });
                c.poll(Duration.ofMillis(300));
                c.metrics();
            } catch (RuntimeException e) {
                // nothing listens: only the classes matter
            }
        }
        Properties share = props(bootstrap);
        share.put("group.id", "rebalance-train");
        try (KafkaShareConsumer<byte[], byte[]> c = new KafkaShareConsumer<>(share, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            c.subscribe(List.of("t"));
            c.poll(Duration.ofMillis(300));
        } catch (RuntimeException e) {
            // as above
        }
        Properties producer = props(bootstrap);
        producer.put("max.block.ms", "300");
        try (KafkaProducer<byte[], byte[]> c = new KafkaProducer<>(producer, new ByteArraySerializer(), new ByteArraySerializer())) {
            c.send(new ProducerRecord<>("t", new byte[1])).get(300, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            // as above
        }
        try (Admin admin = Admin.create(props(bootstrap))) {
            admin.describeCluster().clusterId().get(300, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            // as above
        }
        Properties streams = props(bootstrap);
        java.nio.file.Path state = Files.createTempDirectory("rebalance-train");
        streams.put(StreamsConfig.APPLICATION_ID_CONFIG, "rebalance-train");
        streams.put(StreamsConfig.STATE_DIR_CONFIG, state.toString());
        streams.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.ByteArraySerde.class);
        streams.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.ByteArraySerde.class);
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream("t").groupByKey().count();
        try (KafkaStreams s = new KafkaStreams(builder.build(), streams)) {
            s.state();
        } catch (RuntimeException e) {
            // as above
        }
        try (java.util.stream.Stream<java.nio.file.Path> files = Files.walk(state)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
        System.exit(0);
    }

    private static Properties props(String bootstrap) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("client.id", "rebalance-train");
        p.put("request.timeout.ms", "300");
        p.put("default.api.timeout.ms", "300");
        p.put("reconnect.backoff.ms", "50");
        p.put("reconnect.backoff.max.ms", "50");
        return p;
    }

    /** A port of 127.0.0.1 that was free a moment ago: connections to it are refused. */
    private static int closedPort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
