package io.homa4j.core.internal.rpc;

import java.util.ArrayList;
import java.util.List;

/**
 * The members of an RPC table in the order they were added, oldest first: the order the timers walk them in. The
 * links are fields of the members themselves ({@link Member}), so adding and removing a member allocate nothing.
 * A member is in at most one list; only the list writes its links. Engine thread only.
 *
 * @param <T> the member type (an RPC)
 */
final class AgeList<T extends AgeList.Member<T>> {
    /** What a list member carries: its neighbours, written by the list only. */
    abstract static class Member<T extends Member<T>> {
        private T older;
        private T newer;
    }

    private T oldest;
    private T newest;
    private int size;

    /** The oldest member, or null when the list is empty. */
    T oldest() {
        return oldest;
    }

    /** Adds {@code member}, which must not be in a list, as the newest. */
    void append(T member) {
        Member<T> links = member;
        links.older = newest;
        links.newer = null;
        if (newest != null) {
            Member<T> previous = newest;
            previous.newer = member;
        } else {
            oldest = member;
        }
        newest = member;
        size++;
    }

    /** Removes {@code member}, which must be in this list. */
    void remove(T member) {
        Member<T> links = member;
        T older = links.older;
        T newer = links.newer;
        if (older != null) {
            Member<T> olderLinks = older;
            olderLinks.newer = newer;
        } else {
            oldest = newer;
        }
        if (newer != null) {
            Member<T> newerLinks = newer;
            newerLinks.older = older;
        } else {
            newest = older;
        }
        links.older = null;
        links.newer = null;
        size--;
    }

    /** A copy of the members, oldest first, safe to walk while members are removed. */
    List<T> snapshot() {
        List<T> all = new ArrayList<>(size);
        for (T member = oldest; member != null; member = ((Member<T>) member).newer) {
            all.add(member);
        }
        return all;
    }
}
