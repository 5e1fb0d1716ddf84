package io.homa4j.bench.cli;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The range a numeric {@code @Option} accepts (each element, for a list): picocli converts the text, {@link Cli}
 * checks the range of every option given on the command line and answers a value outside it with a usage error
 * naming the option. Declared next to the option so that its name is written once.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.METHOD})
public @interface Bounds {
    double min() default -Double.MAX_VALUE;

    double max() default Double.MAX_VALUE;

    /** Whether {@link #min} itself is outside the range. */
    boolean minExclusive() default false;

    /** Whether {@link #max} itself is outside the range. */
    boolean maxExclusive() default false;
}
