package io.homa4j.bench.cli;

/** A bad command line: the message is printed on one line, followed by the usage, and the exit code is 2. */
public final class UsageException extends Exception {
    private static final long serialVersionUID = 1L;

    public UsageException(String message) {
        super(message);
    }
}
