package io.homa4j.core;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;

import java.util.Random;

/**
 * A {@link Random} whose every bit comes from fuzzer input, so the generators of {@link FuzzedEngine} become
 * choices a coverage-guided fuzzer can steer: mutating the input changes one decision, not a whole seeded
 * stream. Once the input is used up every draw is 0, so a run always ends.
 */
final class FuzzChoices extends Random {
    private static final long serialVersionUID = 1L;
    private final transient FuzzedDataProvider data;

    FuzzChoices(FuzzedDataProvider data) {
        super(0);
        this.data = data;
    }

    @Override
    protected int next(int bits) {
        return data.consumeInt() >>> (32 - bits);
    }

    /** True while fuzzer input is left. */
    boolean hasMore() {
        return data.remainingBytes() > 0;
    }
}
