package org.rebalance.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.server.share.fetch.DeliveryCountOps;
import org.apache.kafka.server.share.fetch.InFlightState;
import org.apache.kafka.server.share.fetch.RecordState;

import java.util.List;

/**
 * {@code share_record_state}: one record's state in a KIP-932 share partition, Kafka's own
 * {@link InFlightState} (kafka-server jar, {@code org.apache.kafka.server.share.fetch}, 4.3.1) driven through a list of
 * operations. No vectors file holds this kind: tests/share/test_share_partition.py sends it random operation lists
 * (marked {@code kafka}) and requires the Python model ({@code rebalance.share.share_partition.InFlightState}) to end
 * every operation in the same state.
 *
 * <p>Input: {@code {"state": "AVAILABLE", "delivery_count": 0, "member_id": "", "max_delivery_count": 5, "ops": [
 * {"op": "try_update" | "start", "state": "ACQUIRED", "delivery": "INCREASE" | "DECREASE" | "NO_OP",
 * "member_id": "m"}, {"op": "complete", "commit": true}, {"op": "archive"}]}}: {@code tryUpdateState},
 * {@code startStateTransition}, {@code completeStateTransition} (no acquisition-lock timer: a rollback restores the
 * previous state) and {@code archive}. Output: {@code {"steps": [{"updated": true|false|null, "state",
 * "delivery_count", "member_id", "ongoing"}]}}, {@code updated} telling whether the update returned the state (true)
 * or null (false); null for the operations that return nothing.
 */
public final class ShareRecordStateKind implements Kind {
    private static final List<String> OPS = List.of("try_update", "start", "complete", "archive");

    @Override
    public JsonNode run(JsonNode input) {
        InFlightState state = new InFlightState(recordState(Json.optString(input, "state", "AVAILABLE"), "state"),
            Json.optInt(input, "delivery_count", 0), Json.optString(input, "member_id", InFlightState.EMPTY_MEMBER_ID));
        int maxDeliveryCount = Json.optInt(input, "max_delivery_count", 5);
        ArrayNode steps = Json.array();
        JsonNode ops = Json.reqArray(input, "ops");
        for (int i = 0; i < ops.size(); i++) {
            JsonNode op = ops.get(i);
            String field = "ops[" + i + "]";
            if (!op.isObject()) {
                throw new InputException(field, "an operation must be an object {op, ...}");
            }
            String name = Json.optString(op, "op", null);
            if (name == null || !OPS.contains(name)) {
                throw new InputException(field + ".op", "op must be one of " + String.join(", ", OPS) + ", got " + name);
            }
            ObjectNode step = Json.object();
            switch (name) {
                case "try_update", "start" -> {
                    RecordState newState = recordState(Json.optString(op, "state", null), field + ".state");
                    DeliveryCountOps delivery = deliveryOps(Json.optString(op, "delivery", "NO_OP"), field + ".delivery");
                    String member = Json.optString(op, "member_id", InFlightState.EMPTY_MEMBER_ID);
                    InFlightState result = name.equals("start")
                        ? state.startStateTransition(newState, delivery, maxDeliveryCount, member)
                        : state.tryUpdateState(newState, delivery, maxDeliveryCount, member);
                    step.put("updated", result != null);
                }
                case "complete" -> {
                    if (!state.hasOngoingStateTransition()) {
                        // completeStateTransition(false) dereferences the rollback state: Kafka only calls it after a
                        // started transition
                        throw new InputException(field, "complete needs a started transition");
                    }
                    state.completeStateTransition(Json.optBool(op, "commit", true));
                    step.putNull("updated");
                }
                default -> {
                    state.archive();
                    step.putNull("updated");
                }
            }
            step.put("state", state.state().name());
            step.put("delivery_count", state.deliveryCount());
            step.put("member_id", state.memberId());
            step.put("ongoing", state.hasOngoingStateTransition());
            steps.add(step);
        }
        ObjectNode out = Json.object();
        out.set("steps", steps);
        return out;
    }

    private static RecordState recordState(String name, String field) {
        try {
            return RecordState.valueOf(name);
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new InputException(field, "must be a RecordState name, got " + name);
        }
    }

    private static DeliveryCountOps deliveryOps(String name, String field) {
        try {
            return DeliveryCountOps.valueOf(name);
        } catch (IllegalArgumentException e) {
            throw new InputException(field, "must be INCREASE, DECREASE or NO_OP, got " + name);
        }
    }
}
