package org.rebalance.connect;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.source.SourceConnector;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The smallest source connector a Connect cluster can run: it always asks for exactly {@code tasks.max} tasks,
 * and its tasks produce nothing (each {@code poll} waits a moment and returns no records).  The Kafka jars the
 * book resolves ship no source connector (no {@code connect-file}, no MirrorMaker), and what the book measures on a
 * real Connect cluster is only <em>which worker runs which connector and task</em>, so the work itself is empty.
 * {@code rebalance.kafka.connect} adds it to the workers through the REST API
 * ({@code "connector.class": "org.rebalance.connect.IdleSourceConnector"}).  The workers find it on their
 * classpath through {@code META-INF/services/org.apache.kafka.connect.source.SourceConnector}.
 */
public class IdleSourceConnector extends SourceConnector {
    private Map<String, String> props = new HashMap<>();

    @Override
    public String version() {
        return "1.0";
    }

    @Override
    public void start(Map<String, String> props) {
        this.props = new HashMap<>(props);
    }

    @Override
    public Class<? extends Task> taskClass() {
        return IdleTask.class;
    }

    /** Exactly {@code maxTasks} task configurations (Connect creates one task per configuration). */
    @Override
    public List<Map<String, String>> taskConfigs(int maxTasks) {
        List<Map<String, String>> configs = new ArrayList<>();
        for (int i = 0; i < maxTasks; i++) {
            Map<String, String> c = new HashMap<>(props);
            c.put("task.number", Integer.toString(i));
            configs.add(c);
        }
        return configs;
    }

    @Override
    public void stop() {
    }

    @Override
    public ConfigDef config() {
        return new ConfigDef();
    }

    /** A task that produces nothing: {@code poll} sleeps up to half a second (less when stopped) and returns null. */
    public static class IdleTask extends SourceTask {
        private volatile boolean stopped;

        @Override
        public String version() {
            return "1.0";
        }

        @Override
        public void start(Map<String, String> props) {
            stopped = false;
        }

        @Override
        public List<SourceRecord> poll() throws InterruptedException {
            for (int i = 0; i < 10 && !stopped; i++) {
                Thread.sleep(50);
            }
            return null;
        }

        @Override
        public void stop() {
            stopped = true;
        }
    }
}
