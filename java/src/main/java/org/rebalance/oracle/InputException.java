package org.rebalance.oracle;

/** A scenario field that is missing or not of the expected type: the oracle reports the field by name. */
public final class InputException extends RuntimeException {
    private final String field;

    public InputException(String field, String message) {
        super(message);
        this.field = field;
    }

    public String field() {
        return field;
    }
}
