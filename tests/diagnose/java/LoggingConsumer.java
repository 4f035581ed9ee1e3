// A KafkaConsumer that logs like any application's: run from source (`java -cp BROKER_LIB/* LoggingConsumer.java ...`)
// on the broker's classpath, whose kafka-clients and log4j2 (with its SLF4J binding) write the consumer's own log
// lines. The book's test of `diagnose` on clients' logs (tests/diagnose/test_client_logs.py) starts it.
//
// args: bootstrap group topic partitions clientId protocol(classic|consumer) maxPollIntervalMs sleepAfterPollMs runMs
// (the sleep follows each poll while the consumer owns partitions: the processing of a batch)
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

public class LoggingConsumer {
    public static void main(String[] args) throws Exception {
        String bootstrap = args[0], group = args[1], topic = args[2];
        int partitions = Integer.parseInt(args[3]);
        String clientId = args[4], protocol = args[5];
        long sleepMs = Long.parseLong(args[7]), runMs = Long.parseLong(args[8]);
        Properties admin = new Properties();
        admin.put("bootstrap.servers", bootstrap);
        try (Admin a = Admin.create(admin)) {
            a.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get();
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) throw e;
        }
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("group.id", group);
        p.put("client.id", clientId);
        p.put("group.protocol", protocol);
        p.put("max.poll.interval.ms", args[6]);
        p.put("enable.auto.commit", "false");
        p.put("auto.offset.reset", "earliest");
        p.put("key.deserializer", ByteArrayDeserializer.class.getName());
        p.put("value.deserializer", ByteArrayDeserializer.class.getName());
        if (protocol.equals("classic")) {
            p.put("session.timeout.ms", "6000");
            p.put("heartbeat.interval.ms", "500");
        }
        long end = System.currentTimeMillis() + runMs;
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
            c.subscribe(List.of(topic), new ConsumerRebalanceListener() {
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) { }
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) { }
            });
            while (System.currentTimeMillis() < end) {
                c.poll(Duration.ofMillis(100));
                if (sleepMs > 0 && !c.assignment().isEmpty()) Thread.sleep(sleepMs);   // a slow batch of its partitions
            }
        }
        System.out.println("closed");
    }
}
