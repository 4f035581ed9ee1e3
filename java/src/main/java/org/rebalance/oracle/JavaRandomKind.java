package org.rebalance.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * {@code java_random}: one {@link java.util.Random} seeded with {@code seed}, then {@code ops} in order:
 * {@code ["nextInt", bound]} and {@code ["shuffle", [ints]]} ({@link Collections#shuffle(List, Random)}).
 * The JDK's classes, which {@code StripedReplicaPlacer} draws from.
 */
public final class JavaRandomKind implements Kind {
    @Override
    public JsonNode run(JsonNode input) {
        Random random = new Random(Json.reqLong(input, "seed"));
        ArrayNode outputs = Json.array();
        int i = 0;
        for (JsonNode op : Json.reqArray(input, "ops")) {
            String where = "ops[" + i++ + "]";
            if (!op.isArray() || op.size() != 2 || !op.get(0).isTextual()) {
                throw new InputException(where, "must be [\"nextInt\", bound] or [\"shuffle\", [ints]], got " + op);
            }
            switch (op.get(0).textValue()) {
                case "nextInt":
                    if (!op.get(1).canConvertToInt()) {
                        throw new InputException(where, "nextInt's bound must be an int, got " + op.get(1));
                    }
                    outputs.add(random.nextInt(op.get(1).intValue()));
                    break;
                case "shuffle":
                    List<Integer> list = new ArrayList<>();
                    op.get(1).forEach(n -> list.add(n.intValue()));
                    Collections.shuffle(list, random);
                    outputs.add(Json.ints(list));
                    break;
                default:
                    throw new InputException(where, "unknown op " + op.get(0));
            }
        }
        ObjectNode out = Json.object();
        out.set("outputs", outputs);
        return out;
    }
}
