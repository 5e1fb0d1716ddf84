package io.homa4j.bench.transport;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.InetSocketAddress;
import java.util.List;

/**
 * Finds the Homa adapter ({@code HomaTransport}) at run time, so the bench builds while homa-netty's
 * {@code HomaEndpoint} is still being written; without it, {@code --protocol homa} fails with a clear message.
 */
final class HomaLoader {
    private static final String ADAPTER = "io.homa4j.bench.transport.HomaTransport";

    private HomaLoader() {
    }

    static BenchServer startServer(TransportOptions options) {
        return (BenchServer) invoke("startServer", new Class<?>[] {TransportOptions.class}, options);
    }

    static BenchClient connect(List<InetSocketAddress> servers, TransportOptions options) {
        return (BenchClient) invoke("connect", new Class<?>[] {List.class, TransportOptions.class}, servers, options);
    }

    private static Object invoke(String name, Class<?>[] types, Object... args) {
        Method method;
        try {
            method = Class.forName(ADAPTER).getMethod(name, types);
        } catch (ClassNotFoundException | NoSuchMethodException | LinkageError e) {
            throw new UnsupportedOperationException("Homa is not available in this build (homa-netty's HomaEndpoint "
                    + "is missing): " + e);
        }
        try {
            return method.invoke(null, args);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            throw new IllegalStateException(cause);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }
}
