package org.rebalance.oracle;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One kind of vector scenario ({@code "kind"} in the input line), answered with Kafka's own classes.
 *
 * <p>{@link #run} receives the scenario exactly as a vector's {@code input} holds it and returns the object a
 * vector's {@code output} holds. Where Kafka throws for the whole scenario, it lets the exception out: the
 * oracle writes {@code {"error": {"type": class name, "message"}}}. Bad input (a missing or mistyped field)
 * is reported with {@link InputException}, which names the field.
 */
public interface Kind {
    JsonNode run(JsonNode input) throws Exception;
}
