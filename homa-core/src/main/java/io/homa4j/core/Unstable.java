package io.homa4j.core;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a package or type that is public for tests, tools and studies, not for applications: the simulator, the
 * packet flyweights and forging helpers, and fault injection. It may change or move in any release, without
 * deprecation; an application that depends on it should expect to follow those changes. The API an application
 * builds on (the endpoint, its builder, configuration, metrics and errors) carries no such mark.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target({ElementType.PACKAGE, ElementType.TYPE, ElementType.METHOD, ElementType.CONSTRUCTOR, ElementType.FIELD})
public @interface Unstable {
    /** @return why the element is unstable, or what it is for */
    String value() default "";
}
