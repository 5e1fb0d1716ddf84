package io.homa4j.core.internal.order;

import java.util.Comparator;
import java.util.Iterator;
import java.util.TreeSet;

/**
 * A sorted set that remembers its first element. The engine asks its SRPT and age orders for their first message
 * several times per packet, and a {@code TreeSet} finds its first entry by walking down from the root each time.
 *
 * <p>An element's key must not change while it is in the set in a way that could move it, except for the first
 * element, whose key may only move it further ahead (the engine's SRPT keys only drop as bytes move): remove it,
 * change it, add it again. Not thread-safe; engine thread only.
 */
public final class FirstCachingSet<E> implements Iterable<E> {
    private final TreeSet<E> set;
    private final Comparator<? super E> comparator;
    /** The first element, or null when not known (looked up again on demand). */
    private E knownFirst;

    public FirstCachingSet(Comparator<? super E> comparator) {
        this.set = new TreeSet<>(comparator);
        this.comparator = comparator;
    }

    /** Adds {@code e}; returns whether it was not in the set. */
    public boolean add(E e) {
        boolean added = set.add(e);
        if (knownFirst != null && comparator.compare(e, knownFirst) < 0) {
            knownFirst = e;
        }
        return added;
    }

    /** Removes {@code e}; returns whether it was in the set. */
    public boolean remove(E e) {
        boolean removed = set.remove(e);
        if (e == knownFirst) {
            knownFirst = null;
        }
        return removed;
    }

    /** The first element; the set must not be empty. */
    public E first() {
        if (knownFirst == null) {
            knownFirst = set.first();
        }
        return knownFirst;
    }

    /** The element ordered right before {@code e} (which need not be in the set), or null. */
    public E before(E e) {
        return set.lower(e);
    }

    public boolean isEmpty() {
        return set.isEmpty();
    }

    public int size() {
        return set.size();
    }

    public Comparator<? super E> comparator() {
        return comparator;
    }

    /** In order; read only (removing through it would leave the remembered first stale). */
    @Override
    public Iterator<E> iterator() {
        Iterator<E> it = set.iterator();
        return new Iterator<>() {
            @Override
            public boolean hasNext() {
                return it.hasNext();
            }

            @Override
            public E next() {
                return it.next();
            }
        };
    }
}
