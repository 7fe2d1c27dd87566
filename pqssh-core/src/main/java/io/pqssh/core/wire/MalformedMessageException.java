package io.pqssh.core.wire;

/** A message or blob does not follow its declared encoding (truncated, over-long, trailing bytes, bad field). */
public class MalformedMessageException extends Exception {
    private static final long serialVersionUID = 1L;

    public MalformedMessageException(String message) {
        super(message);
    }
}
