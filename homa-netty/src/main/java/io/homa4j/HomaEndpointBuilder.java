package io.homa4j;

import io.homa4j.core.ErrorCode;
import io.homa4j.core.HomaConfig;
import io.homa4j.core.RpcFailure;
import io.homa4j.core.RpcListener;
import io.homa4j.core.Unstable;
import io.homa4j.faults.DatagramFilter;
import io.homa4j.transport.internal.PacerFit;
import io.homa4j.transport.internal.PacerTimerSlack;
import io.homa4j.transport.internal.TransportUnavailableException;
import io.homa4j.transport.internal.UdpTransport;
import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Configures and binds a {@link HomaEndpoint}; get one from {@link HomaEndpoint#builder()}. The defaults:
 * loopback, an ephemeral port, {@link HomaConfig#defaults()}, the AUTO transport, a one-thread event loop of the
 * endpoint's own.
 *
 * <p>Not thread-safe; {@link #build()} may be called more than once (each call binds a new endpoint).
 */
public final class HomaEndpointBuilder {
    private InetAddress bindAddress = InetAddress.getLoopbackAddress();
    private int port;
    private boolean joinExistingPort;
    private HomaConfig config = HomaConfig.defaults();
    private long pacerTimerSlackNanos = PacerTimerSlack.EVENT_LOOP_TIMER_SLACK_NANOS;
    private TransportType transport = TransportType.AUTO;
    private EventLoopGroup group;
    private boolean busyPoll;
    private long idleSpinNanos = Math.max(0, Math.min(Long.getLong("homa4j.idleSpinMicros", 0), 1_000_000)) * 1000;
    private int warmUpCalls = Math.max(0, Math.min(Integer.getInteger("homa4j.warmUpCalls", DEFAULT_WARM_UP_CALLS),
            MAX_WARM_UP_CALLS));
    private RpcObserver observer;
    private DatagramFilter packetFilter = DatagramFilter.NONE;
    private int socketBufferBytes = 4 << 20;
    private boolean gso = true;
    private EngineHost.EngineFactory engineFactory = EngineHost.EngineFactory.HOMA;
    private long metricsIntervalNanos = TimeUnit.MILLISECONDS.toNanos(100);
    private int maxCallsInFlight; // 0: the config's maxOutstandingRpcs
    private int maxPendingRequests = Integer.MAX_VALUE;
    private Executor callbackExecutor;
    private long defaultCallTimeoutNanos = TimeUnit.SECONDS.toNanos(30);
    private RpcHandler handler;
    private Executor handlerExecutor;
    private EventLoop embeddedLoop;
    private EngineHost.Sockets embeddedSockets;
    private LongSupplier clock = System::nanoTime;

    HomaEndpointBuilder() {
    }

    /** Local address to bind; default loopback. */
    public HomaEndpointBuilder bindAddress(InetAddress address) {
        this.bindAddress = Objects.requireNonNull(address, "address");
        return this;
    }

    /**
     * UDP port; 0 (default) picks an ephemeral one. A non-zero port that another socket holds is refused
     * ({@code build()} throws UNAVAILABLE) unless {@link #joinExistingPort(boolean)} says to share it.
     */
    public HomaEndpointBuilder port(int port) {
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("port out of range [0, 65535]: " + port);
        }
        this.port = port;
        return this;
    }

    /**
     * Whether a non-zero {@link #port} that other endpoints already hold (of this user, in this process or
     * another) is joined: the kernel then spreads senders across all of them by address hash (SO_REUSEPORT), each
     * endpoint serving its share. Default false: such a port is refused, because joining silently took part of
     * another process's traffic.
     *
     * @param join whether to share a port that is already held
     * @return this builder
     */
    public HomaEndpointBuilder joinExistingPort(boolean join) {
        this.joinExistingPort = join;
        return this;
    }

    public HomaEndpointBuilder config(HomaConfig config) {
        this.config = Objects.requireNonNull(config, "config");
        return this;
    }

    /**
     * The pacer's queue bound is raised to at least this much link time, because event-loop timers fire late
     * (docs/architecture.md); default 200,000 (200 us), 0 keeps the config's bound as it is.
     * {@link HomaEndpoint#config()} reports the bound the endpoint starts with; on slow links, where that bound
     * holds several full packets, the endpoint then lowers it as its timers prove precise (docs/user-guide.md,
     * {@code pacerMaxQueueNanos}).
     */
    public HomaEndpointBuilder pacerTimerSlackNanos(long nanos) {
        if (nanos < 0) {
            throw new IllegalArgumentException("pacerTimerSlackNanos must not be negative: " + nanos);
        }
        this.pacerTimerSlackNanos = nanos;
        return this;
    }

    public HomaEndpointBuilder transport(TransportType transport) {
        this.transport = Objects.requireNonNull(transport, "transport");
        return this;
    }

    /**
     * Runs the endpoint on {@code group.next()} instead of a dedicated one-thread event loop. The group must
     * be a {@link MultiThreadIoEventLoopGroup} with an epoll or NIO I/O handler; the endpoint does not shut
     * it down. Sharing a group of N threads among N endpoints gives each its own core.
     */
    public HomaEndpointBuilder eventLoopGroup(EventLoopGroup group) {
        this.group = Objects.requireNonNull(group, "group");
        return this;
    }

    /**
     * Busy-poll mode for the endpoint's own event loop (ignored with {@link #eventLoopGroup}; build such a group
     * with {@link HomaEndpoint#newBusyPollingGroup}): the loop polls its sockets without ever sleeping, so a
     * packet is handled about a microsecond after it arrives instead of after a thread wake-up (tens of
     * microseconds on a loaded VM). It costs one core at 100% for the endpoint's whole life, idle or not, and it only pays off when
     * the threads that call and wait also avoid sleeping (a caller blocked in {@code get()} still pays a wake-up
     * for the response). Default off.
     *
     * @param enabled whether the endpoint's loop busy-polls
     * @return this builder
     */
    public HomaEndpointBuilder busyPoll(boolean enabled) {
        this.busyPoll = enabled;
        return this;
    }

    /**
     * How long the endpoint's own event loop polls its sockets before it sleeps while a call waits for its
     * response (ignored with {@link #eventLoopGroup} or {@link #busyPoll}): a response that comes within that time
     * is handled without a thread wake-up. A loop with no call waiting sleeps at once, so an idle endpoint costs no
     * CPU; each call costs up to this much on its loop. {@link Duration#ZERO} (the default, unless the system
     * property {@code homa4j.idleSpinMicros} gives another) turns it off.
     *
     * @param spin at least zero, at most one second
     * @return this builder
     */
    public HomaEndpointBuilder idleSpin(Duration spin) {
        Objects.requireNonNull(spin, "spin");
        if (spin.isNegative() || spin.compareTo(Duration.ofSeconds(1)) > 0) {
            throw new IllegalArgumentException("idleSpin must be 0..1 s: " + spin);
        }
        this.idleSpinNanos = spin.toNanos();
        return this;
    }

    /** The most warm-up calls {@link #warmUpCalls} takes. */
    public static final int MAX_WARM_UP_CALLS = 1_000_000;

    /** Warm-up calls unless {@link #warmUpCalls} or the system property {@code homa4j.warmUpCalls} says otherwise. */
    public static final int DEFAULT_WARM_UP_CALLS = 20_000;

    /**
     * Echo calls that the first {@link #build()} of this JVM makes before it returns, between two temporary
     * endpoints on loopback, so that the JIT has compiled the call path (client and server side) before the
     * application's first call: a service that takes few calls otherwise runs its first thousands of calls in the
     * interpreter or C1 code, several times slower. Compiled code is the JVM's, so later builds skip it. Most calls
     * are 100 B; one in 32 is 256 KB (at most {@code maxMessageBytes}), for the path of long messages. The
     * temporary endpoints use this builder's transport and configuration, paced at no less than 10 Gbit/s; the
     * endpoint being built makes none of the calls, so its metrics count only the application's. Best effort: a
     * failing call, or 10 s gone, ends the warm-up and the endpoint is built anyway.
     *
     * <p>Default {@link #DEFAULT_WARM_UP_CALLS}, unless the system property {@code homa4j.warmUpCalls} gives another;
     * 0 turns it off (tests, short-lived tools). Endpoints on an embedded loop never warm up.
     *
     * @param calls 0 to {@link #MAX_WARM_UP_CALLS}
     * @return this builder
     */
    public HomaEndpointBuilder warmUpCalls(int calls) {
        if (calls < 0 || calls > MAX_WARM_UP_CALLS) {
            throw new IllegalArgumentException("warmUpCalls must be 0.." + MAX_WARM_UP_CALLS + ": " + calls);
        }
        this.warmUpCalls = calls;
        return this;
    }

    /** Per-RPC callbacks, on the event loop; default none. */
    public HomaEndpointBuilder observer(RpcObserver observer) {
        this.observer = Objects.requireNonNull(observer, "observer");
        return this;
    }

    /**
     * Fault injection between engine and sockets (tests, experiments); default none. One per endpoint. The
     * filter is installed in front of each socket only when set, and such an endpoint sends no GSO batches and
     * reads without UDP GRO, so the filter sees every datagram alone.
     *
     * @param filter what to do to each datagram in and out
     * @return this builder
     */
    @Unstable("fault injection for tests")
    public HomaEndpointBuilder packetFilter(DatagramFilter filter) {
        this.packetFilter = Objects.requireNonNull(filter, "filter");
        return this;
    }

    /** SO_RCVBUF and SO_SNDBUF of each socket; default 4 MiB (the kernel caps it at rmem_max/wmem_max). */
    public HomaEndpointBuilder socketBufferBytes(int bytes) {
        if (bytes < 65_536) {
            throw new IllegalArgumentException("socketBufferBytes must be at least 65536: " + bytes);
        }
        this.socketBufferBytes = bytes;
        return this;
    }

    /** Whether runs of full-size packets may go out as UDP GSO sends when supported; default true. */
    public HomaEndpointBuilder gso(boolean enabled) {
        this.gso = enabled;
        return this;
    }

    /**
     * The client's in-flight window: how many calls may be outstanding at once. A call made when the window is
     * full fails at once with {@code RESOURCE_EXHAUSTED} (retry-safe); {@link HomaEndpoint#awaitReady} and
     * {@link HomaEndpoint#onReady} wait for room. Default: the config's {@code maxOutstandingRpcs} (10,000).
     *
     * @param calls the window, at least 1
     * @return this builder
     */
    public HomaEndpointBuilder maxCallsInFlight(int calls) {
        if (calls < 1) {
            throw new IllegalArgumentException("maxCallsInFlight must be at least 1: " + calls);
        }
        this.maxCallsInFlight = calls;
        return this;
    }

    /**
     * The server's overload limit: how many requests the handler may hold unanswered (running, queued on its
     * executor, or waiting for an asynchronous reply). Requests beyond it are refused at once, without running
     * the handler. Default: no limit.
     *
     * @param requests the limit, at least 1
     * @return this builder
     */
    public HomaEndpointBuilder maxPendingRequests(int requests) {
        if (requests < 1) {
            throw new IllegalArgumentException("maxPendingRequests must be at least 1: " + requests);
        }
        this.maxPendingRequests = requests;
        return this;
    }

    /**
     * Serves requests with {@code handler} from the moment the endpoint's sockets are bound, run on the event
     * loop: the same as {@link HomaEndpoint#serve(RpcHandler)} right after {@code build()}, without the moment
     * in between, in which requests (say retries reaching a restarted server) are refused with a retry-safe
     * {@code UNAVAILABLE}. {@code serve} on the built endpoint then throws, as it does when called twice.
     *
     * @param handler the request handler; see {@link RpcHandler} for ownership
     * @return this builder
     */
    public HomaEndpointBuilder handler(RpcHandler handler) {
        this.handler = Objects.requireNonNull(handler, "handler");
        this.handlerExecutor = null;
        return this;
    }

    /**
     * As {@link #handler(RpcHandler)}, the handler run on {@code executor} (see
     * {@link HomaEndpoint#serve(RpcHandler, Executor)}).
     *
     * @param handler  the request handler; see {@link RpcHandler} for ownership
     * @param executor where the handler runs
     * @return this builder
     */
    public HomaEndpointBuilder handler(RpcHandler handler, Executor executor) {
        this.handler = Objects.requireNonNull(handler, "handler");
        this.handlerExecutor = Objects.requireNonNull(executor, "executor");
        return this;
    }

    /**
     * Where call futures complete (and so where their non-async callbacks run), and where
     * {@link HomaEndpoint#onReady} tasks run, instead of the event loop. A response whose future was cancelled
     * before the executor ran its completion is released. Default: the event loop.
     *
     * @param executor the application's executor
     * @return this builder
     */
    public HomaEndpointBuilder callbackExecutor(Executor executor) {
        this.callbackExecutor = Objects.requireNonNull(executor, "executor");
        return this;
    }

    /**
     * How soon after a change the event loop publishes the engine's metrics for {@link HomaEndpoint#metrics()},
     * which never waits for the loop and so may miss this much of the latest changes; default 100 ms. The loop
     * publishes at the end of its turns, at most every half interval, and is woken for it only when a change would
     * otherwise wait longer; an idle endpoint, with nothing changed, is not woken at all.
     *
     * @param interval the publishing interval, at least 1 ms
     * @return this builder
     */
    public HomaEndpointBuilder metricsInterval(Duration interval) {
        Objects.requireNonNull(interval, "interval");
        if (interval.compareTo(Duration.ofMillis(1)) < 0) {
            throw new IllegalArgumentException("metricsInterval must be at least 1 ms: " + interval);
        }
        this.metricsIntervalNanos = interval.toNanos();
        return this;
    }

    /**
     * The deadline of calls made with {@link CallOptions#DEFAULT}; default 30 s. Without one, a call to a server
     * whose handler never replies never ended (the server's BUSY answers keep it alive); with it the call fails
     * with DEADLINE_EXCEEDED and the server is told, so it frees the RPC and its handler learns
     * ({@link RpcContext#isCancelled()}). {@code null} means no default deadline. A call can still choose its own
     * ({@link CallOptions#timeout}) or none ({@link CallOptions#NO_DEADLINE}).
     *
     * @return this builder
     */
    public HomaEndpointBuilder defaultCallTimeout(Duration timeout) {
        if (timeout == null) {
            this.defaultCallTimeoutNanos = Long.MAX_VALUE;
            return this;
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("defaultCallTimeout must be positive: " + timeout);
        }
        this.defaultCallTimeoutNanos = timeout.compareTo(Duration.ofDays(365)) > 0 ? Long.MAX_VALUE
                : timeout.toNanos();
        return this;
    }

    /**
     * Package-private wiring for the embedded-channel tests: runs the endpoint on {@code loop} over sockets that
     * {@code sockets} makes (an embedded channel) with {@code clock} as its time, instead of binding UDP sockets on
     * an event loop of its own or the group's.
     */
    HomaEndpointBuilder embedded(EventLoop loop, EngineHost.Sockets sockets, LongSupplier clock) {
        this.embeddedLoop = Objects.requireNonNull(loop, "loop");
        this.embeddedSockets = Objects.requireNonNull(sockets, "sockets");
        this.clock = Objects.requireNonNull(clock, "clock");
        return this;
    }

    /** Package-private wiring for tests: the engine to drive instead of {@code HomaEngine} (a scripted one). */
    HomaEndpointBuilder engineFactory(EngineHost.EngineFactory factory) {
        this.engineFactory = Objects.requireNonNull(factory, "factory");
        return this;
    }

    /**
     * Binds the sockets and starts the endpoint.
     *
     * @throws HomaException           UNAVAILABLE when the transport cannot load or the port cannot be bound
     * @throws IllegalArgumentException when a supplied event loop group cannot carry the transport
     * @throws IllegalStateException    when called on the event loop the endpoint would run on
     */
    public HomaEndpoint build() {
        if (embeddedLoop != null) {
            return wire(UdpTransport.Kind.NIO, null, embeddedLoop);
        }
        EventLoopGroup own = null;
        EventLoop loop = group != null ? group.next() : null;
        UdpTransport.Kind kind;
        if (loop != null) {
            kind = UdpTransport.kindOf(loop);
            if (transport != TransportType.AUTO && kind != kindFor(transport)) {
                throw new IllegalArgumentException("transport " + transport + " needs "
                        + (transport == TransportType.EPOLL ? "an epoll event loop group (EpollIoHandler)"
                        : "an NIO event loop group (NioIoHandler)"));
            }
            if (loop.inEventLoop()) {
                throw new IllegalStateException("build() must not run on the event loop the endpoint would use");
            }
        } else {
            try {
                kind = transport == TransportType.AUTO ? UdpTransport.automatic()
                        : UdpTransport.require(kindFor(transport));
            } catch (TransportUnavailableException e) {
                throw unavailable(e);
            }
        }
        // before the endpoint's own loop and sockets exist: a warm-up that fails leaves nothing to clean up
        EndpointWarmUp.JVM.ensureWarm(kind == UdpTransport.Kind.EPOLL ? TransportType.EPOLL : TransportType.NIO,
                config, warmUpCalls);
        if (loop == null) {
            own = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("homa4j-endpoint", true),
                    UdpTransport.ioHandlerFactory(kind, busyPoll, idleSpinNanos));
            loop = own.next();
        }
        HomaEndpoint endpoint;
        try {
            endpoint = wire(kind, own, loop);
        } catch (RuntimeException e) {
            if (own != null) {
                own.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            }
            throw e instanceof TransportUnavailableException t ? unavailable(t) : e;
        }
        return endpoint;
    }

    private static UdpTransport.Kind kindFor(TransportType explicit) {
        return explicit == TransportType.EPOLL ? UdpTransport.Kind.EPOLL : UdpTransport.Kind.NIO;
    }

    /** The transport's own refusal as the API's exception: retry-safe, nothing was sent. */
    private static HomaException unavailable(TransportUnavailableException e) {
        return new HomaException(ErrorCode.UNAVAILABLE, e.getMessage(), true, e.getCause());
    }

    /** Binds the sockets, then connects the engine's upcalls to the client call table and the server side. */
    private HomaEndpoint wire(UdpTransport.Kind kind, EventLoopGroup own, EventLoop loop) {
        HomaConfig effective = PacerTimerSlack.apply(config, pacerTimerSlackNanos);
        // maxMessageBytes limits what the application sends and receives; the engine's messages also carry the
        // RPC envelope, so the engine's limit leaves room for the largest one.
        HomaConfig engineConfig = effective.toBuilder().maxMessageBytes((int) Math.min(Integer.MAX_VALUE,
                (long) effective.maxMessageBytes() + Envelope.MAX_OVERHEAD_BYTES)).build();
        EngineHost.Sockets sockets = embeddedSockets != null ? embeddedSockets
                : (inbound, beforeInbound) -> UdpTransport.bind(kind, loop, bindAddress, port, engineConfig,
                        socketBufferBytes, inbound, beforeInbound, joinExistingPort);
        EngineHost host = new EngineHost(engineConfig, own, loop, clock, sockets, packetFilter, gso,
                PacerFit.forConfig(config, effective, pacerTimerSlackNanos));
        Observers observers = new Observers(observer);
        ClientCallTable calls = new ClientCallTable(host, observers,
                maxCallsInFlight > 0 ? maxCallsInFlight : effective.maxOutstandingRpcs(), callbackExecutor,
                effective.maxMessageBytes());
        ServerDispatcher server = new ServerDispatcher(host, observers, maxPendingRequests,
                effective.maxMessageBytes());
        if (handler != null) {
            server.serve(handler, handlerExecutor); // before the engine starts, so no request finds it missing
        }
        host.startEngine(engineFactory, metricsIntervalNanos, new RpcListener() {
            @Override
            public void onRequest(long serverHandle, InetSocketAddress client, ByteBuf request) {
                server.onRequest(serverHandle, client, request);
            }

            @Override
            public void onResponse(long rpcId, ByteBuf response) {
                calls.onResponse(rpcId, response);
            }

            @Override
            public void onCallFailed(long rpcId, RpcFailure failure) {
                calls.onCallFailed(rpcId, failure);
            }

            @Override
            public void onRequestAbandoned(long serverHandle, RpcFailure why) {
                server.onRequestAbandoned(serverHandle, why);
            }
        });
        return new HomaEndpoint(effective, host, calls, server, defaultCallTimeoutNanos);
    }
}
