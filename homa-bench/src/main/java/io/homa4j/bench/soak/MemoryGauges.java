package io.homa4j.bench.soak;

import com.sun.management.GarbageCollectionNotificationInfo;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.internal.PlatformDependent;

import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The memory figures of this JVM that a leak would move, with their high-water marks: heap in use, heap live
 * after the latest garbage collection (the figure that stays flat when nothing leaks), Netty's direct memory
 * (its own counter; -1 when Netty uses cleaner-managed buffers it does not count), the direct memory of the two
 * Netty allocators the endpoints use, and the JDK's direct buffer pool.
 *
 * <p>Thread-safe: {@link #sample} may run on a sampler thread while others read.
 */
public final class MemoryGauges implements AutoCloseable {
    private final AtomicLong heapUsedHigh = new AtomicLong();
    private final AtomicLong liveHeapHigh = new AtomicLong();
    private final AtomicLong nettyDirectHigh = new AtomicLong(-1);
    private final AtomicLong allocatorDirectHigh = new AtomicLong();
    private final AtomicLong jdkDirectHigh = new AtomicLong();
    private volatile long liveHeapAfterGc = -1;
    private final NotificationListener gcListener = (notification, handback) -> {
        if (GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) {
            GarbageCollectionNotificationInfo info =
                    GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
            long live = 0;
            for (MemoryUsage pool : info.getGcInfo().getMemoryUsageAfterGc().values()) {
                live += pool.getUsed();
            }
            liveHeapAfterGc = live;
        }
    };

    public MemoryGauges() {
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof NotificationEmitter) {
                ((NotificationEmitter) gc).addNotificationListener(gcListener, null, null);
            }
        }
    }

    /** Reads every gauge once and raises the high-water marks. */
    public void sample() {
        raise(heapUsedHigh, heapUsed());
        raise(liveHeapHigh, liveHeapAfterGc);
        raise(nettyDirectHigh, nettyDirect());
        raise(allocatorDirectHigh, allocatorDirect());
        raise(jdkDirectHigh, jdkDirect());
    }

    public static long heapUsed() {
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** Heap in use right after the latest collection (all pools), or -1 before the first one. */
    public long liveHeapAfterGc() {
        return liveHeapAfterGc;
    }

    /** Netty's count of the direct memory it allocated, or -1 when it does not count. */
    public static long nettyDirect() {
        return PlatformDependent.usedDirectMemory();
    }

    /** Direct memory held by the pooled allocator (engine packets) and the default allocator (receive buffers). */
    public static long allocatorDirect() {
        long pooled = PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory();
        ByteBufAllocator channels = ByteBufAllocator.DEFAULT;
        if (channels != PooledByteBufAllocator.DEFAULT && channels instanceof ByteBufAllocatorMetricProvider) {
            pooled += ((ByteBufAllocatorMetricProvider) channels).metric().usedDirectMemory();
        }
        return pooled;
    }

    /** Memory of the JDK's direct {@code ByteBuffer}s (those Netty allocates with a cleaner are here too). */
    public static long jdkDirect() {
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if ("direct".equals(pool.getName())) {
                return pool.getMemoryUsed();
            }
        }
        return -1;
    }

    public long heapUsedHigh() {
        return heapUsedHigh.get();
    }

    public long liveHeapHigh() {
        return liveHeapHigh.get();
    }

    public long nettyDirectHigh() {
        return nettyDirectHigh.get();
    }

    public long allocatorDirectHigh() {
        return allocatorDirectHigh.get();
    }

    public long jdkDirectHigh() {
        return jdkDirectHigh.get();
    }

    /** The current values, for a progress line. */
    public String now() {
        return String.format(Locale.ROOT, "heap %s (live after GC %s)  direct: netty %s, allocators %s, jdk %s",
                mb(heapUsed()), mb(liveHeapAfterGc), mb(nettyDirect()), mb(allocatorDirect()), mb(jdkDirect()));
    }

    /** The high-water marks. */
    public String highWater() {
        return String.format(Locale.ROOT, "heap %s, live after GC %s, direct: netty %s, allocators %s, jdk %s",
                mb(heapUsedHigh()), mb(liveHeapHigh()), mb(nettyDirectHigh()), mb(allocatorDirectHigh()),
                mb(jdkDirectHigh()));
    }

    /** Megabytes with one decimal, or "n/a" for a gauge that is not available (negative). */
    public static String mb(long bytes) {
        return bytes < 0 ? "n/a" : String.format(Locale.ROOT, "%.1f MB", bytes / 1e6);
    }

    private static void raise(AtomicLong high, long value) {
        high.accumulateAndGet(value, Math::max);
    }

    @Override
    public void close() {
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof NotificationEmitter) {
                try {
                    ((NotificationEmitter) gc).removeNotificationListener(gcListener);
                } catch (javax.management.ListenerNotFoundException ignored) {
                    // never added to this one
                }
            }
        }
    }
}
