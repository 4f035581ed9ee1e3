package org.rebalance.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.common.TopicPartition;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Times Kafka's own consumer assignors on {@code kind: consumer} scenario lines (kafka-vectors/README.md, "kind
 * consumer"), in a warmed JVM: {@code benchmarks/bench_large_tests.py} runs it next to this package's assignors.
 *
 * <pre>
 *   java -Xmx6g -XX:+UseParallelGC -cp java/target/classes:java/target/lib-4.3.1/* org.rebalance.oracle.AssignorBench \
 *        [--warmup W] [--repeat N] FILE          one JSON line per scenario line of FILE
 *   ... AssignorBench --warmup W --serve FILE     FILE's one line: warms up, prints {"ready"}, then answers every
 *                                                 "time" line on standard input with one timed run
 * </pre>
 *
 * <p>Kafka's inputs are built by the code the oracle uses ({@link ConsumerKind#prepare}): the same maps, the same
 * user data, the same entry. Only Kafka's call is timed ({@link ConsumerKind.Call#invoke}:
 * {@code assign(Cluster, GroupSubscription)} for {@code entry: "cluster"}, {@code assignPartitions(partitionsPerTopic,
 * subscriptions)} for {@code entry: "assignPartitions"}, the call of Kafka's large tests), each run on a fresh
 * assignor and freshly built inputs (the sticky assignors consume a subscription's user data buffer), after a
 * full GC so that one run's garbage is not collected in the next. Warm-up runs (untimed) come first; a run's
 * line gives its seconds and the collector's time and count during it ({@code GarbageCollectorMXBean}s).
 */
public final class AssignorBench {
    private AssignorBench() {
    }

    public static void main(String[] args) throws Exception {
        int warmup = 2;
        int repeat = 3;
        boolean serve = false;
        List<String> files = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--warmup":
                    warmup = Integer.parseInt(args[++i]);
                    break;
                case "--repeat":
                    repeat = Integer.parseInt(args[++i]);
                    break;
                case "--serve":
                    serve = true;
                    break;
                default:
                    files.add(args[i]);
            }
        }
        if (files.isEmpty() || (serve && files.size() != 1)) {
            System.err.println("usage: AssignorBench [--warmup W] [--repeat N] FILE... | --warmup W --serve FILE");
            System.exit(2);
        }
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        for (String file : files) {
            List<JsonNode> inputs = new ArrayList<>();
            try (BufferedReader lines = Files.newBufferedReader(Path.of(file), StandardCharsets.UTF_8)) {
                String line;
                while ((line = lines.readLine()) != null) {
                    if (!line.isBlank()) {
                        inputs.add(Json.MAPPER.readTree(line));
                    }
                }
            }
            if (serve) {
                if (inputs.size() != 1) {
                    throw new IllegalArgumentException("--serve needs a file of one scenario line, got " + inputs.size());
                }
                serve(inputs.get(0), warmup, out);
            } else {
                for (JsonNode input : inputs) {
                    out.println(Json.MAPPER.writeValueAsString(bench(input, warmup, repeat)));
                }
            }
        }
    }

    /** Warm-up, then one timed run per {@code time} line on standard input (interleaved with the caller's runs). */
    private static void serve(JsonNode input, int warmup, PrintStream out) throws IOException {
        ObjectNode ready = describe(input);
        ready.put("ready", true);
        ready.set("warmup_s", warmup(input, warmup));
        out.println(Json.MAPPER.writeValueAsString(ready));
        BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String command;
        while ((command = commands.readLine()) != null) {
            if (command.strip().equals("time")) {
                out.println(Json.MAPPER.writeValueAsString(timed(input)));
            }
        }
    }

    /** One scenario: warm-up runs, then {@code repeat} timed runs; the best and every run's figures. */
    static ObjectNode bench(JsonNode input, int warmup, int repeat) {
        ObjectNode line = describe(input);
        line.set("warmup_s", warmup(input, warmup));
        ArrayNode runs = line.putArray("runs");
        ObjectNode best = null;
        for (int i = 0; i < repeat; i++) {
            ObjectNode run = timed(input);
            runs.add(run);
            if (best == null || run.get("assign_s").doubleValue() < best.get("assign_s").doubleValue()) {
                best = run;
            }
        }
        if (best != null) {
            line.set("best", best);
        }
        return line;
    }

    private static ObjectNode describe(JsonNode input) {
        ObjectNode line = Json.object();
        line.set("id", input.get("id"));
        line.set("assignor", input.get("assignor"));
        line.put("entry", Json.optString(input, "entry", "cluster"));
        line.put("kafka", Oracle.kafkaVersion());
        line.put("java", System.getProperty("java.vm.name") + " " + Runtime.version());
        line.put("jvmArgs", String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()));
        line.put("maxHeapMb", Runtime.getRuntime().maxMemory() >> 20);
        return line;
    }

    private static ArrayNode warmup(JsonNode input, int runs) {
        ArrayNode seconds = Json.array();
        for (int i = 0; i < runs; i++) {
            ConsumerKind.Call call = ConsumerKind.prepare(input);
            long start = System.nanoTime();
            call.invoke();
            seconds.add((System.nanoTime() - start) / 1e9);
        }
        return seconds;
    }

    /** One timed run: fresh inputs and assignor (untimed), a full GC, then Kafka's call alone. */
    private static ObjectNode timed(JsonNode input) {
        ConsumerKind.Call call = ConsumerKind.prepare(input);
        System.gc();
        long[] gcBefore = gc();
        long start = System.nanoTime();
        Object result = call.invoke();
        long took = System.nanoTime() - start;
        long[] gcAfter = gc();
        long partitions = 0;
        for (List<TopicPartition> list : call.assignment(result).values()) {
            partitions += list.size();
        }
        ObjectNode run = Json.object();
        run.put("assign_s", took / 1e9);
        run.put("gc_s", (gcAfter[0] - gcBefore[0]) / 1e3);
        run.put("gc_count", gcAfter[1] - gcBefore[1]);
        run.put("partitions", partitions);
        run.put("members", call.memberIds.size());
        run.put("usedHeapMb", (Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory()) >> 20);
        return run;
    }

    /** {total collection milliseconds, total collections} over every collector. */
    private static long[] gc() {
        long[] sum = new long[2];
        for (GarbageCollectorMXBean bean : ManagementFactory.getGarbageCollectorMXBeans()) {
            sum[0] += Math.max(0, bean.getCollectionTime());
            sum[1] += Math.max(0, bean.getCollectionCount());
        }
        return sum;
    }
}
