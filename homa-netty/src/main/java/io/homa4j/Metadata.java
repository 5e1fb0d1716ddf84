package io.homa4j;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Small per-call key/value headers carried with a request or a response (a W3C {@code traceparent}, a tenant,
 * an auth token): an immutable, ordered map of string keys to string values.
 *
 * <p>Keys are 1 to 64 characters of lowercase letters, digits, {@code -}, {@code _} and {@code .}; values are any
 * text. At most {@link #MAX_ENTRIES} entries and {@link #MAX_ENCODED_BYTES} bytes encoded (see docs/protocol.md,
 * "RPC envelope"), so headers stay a small part of a message.
 *
 * <p>Thread-safe (immutable).
 */
public final class Metadata {
    /** Most entries in one message's metadata. */
    public static final int MAX_ENTRIES = 64;
    /** Most bytes the encoded metadata of one message may take. */
    public static final int MAX_ENCODED_BYTES = 8_192;
    /** Longest key, in characters (all ASCII). */
    public static final int MAX_KEY_LENGTH = 64;

    /** No headers. */
    public static final Metadata EMPTY = new Metadata(Map.of(), 2);

    private final Map<String, String> entries;
    private final int encodedBytes;

    private Metadata(Map<String, String> entries, int encodedBytes) {
        this.entries = entries;
        this.encodedBytes = encodedBytes;
    }

    /**
     * One header.
     *
     * @param key   the key
     * @param value the value
     * @return the metadata
     * @throws IllegalArgumentException for a key that is not a valid key
     */
    public static Metadata of(String key, String value) {
        return builder().put(key, value).build();
    }

    /**
     * Two headers.
     *
     * @param k1 the first key
     * @param v1 the first value
     * @param k2 the second key
     * @param v2 the second value
     * @return the metadata
     * @throws IllegalArgumentException for an invalid or repeated key
     */
    public static Metadata of(String k1, String v1, String k2, String v2) {
        return builder().put(k1, v1).put(k2, v2).build();
    }

    /** @return a builder of metadata */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * @param key a key
     * @return its value, or null when absent
     */
    public String get(String key) {
        return entries.get(key);
    }

    /** @return the headers, in the order they were put, unmodifiable */
    public Map<String, String> asMap() {
        return entries;
    }

    /** @return how many headers */
    public int size() {
        return entries.size();
    }

    /** @return true when there are none */
    public boolean isEmpty() {
        return entries.isEmpty();
    }

    /** The bytes these headers take on the wire: the count, then length-prefixed keys and values. */
    int encodedBytes() {
        return encodedBytes;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Metadata m && m.entries.equals(entries);
    }

    @Override
    public int hashCode() {
        return entries.hashCode();
    }

    @Override
    public String toString() {
        return "Metadata" + entries;
    }

    static boolean isValidKey(String key) {
        if (key.isEmpty() || key.length() > MAX_KEY_LENGTH) {
            return false;
        }
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /** Collects headers; checks each key and the limits. Not thread-safe. */
    public static final class Builder {
        private final Map<String, String> entries = new LinkedHashMap<>();
        private int encodedBytes = 2; // the entry count

        private Builder() {
        }

        /**
         * Adds a header.
         *
         * @param key   1 to 64 of {@code a-z 0-9 - _ .}, not put before
         * @param value any text
         * @return this builder
         * @throws IllegalArgumentException for an invalid or repeated key, or past the limits
         */
        public Builder put(String key, String value) {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(value, "value");
            if (!isValidKey(key)) {
                throw new IllegalArgumentException("metadata keys are 1-" + MAX_KEY_LENGTH
                        + " characters of a-z 0-9 - _ . : \"" + key + "\"");
            }
            if (entries.containsKey(key)) {
                throw new IllegalArgumentException("metadata key given twice: " + key);
            }
            int bytes = 1 + key.length() + 2 + value.getBytes(StandardCharsets.UTF_8).length;
            if (entries.size() + 1 > MAX_ENTRIES || encodedBytes + bytes > MAX_ENCODED_BYTES) {
                throw new IllegalArgumentException("metadata is limited to " + MAX_ENTRIES + " entries and "
                        + MAX_ENCODED_BYTES + " bytes encoded");
            }
            entries.put(key, value);
            encodedBytes += bytes;
            return this;
        }

        /** @return the metadata */
        public Metadata build() {
            if (entries.isEmpty()) {
                return EMPTY;
            }
            return new Metadata(Collections.unmodifiableMap(new LinkedHashMap<>(entries)), encodedBytes);
        }
    }
}
