package org.rebalance.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;

/**
 * The oracle: reads scenario lines (a vector's {@code input}, one JSON object a line) on standard input and
 * writes, for each, one line {@code {"id", "kind", "output"}} where {@code output} is what Kafka's own classes
 * compute (the vectors' {@code output} schema), or {@code {"id", "kind", "fault": {"type", "field", "message"}}}
 * when the line cannot be run at all (bad JSON, an unknown kind, a missing field, a class this Kafka release
 * lacks). Every line is answered; a bad line never stops the run.
 *
 * <p>Which Kafka answers is decided by the classpath: the release the book pins, or another one resolved by
 * {@code make java KAFKA=...}. {@code --version} prints the kafka-clients version found on the classpath.
 */
public final class Oracle {
    /** kind -> class implementing {@link Kind}, loaded on first use so that a release lacking a class only
     *  fails the lines of that kind. */
    static final Map<String, String> KINDS = new TreeMap<>(Map.ofEntries(
        Map.entry("consumer", "org.rebalance.oracle.ConsumerKind"),
        Map.entry("coordinator_partition", "org.rebalance.oracle.CoordinatorPartitionKind"),
        Map.entry("java_random", "org.rebalance.oracle.JavaRandomKind"),
        Map.entry("striped", "org.rebalance.oracle.StripedKind"),
        Map.entry("adminutils", "org.rebalance.oracle.AdminUtilsKind"),
        Map.entry("connect", "org.rebalance.oracle.ConnectKind"),
        Map.entry("group", "org.rebalance.oracle.GroupKind"),
        Map.entry("streams_group", "org.rebalance.oracle.StreamsGroupKind"),
        Map.entry("streams", "org.rebalance.oracle.StreamsKind"),
        Map.entry("share", "org.rebalance.oracle.ShareKind"),
        Map.entry("share_record_state", "org.rebalance.oracle.ShareRecordStateKind")));

    private final Map<String, Kind> loaded = new TreeMap<>();

    private Kind kind(String name) {
        Kind k = loaded.get(name);
        if (k != null) {
            return k;
        }
        String cls = KINDS.get(name);
        if (cls == null) {
            throw new InputException("kind", "unknown kind " + name + "; known kinds: " + String.join(", ", KINDS.keySet()));
        }
        try {
            k = (Kind) Class.forName(cls).getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | LinkageError e) {
            throw new InputException("kind", "kind " + name + " cannot run with this Kafka release: " + e);
        }
        loaded.put(name, k);
        return k;
    }

    /** The answer to one input line. */
    public ObjectNode answer(String line) {
        ObjectNode out = Json.object();
        JsonNode input;
        try {
            input = Json.MAPPER.readTree(line);
        } catch (IOException e) {
            return fault(out, null, "the line is not JSON: " + e.getMessage().split("\n")[0], "JSONDecodeError");
        }
        if (input == null || !input.isObject()) {
            return fault(out, null, "a scenario line must be a JSON object", "InputError");
        }
        JsonNode id = input.get("id");
        out.set("id", id);
        JsonNode kindNode = input.get("kind");
        out.set("kind", kindNode);
        try {
            if (kindNode == null || !kindNode.isTextual()) {
                throw new InputException("kind", "must be a string naming the scenario kind, got " + kindNode);
            }
            out.set("output", kind(kindNode.textValue()).run(input));
        } catch (InputException e) {
            return fault(out, e.field(), e.getMessage(), "InputError");
        } catch (LinkageError e) {
            return fault(out, "kind", "this Kafka release lacks what the kind needs: " + e, "Unavailable");
        } catch (Exception e) {
            // Kafka threw for the whole scenario: that is Kafka's answer
            ObjectNode err = Json.object();
            err.set("error", Json.error(e));
            out.set("output", err);
        }
        return out;
    }

    private static ObjectNode fault(ObjectNode out, String field, String message, String type) {
        ObjectNode f = Json.object();
        f.put("type", type);
        f.put("field", field);
        f.put("message", message);
        out.set("fault", f);
        return out;
    }

    public static String kafkaVersion() {
        return org.apache.kafka.common.utils.AppInfoParser.getVersion();
    }

    public static void main(String[] args) throws IOException {
        if (args.length > 0 && args[0].equals("--version")) {
            System.out.println(kafkaVersion());
            return;
        }
        Oracle oracle = new Oracle();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        BufferedWriter out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), 1 << 16);
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            out.write(Json.MAPPER.writeValueAsString(oracle.answer(line)));
            out.write('\n');
            out.flush();
        }
    }
}
