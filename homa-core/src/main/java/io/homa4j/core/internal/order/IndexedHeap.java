package io.homa4j.core.internal.order;

import java.util.Arrays;
import java.util.Comparator;
import java.util.function.ObjIntConsumer;
import java.util.function.ToIntFunction;

/**
 * A binary min-heap whose elements remember where they are in it, so that an element can be removed, or moved
 * after its key changed, in O(log n) without a search, and without allocating anything once the array has grown
 * to the queue's high-water mark. The engine's send queue and deadline queue take and drop an entry for every
 * message or call; a {@code TreeSet} allocates a node for each of them, which a quiet endpoint then meets as a cache
 * miss on the call's path.
 *
 * <p>Each element stores its position for this heap through a {@link Position}; an element may sit in several heaps
 * with one field per heap. The comparator must be a total order (the engine's orders break ties by a unique
 * sequence or id), so the first element is the same as a sorted set's first. Not thread-safe; engine thread only.
 *
 * @param <E> the queued element
 */
public final class IndexedHeap<E> {
    /** Where an element is in one heap: the field the heap keeps up to date ({@link #ABSENT}: not in it). */
    public interface Position<E> {
        int get(E e);

        void set(E e, int index);

        /** The position kept in the field that {@code get} reads and {@code set} writes. */
        static <E> Position<E> of(ToIntFunction<E> get, ObjIntConsumer<E> set) {
            return new Position<>() {
                @Override
                public int get(E e) {
                    return get.applyAsInt(e);
                }

                @Override
                public void set(E e, int index) {
                    set.accept(e, index);
                }
            };
        }
    }

    /** The position of an element that is in no heap; an element's position field must start at this value. */
    public static final int ABSENT = -1;

    private static final int INITIAL_CAPACITY = 16;

    private final Comparator<? super E> order;
    private final Position<E> position;
    private Object[] items = new Object[INITIAL_CAPACITY];
    private int size;

    public IndexedHeap(Comparator<? super E> order, Position<E> position) {
        this.order = order;
        this.position = position;
    }

    public boolean contains(E e) {
        return position.get(e) != ABSENT;
    }

    /** Adds {@code e}, which must not be in this heap. */
    public void add(E e) {
        if (contains(e)) {
            throw new IllegalStateException("already queued: " + e);
        }
        if (size == items.length) {
            items = Arrays.copyOf(items, size * 2);
        }
        items[size] = e;
        position.set(e, size);
        siftUp(size++);
    }

    /** Removes {@code e}; returns whether it was in this heap. */
    public boolean remove(E e) {
        int index = position.get(e);
        if (index == ABSENT) {
            return false;
        }
        position.set(e, ABSENT);
        int last = --size;
        E moved = at(last);
        items[last] = null;
        if (index != last) {
            items[index] = moved;
            position.set(moved, index);
            if (!siftUp(index)) {
                siftDown(index);
            }
        }
        return true;
    }

    /**
     * Restores the order after {@code e}'s key changed in place (the alternative, remove and add again, costs two
     * passes). Does nothing when {@code e} is not in this heap.
     */
    public void reorder(E e) {
        int index = position.get(e);
        if (index != ABSENT && !siftUp(index)) {
            siftDown(index);
        }
    }

    /** The first element in the order, or null when empty. */
    public E first() {
        return size == 0 ? null : at(0);
    }

    /** Removes and returns the first element, or null when empty. */
    public E pollFirst() {
        E first = first();
        if (first != null) {
            remove(first);
        }
        return first;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    public int size() {
        return size;
    }

    /** Empties the heap, marking every element absent. */
    public void clear() {
        for (int i = 0; i < size; i++) {
            position.set(at(i), ABSENT);
            items[i] = null;
        }
        size = 0;
    }

    /** Moves the element at {@code index} towards the root while it orders before its parent; true if it moved. */
    private boolean siftUp(int index) {
        E e = at(index);
        int start = index;
        while (index > 0) {
            int parent = (index - 1) >>> 1;
            E above = at(parent);
            if (order.compare(e, above) >= 0) {
                break;
            }
            items[index] = above;
            position.set(above, index);
            index = parent;
        }
        if (index != start) {
            items[index] = e;
            position.set(e, index);
            return true;
        }
        return false;
    }

    private void siftDown(int index) {
        E e = at(index);
        int start = index;
        int half = size >>> 1;
        while (index < half) {
            int child = 2 * index + 1;
            E smaller = at(child);
            int right = child + 1;
            if (right < size && order.compare(at(right), smaller) < 0) {
                child = right;
                smaller = at(right);
            }
            if (order.compare(e, smaller) <= 0) {
                break;
            }
            items[index] = smaller;
            position.set(smaller, index);
            index = child;
        }
        if (index != start) {
            items[index] = e;
            position.set(e, index);
        }
    }

    @SuppressWarnings("unchecked")
    private E at(int index) {
        return (E) items[index];
    }
}
